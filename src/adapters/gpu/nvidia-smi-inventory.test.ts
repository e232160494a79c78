// Runs the inventory against a stand-in `nvidia-smi` shell script that cats recorded fixture
// outputs (real child processes). Files named *.derived or built below are marked as such.
import { chmodSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  NvidiaSmiUnavailableError,
  catalogModelForGpuName,
  createNvidiaSmiInventory,
  detectNvidiaSmi,
  type ExecFileFn,
} from './nvidia-smi-inventory.js';
import { INVENTORY_FIELDS } from './nvidia-smi-parse.js';

const fixture = (rel: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/${rel}`, import.meta.url), 'utf8');
const MASKED = 'GPU-00000000-0000-0000-0000-000000000000';
const maskedMig = (n: number): string => `MIG-0000000${n}-0000-0000-0000-00000000000${n}`;

const SCRIPT = `#!/bin/sh
d="$(dirname "$0")"
if [ -f "$d/sleep" ]; then exec sleep 5; fi
if [ -f "$d/exit-code" ]; then cat "$d/fail-output"; exit "$(cat "$d/exit-code")"; fi
if [ "$#" -eq 2 ] && [ "$1" = "--query-gpu=${INVENTORY_FIELDS.join(',')}" ] \\
  && [ "$2" = "--format=csv,noheader,nounits" ]; then exec cat "$d/query-gpu.csv"; fi
if [ "$#" -eq 1 ] && [ "$1" = "-L" ]; then exec cat "$d/list.txt"; fi
if [ "$#" -eq 2 ] && [ "$1" = "-q" ] && [ "$2" = "-x" ]; then exec cat "$d/q-x.xml"; fi
echo "stand-in nvidia-smi: unexpected arguments: $*" >&2
exit 2
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A temp dir holding the stand-in `nvidia-smi` and the outputs it prints. */
function fakeSmi(outputs: { csv: string; list: string; xml: string }): {
  dir: string;
  path: string;
  set: (name: string, text: string) => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-fake-smi-'));
  dirs.push(dir);
  const path = join(dir, 'nvidia-smi');
  writeFileSync(path, SCRIPT);
  chmodSync(path, 0o755);
  const set = (name: string, text: string): void => writeFileSync(join(dir, name), text);
  set('query-gpu.csv', outputs.csv);
  set('list.txt', outputs.list);
  set('q-x.xml', outputs.xml);
  return { dir, path, set };
}

/**
 * Minimal `-q -x` for the S1 H100 MIG host, built by hand from the values in the recorded `-q`
 * text capture query-text/q__h100-80gb-hbm3__mig__590.48.01__idle__masked.txt (shared fixtures):
 * no H100 XML recording exists. Not a recording.
 */
const H100_MIG_XML_DERIVED = `<?xml version="1.0" ?>
<nvidia_smi_log><driver_version>590.48.01</driver_version><attached_gpus>1</attached_gpus>
<gpu id="00000000:00:09.0"><product_name>NVIDIA H100 80GB HBM3</product_name>
<mig_mode><current_mig>Enabled</current_mig><pending_mig>Enabled</pending_mig></mig_mode>
<mig_devices>${[2, 3, 9, 10]
  .map(
    (gi, i) =>
      `<mig_device><index>${i}</index><gpu_instance_id>${gi}` +
      `</gpu_instance_id><compute_instance_id>0</compute_instance_id></mig_device>`,
  )
  .join('')}
</mig_devices><uuid>${MASKED}</uuid><minor_number>0</minor_number>
<gpu_recovery_action>None</gpu_recovery_action>
<fb_memory_usage><total>81559 MiB</total><used>59 MiB</used></fb_memory_usage>
<remapped_rows>N/A</remapped_rows>
<fabric><state>Completed</state><status>Success</status><health><summary>N/A</summary></health></fabric>
</gpu></nvidia_smi_log>
`;

const T4_UUID = 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a';
/** `--query-gpu` row and `-L` line for the S2 Tesla T4, derived from the values in its XML recording. */
const T4_CSV_DERIVED =
  `0, ${T4_UUID}, Tesla T4, 15360, 1032, 13939, 0, 0, 40, 26.78, [N/A], Default, ` + `00000000:00:1E.0\n`;
const T4_LIST_DERIVED = `GPU 0: Tesla T4 (UUID: ${T4_UUID})\n`;
const T4_XML = fixture('xml/q-x__tesla-t4__515.105.01.xml');

/** The S8/S2 A100 host: `-L` recorded (4 GPUs), `-q -x` recorded but trimmed upstream to GPU 0. */
const A100_LIST = fixture('list/L__4x-a100-sxm4-80gb__gpu0-mig-4x1g.20gb__535.54.03__telegraf-issue-5812.txt');
const A100_XML = fixture('xml/q-x__a100-sxm4-80gb__mig-4x1g.20gb-on-gpu0__535.54.03__gpu0-only.xml');
const A100_UUIDS = [
  'GPU-513536b6-7d19-9063-b049-1e69664bb298',
  'GPU-d8594bd4-0fc3-8595-e355-7c98138f3b95',
  'GPU-5e375e7e-b41f-155b-dcdc-534524c356fc',
  'GPU-69ec2344-ebac-b028-f88f-452abb3d7f11',
];
/** Row 0 from the GPU 0 XML values; rows 1-3 made up (UUIDs from -L, memory of an idle A100-80GB). */
const a100Csv = (indices: number[]): string =>
  indices
    .map((i) =>
      i === 0
        ? `0, ${A100_UUIDS[0]}, NVIDIA A100-SXM4-80GB, 81920, 50, 80999, [N/A], [N/A], 27, 67.03, Enabled, ` +
          `Default, 00000000:01:00.0`
        : `${i}, ${A100_UUIDS[i]}, NVIDIA A100-SXM4-80GB, 81920, 4, 81916, 0, 0, 30, 60.00, Disabled, ` +
          `Default, 00000000:0${i + 1}:00.0`,
    )
    .join('\n') + '\n';

describe('createNvidiaSmiInventory against a stand-in nvidia-smi', () => {
  it('H100 MIG host (S1 -L and derived CSV): MIG devices joined with -q -x GI/CI IDs', async () => {
    const smi = fakeSmi({
      csv: fixture(
        'derived/query-gpu__inventory13__noheader-nounits__h100-80gb-hbm3__mig__590.48.01__idle.derived.csv',
      ),
      list: fixture('list/L__h100-80gb-hbm3__mig__590.48.01__masked.txt'),
      xml: H100_MIG_XML_DERIVED,
    });
    const inv = createNvidiaSmiInventory({ nvidiaSmiPath: smi.path });
    expect(inv.source).toBe('nvidia-smi');
    expect(await inv.list()).toEqual([
      {
        index: 0,
        uuid: MASKED,
        name: 'NVIDIA H100 80GB HBM3',
        model: 'H100-80GB',
        gpuMemoryMiB: 81559,
        migEnabled: true,
        migDevices: [
          ['3g.40gb', 2],
          ['2g.20gb', 3],
          ['1g.10gb', 9],
          ['1g.10gb', 10],
        ].map(([profile, gi], n) => ({
          uuid: maskedMig(n),
          profile,
          gpuInstanceId: gi,
          computeInstanceId: 0,
          deviceIndex: n,
        })),
        simulated: false,
        deviceMinor: 0,
        healthy: true,
        healthReason: null,
        utilizationGpuPct: null,
        memoryUsedMiB: 59,
      },
    ]);
  });

  it('Tesla T4 (S2 XML) found through PATH', async () => {
    const smi = fakeSmi({ csv: T4_CSV_DERIVED, list: T4_LIST_DERIVED, xml: T4_XML });
    vi.stubEnv('PATH', `${smi.dir}:${process.env['PATH'] ?? ''}`);
    expect(await createNvidiaSmiInventory().list()).toEqual([
      {
        index: 0,
        uuid: T4_UUID,
        name: 'Tesla T4',
        model: 'T4',
        gpuMemoryMiB: 15360,
        migEnabled: false,
        migDevices: [],
        simulated: false,
        deviceMinor: 0,
        healthy: true,
        healthReason: null,
        utilizationGpuPct: 0,
        memoryUsedMiB: 1032,
      },
    ]);
    expect(await detectNvidiaSmi()).toBe(true);
  });

  it('A100 host (S8 -L, S2 XML): GPUs missing from -q -x are unhealthy; a vanished GPU is just absent', async () => {
    const smi = fakeSmi({ csv: a100Csv([0, 1, 2, 3]), list: A100_LIST, xml: A100_XML });
    const inv = createNvidiaSmiInventory({ nvidiaSmiPath: smi.path, timeoutMs: 20_000 });
    const first = await inv.list();
    expect(first.map((g) => g.uuid)).toEqual(A100_UUIDS);
    expect(first.map((g) => g.model)).toEqual(Array(4).fill('A100-80GB'));
    expect(first[0]).toMatchObject({ healthy: true, migEnabled: true, gpuMemoryMiB: 81920, memoryUsedMiB: 50 });
    expect(first[0]?.migDevices.map((d) => [d.deviceIndex, d.profile, d.gpuInstanceId, d.computeInstanceId])).toEqual([
      [0, '1g.20gb', 3, 0],
      [1, '1g.20gb', 4, 0],
      [2, '1g.20gb', 5, 0],
      [3, '1g.20gb', 6, 0],
    ]);
    expect(first[0]?.migDevices[3]?.uuid).toBe('MIG-930574a9-d43a-5d2b-95da-3e68384c8d6b');
    expect(first.slice(1).map((g) => [g.healthy, g.healthReason])).toEqual(
      Array(3).fill([false, 'missing from nvidia-smi -q -x output']),
    );

    smi.set(
      'list.txt',
      A100_LIST.split('\n')
        .filter((l) => !l.startsWith('GPU 2:'))
        .join('\n'),
    );
    smi.set('query-gpu.csv', a100Csv([0, 1, 3]));
    const second = await inv.list();
    expect(second.map((g) => g.index)).toEqual([0, 1, 3]);
    expect(second.map((g) => g.uuid)).not.toContain(A100_UUIDS[2]);
  });

  it('a GPU between -L and --query-gpu is unhealthy, naming the missing output', async () => {
    const smi = fakeSmi({ csv: a100Csv([0]), list: A100_LIST, xml: A100_XML });
    const gpus = await createNvidiaSmiInventory({ nvidiaSmiPath: smi.path }).list();
    expect(gpus[1]).toMatchObject({
      index: 1,
      uuid: A100_UUIDS[1],
      model: 'A100-80GB',
      gpuMemoryMiB: 81920,
      healthy: false,
      healthReason: 'missing from nvidia-smi --query-gpu output; missing from nvidia-smi -q -x output',
    });
  });

  it('health from -q -x flips between calls (pending page retirement)', async () => {
    const smi = fakeSmi({ csv: T4_CSV_DERIVED, list: T4_LIST_DERIVED, xml: T4_XML });
    const inv = createNvidiaSmiInventory({ nvidiaSmiPath: smi.path });
    expect((await inv.list())[0]?.healthy).toBe(true);
    smi.set('q-x.xml', T4_XML.replace('<pending_retirement>No', '<pending_retirement>Yes'));
    expect((await inv.list())[0]).toMatchObject({
      healthy: false,
      healthReason: 'retired pages pending (GPU reset needed)',
    });
  });

  it('a bracketed error in a --query-gpu row makes that GPU unhealthy, not the call fail', async () => {
    const smi = fakeSmi({
      csv: T4_CSV_DERIVED.replace(', 15360,', ', [GPU requires reset],'),
      list: T4_LIST_DERIVED,
      xml: T4_XML,
    });
    const inv = createNvidiaSmiInventory({ nvidiaSmiPath: smi.path });
    expect((await inv.list())[0]).toMatchObject({
      uuid: T4_UUID,
      name: 'Tesla T4',
      gpuMemoryMiB: 15360,
      healthy: false,
      healthReason: 'nvidia-smi reports [GPU requires reset]',
      memoryUsedMiB: null,
    });
    const allBad = `0, ${Array(12).fill('[Unknown Error]').join(', ')}\n`;
    smi.set('query-gpu.csv', allBad);
    expect((await inv.list())[0]).toMatchObject({
      uuid: T4_UUID,
      healthy: false,
      healthReason: 'nvidia-smi reports [Unknown Error]',
    });
  });

  it('nvidia-smi exiting non-zero rejects with NvidiaSmiUnavailableError', async () => {
    const smi = fakeSmi({ csv: T4_CSV_DERIVED, list: T4_LIST_DERIVED, xml: T4_XML });
    smi.set('exit-code', '9');
    smi.set('fail-output', "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n");
    const inv = createNvidiaSmiInventory({ nvidiaSmiPath: smi.path });
    await expect(inv.list()).rejects.toThrow(NvidiaSmiUnavailableError);
    await expect(inv.list()).rejects.toThrow(
      /nvidia-smi .*: exited with code 9: NVIDIA-SMI has failed because it couldn't communicate/,
    );
    expect(await detectNvidiaSmi(smi.path)).toBe(false);
    unlinkSync(join(smi.dir, 'exit-code'));
    expect(await inv.list()).toHaveLength(1);
  });

  it('absent program, timeout and unrecognised output reject with NvidiaSmiUnavailableError', async () => {
    const missing = createNvidiaSmiInventory({ nvidiaSmiPath: '/nonexistent/nvidia-smi' });
    await expect(missing.list()).rejects.toThrow(/^\/nonexistent\/nvidia-smi .*: not found$/);
    expect(await detectNvidiaSmi('/nonexistent/nvidia-smi')).toBe(false);

    const slow = fakeSmi({ csv: '', list: '', xml: '' });
    slow.set('sleep', '');
    await expect(createNvidiaSmiInventory({ nvidiaSmiPath: slow.path, timeoutMs: 300 }).list()).rejects.toThrow(
      'timed out after 300 ms',
    );

    const odd = fakeSmi({ csv: T4_CSV_DERIVED, list: 'No devices were found\n', xml: T4_XML });
    await expect(createNvidiaSmiInventory({ nvidiaSmiPath: odd.path }).list()).rejects.toThrow(
      new NvidiaSmiUnavailableError(
        'nvidia-smi -L: unrecognised output: line 1: unrecognised nvidia-smi -L line: "No devices were found"',
      ),
    );
    expect(await detectNvidiaSmi(odd.path)).toBe(false);
    odd.set('list.txt', '');
    expect(await detectNvidiaSmi(odd.path)).toBe(false);
  });

  it('uses an injected execFile with the documented arguments and timeout', async () => {
    const calls: string[] = [];
    const outputs: Record<string, string> = { '-L': T4_LIST_DERIVED, '-q -x': T4_XML };
    const execFile: ExecFileFn = async (file, args, { timeoutMs }) => {
      calls.push(`${file} ${args.join(' ')} ${timeoutMs}`);
      return { stdout: outputs[args.join(' ')] ?? T4_CSV_DERIVED, stderr: '' };
    };
    const gpus = await createNvidiaSmiInventory({ nvidiaSmiPath: 'smi', timeoutMs: 1234, execFile }).list();
    expect(gpus.map((g) => g.model)).toEqual(['T4']);
    expect(calls.sort()).toEqual([
      `smi --query-gpu=${INVENTORY_FIELDS.join(',')} --format=csv,noheader,nounits 1234`,
      'smi -L 1234',
      'smi -q -x 1234',
    ]);
  });
});

describe('catalogModelForGpuName', () => {
  it('maps every name in the recorded fixtures, keeping unknown ones', () => {
    expect(
      Object.fromEntries(
        [
          'NVIDIA H100 80GB HBM3',
          'NVIDIA H200',
          'NVIDIA H200 NVL',
          'NVIDIA A100-SXM4-80GB',
          'A100-SXM4-40GB',
          'NVIDIA A100-PCIE-40GB',
          'Tesla T4',
          'NVIDIA A30',
          'NVIDIA L4',
          'NVIDIA A10',
          'Tesla V100-SXM2-16GB',
          'Tesla V100-PCIE-32GB',
          'Tesla P100-PCIE-16GB',
          'NVIDIA L40S',
          'NVIDIA A10G',
          'Tesla V100S-PCIE-32GB',
          'NVIDIA GeForce RTX 3080',
          'H100',
          'A100-80GB',
        ].map((n) => [n, catalogModelForGpuName(n)]),
      ),
    ).toEqual({
      'NVIDIA H100 80GB HBM3': 'H100-80GB',
      'NVIDIA H200': 'H200-141GB',
      'NVIDIA H200 NVL': 'H200-141GB',
      'NVIDIA A100-SXM4-80GB': 'A100-80GB',
      'A100-SXM4-40GB': 'A100-40GB',
      'NVIDIA A100-PCIE-40GB': 'A100-40GB',
      'Tesla T4': 'T4',
      'NVIDIA A30': 'A30-24GB',
      'NVIDIA L4': 'L4',
      'NVIDIA A10': 'A10',
      'Tesla V100-SXM2-16GB': 'V100M16',
      'Tesla V100-PCIE-32GB': 'V100M32',
      'Tesla P100-PCIE-16GB': 'P100',
      'NVIDIA L40S': 'NVIDIA L40S',
      'NVIDIA A10G': 'NVIDIA A10G',
      'Tesla V100S-PCIE-32GB': 'Tesla V100S-PCIE-32GB',
      'NVIDIA GeForce RTX 3080': 'NVIDIA GeForce RTX 3080',
      H100: 'H100-80GB',
      'A100-80GB': 'A100-80GB',
    });
  });
});

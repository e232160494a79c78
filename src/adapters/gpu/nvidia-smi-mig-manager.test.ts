// The MigManager on nvidia-smi. Part 1 runs it in process against the stand-in (exact command
// sequences); part 2 runs real child processes: a shell wrapper named `nvidia-smi` on a temp PATH
// that execs the compiled stand-in entry on a temp state file, and createSimulatedMigManager.
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MigManager } from '../../app/ports/mig-manager.js';
import { parseMigComputeInstances, type ParsedComputeInstance } from './nvidia-smi-mig-parse.js';
import {
  MigCommandError,
  buildMigInstanceStates,
  createNvidiaSmiMigManager,
  matchMigDevices,
} from './nvidia-smi-mig-manager.js';
import type { RunCommandFn } from './run-command.js';
import { parseListGpus } from './nvidia-smi-parse.js';
import { createSimulatedMigManager } from './simulated-mig-manager.js';
import {
  createSimulatedNvidiaSmiState,
  readSimulatedNvidiaSmiState,
  runSimulatedNvidiaSmi,
  simulatedMigDeviceUuid,
  type SimulatedSmiState,
} from './simulated-nvidia-smi.js';
import {
  compiledStandInCli,
  removeStandInFiles,
  standInDirectory,
  writeNvidiaSmiWrapper,
  writeStateFile,
} from './testing/stand-in-kit.js';

const listFixture = (file: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/list/${file}`, import.meta.url), 'utf8');
const maskedMig = (n: number): string => `MIG-0000000${n}-0000-0000-0000-00000000000${n}`;

/** An in-process nvidia-smi: the stand-in on an in-memory state, recording every command line. */
function inProcess(state: SimulatedSmiState): {
  execFile: RunCommandFn;
  commands: string[];
  state: () => SimulatedSmiState;
} {
  let current = state;
  const commands: string[] = [];
  const execFile: RunCommandFn = (file, args) => {
    commands.push([file, ...args].join(' '));
    const r = runSimulatedNvidiaSmi(args, current);
    current = r.state;
    return Promise.resolve({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
  };
  return { execFile, commands, state: () => current };
}

const h100 = (): SimulatedSmiState =>
  createSimulatedNvidiaSmiState([
    { model: 'H100', mig: true },
    { model: 'H100', mig: true },
  ]);

describe('matching -L MIG devices to compute instances', () => {
  const ci = (
    gpuInstanceId: number,
    computeInstanceId: number,
    profileName: string,
    profileId: number,
  ): ParsedComputeInstance => ({ gpu: 0, gpuInstanceId, computeInstanceId, profileName, profileId, placement: null });

  it('H200 (S1, masked): devices follow ascending (GI, CI), as the -q capture of the same host shows', () => {
    // GI/CI IDs and CI profiles from query-text/q__h200__mig__590.48.01__idle__masked.txt (shared fixtures).
    const cis = [
      ci(9, 0, '1g.18gb', 0),
      ci(2, 1, '2c.3g.71gb', 1),
      ci(2, 0, '1c.3g.71gb', 0),
      ci(3, 0, '2g.35gb', 1),
      ci(10, 0, '1g.18gb', 0),
    ];
    const listed = parseListGpus(listFixture('L__h200__mig__590.48.01__masked.txt'))[0]!;
    expect(matchMigDevices(listed.migDevices, cis)).toEqual([
      { gpuInstanceId: 2, computeInstanceId: 0, uuid: maskedMig(0) },
      { gpuInstanceId: 2, computeInstanceId: 1, uuid: maskedMig(1) },
      { gpuInstanceId: 3, computeInstanceId: 0, uuid: maskedMig(2) },
      { gpuInstanceId: 9, computeInstanceId: 0, uuid: maskedMig(3) },
      { gpuInstanceId: 10, computeInstanceId: 0, uuid: maskedMig(4) },
    ]);
    const gis = [
      { gpu: 0, profileName: '3g.71gb', profileId: 9, gpuInstanceId: 2, start: 4, size: 4 },
      { gpu: 0, profileName: '2g.35gb', profileId: 14, gpuInstanceId: 3, start: 0, size: 2 },
    ];
    expect(buildMigInstanceStates(gis, cis, listed)).toEqual([
      {
        gpuInstanceId: 3,
        profileId: 14,
        profileName: '2g.35gb',
        start: 0,
        size: 2,
        computeInstances: [{ computeInstanceId: 0, profileId: 1 }],
        migDeviceUuid: maskedMig(2),
      },
      {
        gpuInstanceId: 2,
        profileId: 9,
        profileName: '3g.71gb',
        start: 4,
        size: 4,
        computeInstances: [
          { computeInstanceId: 0, profileId: 0 },
          { computeInstanceId: 1, profileId: 1 },
        ],
        migDeviceUuid: maskedMig(0),
      },
    ]);
  });

  it('legacy R450 UUIDs carry their GI and CI', () => {
    const listed = parseListGpus(listFixture('L__a100-sxm4-40gb__mig-3g+2g+1g__450.80.02__legacy-mig-uuid.txt'))[0]!;
    expect(matchMigDevices(listed.migDevices, []).map((d) => [d.gpuInstanceId, d.computeInstanceId])).toEqual([
      [2, 0],
      [3, 0],
      [9, 0],
    ]);
  });

  it('no UUIDs when the counts differ or a profile name does not match', () => {
    const listed = parseListGpus(listFixture('L__h100-80gb-hbm3__mig__590.48.01__masked.txt'))[0]!;
    const cis = [ci(2, 0, '3g.40gb', 2), ci(3, 0, '2g.20gb', 1), ci(9, 0, '1g.10gb', 0), ci(10, 0, '1g.10gb', 0)];
    expect(matchMigDevices(listed.migDevices, cis).map((d) => d.uuid)).toEqual([0, 1, 2, 3].map(maskedMig));
    expect(matchMigDevices(listed.migDevices, cis.slice(0, 3))).toEqual([]);
    expect(
      matchMigDevices(
        listed.migDevices,
        [cis[1]!, cis[0]!, cis[2]!, cis[3]!].map((c, k) => ({ ...c, gpuInstanceId: k })),
      ),
    ).toEqual([]);
  });

  it('the recorded -lci table parses into the rows the matcher takes', () => {
    const text = readFileSync(
      new URL(
        '../../../test/fixtures/nvidia-smi/mig/mig-lci__a100-40gb__gi1-3x1c.3g.20gb__mig-user-guide.txt',
        import.meta.url,
      ),
      'utf8',
    );
    expect(parseMigComputeInstances(text).map((c) => [c.gpuInstanceId, c.computeInstanceId, c.profileName])).toEqual([
      [1, 0, '1c.3g.20gb'],
      [1, 1, '1c.3g.20gb'],
      [1, 2, '1c.3g.20gb'],
    ]);
  });
});

describe('createNvidiaSmiMigManager in process (exact commands)', () => {
  it('listInstances on an empty GPU runs -lgi and -L only', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ execFile: fake.execFile });
    expect(await manager.listInstances(1)).toEqual([]);
    expect(fake.commands).toEqual(['nvidia-smi mig -i 1 -lgi', 'nvidia-smi -L']);
  });

  it('apply creates largest first with explicit placements and -C, then reads back', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ nvidiaSmiPath: '/usr/bin/nvidia-smi', execFile: fake.execFile });
    const result = await manager.apply(0, {
      destroy: [],
      create: [
        { profileId: 19, start: 6 },
        { profileId: 14, start: 4 },
        { profileId: 9, start: 0 },
      ],
    });
    expect(fake.commands).toEqual([
      '/usr/bin/nvidia-smi mig -i 0 -lgi',
      '/usr/bin/nvidia-smi -L',
      '/usr/bin/nvidia-smi mig -i 0 -cgi 9:0 -C',
      '/usr/bin/nvidia-smi mig -i 0 -cgi 14:4 -C',
      '/usr/bin/nvidia-smi mig -i 0 -cgi 19:6 -C',
      '/usr/bin/nvidia-smi mig -i 0 -lgi',
      '/usr/bin/nvidia-smi -L',
      '/usr/bin/nvidia-smi mig -i 0 -lci',
    ]);
    const uuid = fake.state().gpus[0]!.uuid;
    expect(result).toEqual({
      ok: true,
      destroyed: 0,
      error: null,
      created: [
        {
          gpuInstanceId: 13,
          profileId: 19,
          profileName: '1g.10gb',
          start: 6,
          size: 1,
          computeInstances: [{ computeInstanceId: 0, profileId: 0 }],
          migDeviceUuid: simulatedMigDeviceUuid(uuid, 13, 0),
        },
        {
          gpuInstanceId: 5,
          profileId: 14,
          profileName: '2g.20gb',
          start: 4,
          size: 2,
          computeInstances: [{ computeInstanceId: 0, profileId: 1 }],
          migDeviceUuid: simulatedMigDeviceUuid(uuid, 5, 0),
        },
        {
          gpuInstanceId: 1,
          profileId: 9,
          profileName: '3g.40gb',
          start: 0,
          size: 4,
          computeInstances: [{ computeInstanceId: 0, profileId: 2 }],
          migDeviceUuid: simulatedMigDeviceUuid(uuid, 1, 0),
        },
      ],
    });
    expect(fake.state().gpus[1]!.gpuInstances).toEqual([]);
  });

  it('apply destroys CIs then the GI, by ID or by placement; a GI already gone is skipped', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ execFile: fake.execFile });
    await manager.apply(0, {
      destroy: [],
      create: [
        { profileId: 9, start: 0 },
        { profileId: 9, start: 4 },
      ],
    });
    fake.commands.length = 0;
    const result = await manager.apply(0, {
      destroy: [
        { start: 0, profileId: 9, gpuInstanceId: 1 },
        { start: 4, profileId: 9 },
        { start: 6, profileId: 19 },
      ],
      create: [{ profileId: 14, start: 0 }],
    });
    expect(fake.commands).toEqual([
      'nvidia-smi mig -i 0 -lgi',
      'nvidia-smi -L',
      'nvidia-smi mig -i 0 -lci',
      'nvidia-smi mig -i 0 -dci -gi 1',
      'nvidia-smi mig -i 0 -dgi -gi 1',
      'nvidia-smi mig -i 0 -dci -gi 2',
      'nvidia-smi mig -i 0 -dgi -gi 2',
      'nvidia-smi mig -i 0 -cgi 14:0 -C',
      'nvidia-smi mig -i 0 -lgi',
      'nvidia-smi -L',
      'nvidia-smi mig -i 0 -lci',
    ]);
    expect(result).toMatchObject({ ok: true, destroyed: 2, error: null });
    expect(result.created.map((g) => [g.gpuInstanceId, g.profileName, g.start])).toEqual([[3, '2g.20gb', 0]]);
  });

  it('a create that already exists is not run again; an empty plan only reads', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ execFile: fake.execFile });
    const first = await manager.apply(0, { destroy: [], create: [{ profileId: 0, start: 0 }] });
    fake.commands.length = 0;
    const again = await manager.apply(0, { destroy: [], create: [{ profileId: 0, start: 0 }] });
    expect(again).toEqual(first);
    expect(fake.commands.filter((c) => c.includes('-cgi'))).toEqual([]);
  });

  it('a destroy item whose GI ID has another placement stops before any change (Mismatch)', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ execFile: fake.execFile });
    await manager.apply(0, { destroy: [], create: [{ profileId: 9, start: 0 }] });
    const result = await manager.apply(0, {
      destroy: [{ start: 4, profileId: 9, gpuInstanceId: 1 }],
      create: [{ profileId: 9, start: 4 }],
    });
    expect(result.ok).toBe(false);
    expect(result.error).toBe('Mismatch: GPU instance 1 is profile 9 at 0:4, not profile 9 at 4; nothing destroyed');
    expect(result.destroyed).toBe(0);
    expect(result.created).toEqual([]);
    expect(fake.state().gpus[0]!.gpuInstances.map((g) => g.id)).toEqual([1]);
  });

  it('rejects malformed plans and indices', async () => {
    const manager = createNvidiaSmiMigManager({ execFile: inProcess(h100()).execFile });
    await expect(manager.apply(-1, { destroy: [], create: [] })).rejects.toThrow(RangeError);
    await expect(manager.apply(0, { destroy: [], create: [{ profileId: 9, start: 0.5 }] })).rejects.toThrow(
      /plan.create\[0\].start/,
    );
    await expect(manager.listInstances(1.5)).rejects.toThrow(RangeError);
  });

  it('rejects (state unknown) when nvidia-smi cannot run, fails to list, or prints garbage', async () => {
    const notFound = createNvidiaSmiMigManager({ nvidiaSmiPath: '/nonexistent/nvidia-smi' });
    await expect(notFound.listInstances(0)).rejects.toThrow(MigCommandError);
    await expect(notFound.listInstances(0)).rejects.toThrow('/nonexistent/nvidia-smi mig -i 0 -lgi: not found');
    const failing = createNvidiaSmiMigManager({
      execFile: () => Promise.resolve({ stdout: 'Insufficient Permissions\n', stderr: '', exitCode: 4 }),
    });
    await expect(failing.apply(0, { destroy: [], create: [] })).rejects.toThrow(
      'nvidia-smi mig -i 0 -lgi: exited with code 4: Insufficient Permissions',
    );
    const garbage = createNvidiaSmiMigManager({
      execFile: () => Promise.resolve({ stdout: 'garbage\n', stderr: '', exitCode: 0 }),
    });
    await expect(garbage.listInstances(0)).rejects.toThrow(
      'nvidia-smi mig -i 0 -lgi: line 1: unrecognised nvidia-smi mig -lgi header line: "garbage"',
    );
    const noGpu = inProcess(h100());
    await expect(createNvidiaSmiMigManager({ execFile: noGpu.execFile }).listInstances(7)).rejects.toThrow(
      /exited with code 6: No devices were found/,
    );
  });

  it('serialises operations on one GPU', async () => {
    const fake = inProcess(h100());
    const manager = createNvidiaSmiMigManager({ execFile: fake.execFile });
    const [a, b] = await Promise.all([
      manager.apply(0, { destroy: [], create: [{ profileId: 9, start: 0 }] }),
      manager.apply(0, { destroy: [{ start: 0, profileId: 9 }], create: [{ profileId: 0, start: 0 }] }),
    ]);
    expect(a.ok && b.ok).toBe(true);
    expect(b.destroyed).toBe(1);
    expect(fake.state().gpus[0]!.gpuInstances.map((g) => [g.profileId, g.start])).toEqual([[0, 0]]);
  });
});

describe('real child processes: nvidia-smi wrapper on PATH running the compiled stand-in', () => {
  let stateFile = '';
  let manager: MigManager;

  beforeAll(() => {
    compiledStandInCli();
  });
  afterAll(() => removeStandInFiles());
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  function setUp(state: SimulatedSmiState): void {
    const dir = standInDirectory();
    stateFile = writeStateFile(dir, state);
    writeNvidiaSmiWrapper(dir, stateFile);
    vi.stubEnv('PATH', `${dir}${delimiter}${process.env.PATH ?? ''}`);
    manager = createNvidiaSmiMigManager();
  }

  it('create, read back with MIG UUIDs, destroy, read back', async () => {
    setUp(createSimulatedNvidiaSmiState([{ model: 'A100-80GB', mig: true }]));
    const gpuUuid = readSimulatedNvidiaSmiState(stateFile).gpus[0]!.uuid;
    const created = await manager.apply(0, {
      destroy: [],
      create: [
        { profileId: 19, start: 6 },
        { profileId: 9, start: 0 },
      ],
    });
    expect(created).toEqual({
      ok: true,
      destroyed: 0,
      error: null,
      created: [
        {
          gpuInstanceId: 13,
          profileId: 19,
          profileName: '1g.10gb',
          start: 6,
          size: 1,
          computeInstances: [{ computeInstanceId: 0, profileId: 0 }],
          migDeviceUuid: simulatedMigDeviceUuid(gpuUuid, 13, 0),
        },
        {
          gpuInstanceId: 1,
          profileId: 9,
          profileName: '3g.40gb',
          start: 0,
          size: 4,
          computeInstances: [{ computeInstanceId: 0, profileId: 2 }],
          migDeviceUuid: simulatedMigDeviceUuid(gpuUuid, 1, 0),
        },
      ],
    });
    expect(await manager.listInstances(0)).toEqual([created.created[1], created.created[0]]);
    const destroyed = await manager.apply(0, { destroy: [{ start: 0, profileId: 9, gpuInstanceId: 1 }], create: [] });
    expect(destroyed).toEqual({ ok: true, created: [], destroyed: 1, error: null });
    expect((await manager.listInstances(0)).map((g) => g.gpuInstanceId)).toEqual([13]);
    expect(readSimulatedNvidiaSmiState(stateFile).gpus[0]!.gpuInstances).toEqual([
      { id: 13, profileId: 19, start: 6, computeInstances: [{ id: 0, profileId: 0 }] },
    ]);
  });

  it('-cgi 19,19,14,9 in bad order: Insufficient Resources, and the manager reads the three GIs back', async () => {
    setUp(createSimulatedNvidiaSmiState([{ model: 'A100-40GB', mig: true }]));
    const { execFile } = await import('node:child_process');
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile('nvidia-smi', ['mig', '-cgi', '19,19,14,9'], { env: process.env }, (err, stdout) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout });
      });
    });
    expect(run.code).toBe(255);
    expect(run.stdout.split('\n').slice(-3)).toEqual([
      'Unable to create a GPU instance on GPU  0 using profile 9: Insufficient Resources',
      'Failed to create GPU instances: Insufficient Resources',
      '',
    ]);
    expect(
      (await manager.listInstances(0)).map((g) => [
        g.profileName,
        g.start,
        g.size,
        g.computeInstances.length,
        g.migDeviceUuid,
      ]),
    ).toEqual([
      ['2g.10gb', 2, 2, 0, null],
      ['1g.5gb', 5, 1, 0, null],
      ['1g.5gb', 6, 1, 0, null],
    ]);
  });

  it('an overlapping placement stops the apply with Insufficient Resources; reconcile, then fix the plan', async () => {
    setUp(createSimulatedNvidiaSmiState([{ model: 'H100-80GB', mig: true }]));
    const first = await manager.apply(0, { destroy: [], create: [{ profileId: 9, start: 4 }] });
    expect(first.ok).toBe(true);
    // 14@4 overlaps the 3g at 4:4. Largest first: 9@0 is created, then 14@4 is refused; 19@6 never runs.
    const failed = await manager.apply(0, {
      destroy: [],
      create: [
        { profileId: 19, start: 6 },
        { profileId: 14, start: 4 },
        { profileId: 9, start: 0 },
      ],
    });
    expect(failed.ok).toBe(false);
    expect(failed.error).toBe(
      'Insufficient Resources: nvidia-smi mig -i 0 -cgi 14:4 -C exited with code 255: ' +
        'Unable to create a GPU instance on GPU  0 using profile 14: Insufficient Resources\n' +
        'Failed to create GPU instances: Insufficient Resources',
    );
    expect(failed.destroyed).toBe(0);
    expect(failed.created.map((g) => [g.profileId, g.start, g.gpuInstanceId])).toEqual([[9, 0, 1]]);
    // Reconcile: the real state is the two 3g GIs, both with a MIG device.
    const now = await manager.listInstances(0);
    expect(now.map((g) => [g.profileName, g.start, g.migDeviceUuid !== null])).toEqual([
      ['3g.40gb', 0, true],
      ['3g.40gb', 4, true],
    ]);
    // The corrected plan: replace the 3g at 4 by 2g@4 and 1g@6.
    const fixed = await manager.apply(0, {
      destroy: [{ start: 4, profileId: 9, gpuInstanceId: now[1]!.gpuInstanceId }],
      create: [
        { profileId: 19, start: 6 },
        { profileId: 14, start: 4 },
      ],
    });
    expect(fixed).toMatchObject({ ok: true, destroyed: 1, error: null });
    expect((await manager.listInstances(0)).map((g) => [g.profileName, g.gpuInstanceId, g.start])).toEqual([
      ['3g.40gb', 1, 0],
      ['2g.20gb', 5, 4],
      ['1g.10gb', 13, 6],
    ]);
  });

  it('createSimulatedMigManager runs the same manager through the stand-in entry', async () => {
    const dir = standInDirectory();
    const file = writeStateFile(
      dir,
      createSimulatedNvidiaSmiState([
        { model: 'T4', mig: false },
        { model: 'H200', mig: true },
      ]),
    );
    const simulated = createSimulatedMigManager(file, { cliPath: compiledStandInCli() });
    const result = await simulated.apply(1, { destroy: [], create: [{ profileId: 0, start: 0 }] });
    const gpuUuid = readSimulatedNvidiaSmiState(file).gpus[1]!.uuid;
    expect(result).toEqual({
      ok: true,
      destroyed: 0,
      error: null,
      created: [
        {
          gpuInstanceId: 0,
          profileId: 0,
          profileName: '7g.141gb',
          start: 0,
          size: 8,
          computeInstances: [{ computeInstanceId: 0, profileId: 4 }],
          migDeviceUuid: simulatedMigDeviceUuid(gpuUuid, 0, 0),
        },
      ],
    });
    const refused = await simulated.apply(1, { destroy: [], create: [{ profileId: 19, start: 0 }] });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/^Insufficient Resources: nvidia-smi mig -i 1 -cgi 19:0 -C exited with code 255: /);
    expect(refused.created).toEqual([]);
    await expect(simulated.listInstances(0)).rejects.toThrow(
      'nvidia-smi mig -i 0 -lgi: exited with code 6: No MIG-enabled devices found.',
    );
  });
});

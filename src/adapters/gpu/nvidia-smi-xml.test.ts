import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NvidiaSmiParseError } from './nvidia-smi-parse.js';
import { parseNvidiaSmiXml, xmlHealthProblems, type XmlGpuHealth } from './nvidia-smi-xml.js';

const fixture = (file: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/xml/${file}`, import.meta.url), 'utf8');

const A100 = 'q-x__a100-sxm4-80gb__mig-4x1g.20gb-on-gpu0__535.54.03__gpu0-only.xml';
const T4 = 'q-x__tesla-t4__515.105.01.xml';
const A10G = 'q-x__a10g__515.105.01.xml';
const V100S = 'q-x__8x-tesla-v100s-pcie-32gb__460.73.01.xml';
const RTX3080 = 'q-x__geforce-rtx-3080__595.58.03__dtd-v13.xml';

/** Every health field null/empty: the baseline the fixtures are compared against. */
const NO_HEALTH: XmlGpuHealth = {
  resetRequired: null,
  drainAndResetRecommended: null,
  recoveryAction: null,
  retiredPagesPending: null,
  retiredPagesPendingBlacklist: null,
  retiredPagesDoubleBitCount: null,
  remappedRowsPending: null,
  remappedRowsFailure: null,
  remappedRowsUncorrectable: null,
  eccVolatileDramUncorrectable: null,
  fabricState: null,
  fabricStatus: null,
  fabricHealthSummary: null,
  channelRepairPending: null,
  tpcRepairPending: null,
  errorValues: [],
};

/** Replaces exactly one occurrence of `from` in the fixture text (fails loudly otherwise). */
function mutate(xml: string, from: string, to: string): string {
  const n = xml.split(from).length - 1;
  if (n !== 1) throw new Error(`expected one "${from}", found ${n}`);
  return xml.replace(from, to);
}

describe('parseNvidiaSmiXml on recorded xml/ fixtures', () => {
  it('A100-SXM4-80GB, MIG enabled, 4 x 1g.20gb (S2, v12); attached_gpus 4 but one <gpu>', () => {
    const r = parseNvidiaSmiXml(fixture(A100));
    expect([r.driverVersion, r.cudaVersion, r.attachedGpus, r.gpus.length]).toEqual(['535.54.03', '12.2', 4, 1]);
    const g = r.gpus[0];
    expect(g).toMatchObject({
      pciBusId: '00000000:01:00.0',
      productName: 'NVIDIA A100-SXM4-80GB',
      uuid: 'GPU-513536b6-7d19-9063-b049-1e69664bb298',
      minorNumber: 1,
      gpuMemoryMiB: 81920,
      memoryUsedMiB: 50,
      utilizationGpuPct: null,
      utilizationMemoryPct: null,
      migModeCurrent: 'enabled',
      migModePending: 'enabled',
    });
    expect(g?.migDevices).toEqual(
      [3, 4, 5, 6].map((gi, index) => ({
        index,
        gpuInstanceId: gi,
        computeInstanceId: 0,
        memoryTotalMiB: 19968,
        memoryUsedMiB: 12,
        multiprocessorCount: 14,
      })),
    );
    expect(g?.health).toEqual({
      ...NO_HEALTH,
      resetRequired: false,
      drainAndResetRecommended: false,
      eccVolatileDramUncorrectable: 0,
    });
    expect(xmlHealthProblems(g!)).toEqual([]);
  });

  it('Tesla T4 (S2, v11): retired pages No, remapped_rows N/A', () => {
    const r = parseNvidiaSmiXml(fixture(T4));
    expect([r.driverVersion, r.attachedGpus]).toEqual(['515.105.01', 1]);
    expect(r.gpus).toHaveLength(1);
    expect(r.gpus[0]).toEqual({
      pciBusId: '00000000:00:1E.0',
      productName: 'Tesla T4',
      uuid: 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a',
      minorNumber: 0,
      gpuMemoryMiB: 15360,
      memoryUsedMiB: 1032,
      utilizationGpuPct: 0,
      utilizationMemoryPct: 0,
      migModeCurrent: 'unsupported',
      migModePending: 'unsupported',
      migDevices: [],
      health: {
        ...NO_HEALTH,
        retiredPagesPending: false,
        retiredPagesPendingBlacklist: false,
        retiredPagesDoubleBitCount: 0,
        eccVolatileDramUncorrectable: 0,
      },
    });
  });

  it('A10G (S2, v11): remapped_rows block present, retired pages N/A', () => {
    const [g] = parseNvidiaSmiXml(fixture(A10G)).gpus;
    expect(g).toMatchObject({
      productName: 'NVIDIA A10G',
      uuid: 'GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94',
      gpuMemoryMiB: 23028,
      memoryUsedMiB: 22,
      utilizationGpuPct: 0,
      migModeCurrent: 'unsupported',
      migDevices: [],
    });
    expect(g?.health).toEqual({
      ...NO_HEALTH,
      remappedRowsPending: false,
      remappedRowsFailure: false,
      remappedRowsUncorrectable: 0,
      eccVolatileDramUncorrectable: 0,
    });
  });

  it('8 x Tesla V100S (S3, v11, driver 460): per-GPU values, not the per-process ones', () => {
    const r = parseNvidiaSmiXml(fixture(V100S));
    expect(r.attachedGpus).toBe(8);
    expect(r.gpus.map((g) => g.minorNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(r.gpus.map((g) => g.utilizationGpuPct)).toEqual([97, 75, 80, 23, 98, 98, 91, 99]);
    expect(r.gpus.map((g) => g.memoryUsedMiB)).toEqual([31689, 29545, 29539, 32099, 29517, 32141, 32157, 29501]);
    expect(new Set(r.gpus.map((g) => g.gpuMemoryMiB))).toEqual(new Set([32510]));
    expect(r.gpus[0]?.uuid).toBe('GPU-76098dc1-d3bc-9a1b-7ea6-f7b48837829e');
    expect(r.gpus[7]).toMatchObject({ pciBusId: '00000000:00:14.0', uuid: 'GPU-1d955959-c95b-4f40-2cac-100d3006ffe2' });
    expect(r.gpus[3]?.health).toEqual({
      ...NO_HEALTH,
      retiredPagesPending: false,
      retiredPagesPendingBlacklist: false,
      retiredPagesDoubleBitCount: 0,
      eccVolatileDramUncorrectable: 0,
    });
    expect(r.gpus.flatMap(xmlHealthProblems)).toEqual([]);
  });

  it('GeForce RTX 3080 (S2, v13 schema, tab-indented): recovery action and repair flags', () => {
    const r = parseNvidiaSmiXml(fixture(RTX3080));
    expect([r.driverVersion, r.cudaVersion]).toEqual(['595.58.03', '13.2']);
    const g = r.gpus[0];
    expect(g).toMatchObject({
      productName: 'NVIDIA GeForce RTX 3080',
      uuid: 'GPU-19d6d965-2acc-f646-00f8-4c76979aabb4',
      minorNumber: 0,
      gpuMemoryMiB: 10240,
      memoryUsedMiB: 9184,
      utilizationGpuPct: 65,
      utilizationMemoryPct: 9,
      migModeCurrent: 'unsupported',
      migDevices: [],
    });
    expect(g?.health).toEqual({
      ...NO_HEALTH,
      recoveryAction: 'None',
      channelRepairPending: false,
      tpcRepairPending: false,
    });
    expect(xmlHealthProblems(g!)).toEqual([]);
  });
});

describe('xmlHealthProblems on fixtures with one field changed', () => {
  const problems = (xml: string): string[] => parseNvidiaSmiXml(xml).gpus.flatMap(xmlHealthProblems);

  it('v12 reset flags', () => {
    const xml = mutate(
      mutate(fixture(A100), '<reset_required>No', '<reset_required>Yes'),
      '<drain_and_reset_recommended>No',
      '<drain_and_reset_recommended>Yes',
    );
    expect(problems(xml)).toEqual([
      'GPU reset required (gpu_reset_status)',
      'drain and reset recommended (gpu_reset_status)',
    ]);
  });
  it('v13 recovery action and repair flags', () => {
    let xml = mutate(fixture(RTX3080), '<gpu_recovery_action>None', '<gpu_recovery_action>Reset');
    xml = mutate(xml, '<tpc_repair_pending>No', '<tpc_repair_pending>Yes');
    expect(problems(xml)).toEqual(['GPU recovery action: Reset', 'TPC repair pending']);
  });
  it('retired pages and remapped rows', () => {
    expect(problems(mutate(fixture(T4), '<pending_retirement>No', '<pending_retirement>Yes'))).toEqual([
      'retired pages pending (GPU reset needed)',
    ]);
    const xml = mutate(
      mutate(fixture(A10G), '<remapped_row_pending>No', '<remapped_row_pending>Yes'),
      '<remapped_row_failure>No',
      '<remapped_row_failure>Yes',
    );
    expect(problems(xml)).toEqual(['row remapping pending (GPU reset needed)', 'row remapping failure']);
  });
  it('fabric state and status', () => {
    const xml = mutate(
      mutate(fixture(A100), '<state>N/A</state>', '<state>In Progress</state>'),
      '<status>N/A</status>',
      '<status>Failure</status>',
    );
    expect(problems(xml)).toEqual(['fabric state: In Progress', 'fabric status: Failure']);
  });
  it('NVML error strings anywhere in the GPU element', () => {
    const xml = mutate(fixture(T4), '<gpu_util>0 %</gpu_util>', '<gpu_util>GPU requires reset</gpu_util>');
    expect(problems(xml)).toEqual(['nvidia-smi -q -x reports utilization.gpu_util: GPU requires reset']);
    expect(parseNvidiaSmiXml(xml).gpus[0]?.utilizationGpuPct).toBeNull();
  });
});

describe('parseNvidiaSmiXml errors and edge cases', () => {
  it('rejects malformed XML, naming the line', () => {
    expect(() => parseNvidiaSmiXml('<nvidia_smi_log>\n<gpu>\n</nvidia_smi_log>')).toThrow(NvidiaSmiParseError);
    expect(() => parseNvidiaSmiXml('<nvidia_smi_log>\n<gpu>\n</nvidia_smi_log>')).toThrow(
      /not well-formed XML at line 3/,
    );
  });
  it('rejects a document without the nvidia_smi_log root', () => {
    expect(() => parseNvidiaSmiXml('<other/>')).toThrow('nvidia-smi -q -x: no <nvidia_smi_log> root element');
  });
  it('rejects a <gpu> without a GPU- UUID', () => {
    expect(() => parseNvidiaSmiXml(mutate(fixture(T4), 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a', 'N/A'))).toThrow(
      '<gpu> #1: expected <uuid> GPU-…, got "N/A"',
    );
  });
  it('an empty log has no GPUs', () => {
    expect(parseNvidiaSmiXml('<nvidia_smi_log></nvidia_smi_log>').gpus).toEqual([]);
  });
});

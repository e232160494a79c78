import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { NvidiaSmiParseError } from './nvidia-smi-parse.js';
import { parseComputeAppsCsv, parseUsageGpuCsv } from './nvidia-smi-usage-parse.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/csv/${name}`, import.meta.url), 'utf8');
const ZERO_UUID = 'GPU-00000000-0000-0000-0000-000000000000';

describe('parseUsageGpuCsv on recorded --query-gpu (all fields, --format=csv) output', () => {
  it.each([
    ['h100-80gb-hbm3__590.48.01__idle', 0, 0],
    ['h100-80gb-hbm3__590.48.01__load', 1, 19818],
    ['h200__590.48.01__load', 1, 32362],
    ['l40s__595.80__idle', 1, 0],
    ['l40s__595.80__load', 0.09, 1235],
  ])('%s: utilization %f, memory used %i MiB', (name, utilizationRatio, memoryUsedMiB) => {
    expect(parseUsageGpuCsv(fixture(`query-gpu__all-fields__${name}.csv`))).toEqual([
      { index: 0, uuid: ZERO_UUID, utilizationRatio, memoryUsedMiB },
    ]);
  });

  it.each([
    ['h100-80gb-hbm3__mig__590.48.01__idle', 59],
    ['h100-80gb-hbm3__mig__590.48.01__load', 11125],
    ['h200__mig__590.48.01__load', 16959],
  ])('%s (MIG enabled): utilization [N/A] → null, memory used %i MiB', (name, memoryUsedMiB) => {
    expect(parseUsageGpuCsv(fixture(`query-gpu__all-fields__${name}.csv`))).toEqual([
      { index: 0, uuid: ZERO_UUID, utilizationRatio: null, memoryUsedMiB },
    ]);
  });

  it('reads the noheader,nounits form the sampler asks for, with [N/A] and [Not Supported]', () => {
    const text =
      `0, GPU-aaaaaaaa-0000-0000-0000-000000000001, 37, 4120\n1, ` +
      `GPU-aaaaaaaa-0000-0000-0000-000000000002, [N/A], [Not Supported]\n\n`;
    expect(parseUsageGpuCsv(text)).toEqual([
      { index: 0, uuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000001', utilizationRatio: 0.37, memoryUsedMiB: 4120 },
      { index: 1, uuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000002', utilizationRatio: null, memoryUsedMiB: null },
    ]);
  });

  it('names the line and field of malformed input', () => {
    expect(() => parseUsageGpuCsv('0, GPU-a, busy, 12\n')).toThrow(
      new NvidiaSmiParseError(
        'line 1, field "utilization.gpu": expected a number, [N/A] or [Not Supported], got "busy"',
      ),
    );
    expect(() => parseUsageGpuCsv('0, GPU-a, 1\n')).toThrow(/line 1: expected 4 values, got 3/);
    expect(() => parseUsageGpuCsv('0, MIG-a, 1, 2\n')).toThrow(
      /line 1, field "uuid": expected a GPU- UUID, got "MIG-a"/,
    );
    expect(() => parseUsageGpuCsv('x, GPU-a, 1, 2\n')).toThrow(/line 1, field "index": expected a number/);
  });
});

describe('parseComputeAppsCsv on recorded --query-compute-apps (--format=csv) output', () => {
  it('H100 under load: three processes with their memory (gpu_burn 15690 MiB)', () => {
    expect(parseComputeAppsCsv(fixture('query-compute-apps__h100-80gb-hbm3__590.48.01__load.csv'))).toEqual([
      { gpuUuid: ZERO_UUID, pid: 11327, memoryUsedMiB: 2566 },
      { gpuUuid: ZERO_UUID, pid: 11328, memoryUsedMiB: 1542 },
      { gpuUuid: ZERO_UUID, pid: 11345, memoryUsedMiB: 15690 },
    ]);
  });

  it('H200 with MIG: processes report the parent GPU UUID', () => {
    expect(parseComputeAppsCsv(fixture('query-compute-apps__h200__mig__590.48.01__load.csv'))).toEqual([
      { gpuUuid: ZERO_UUID, pid: 12249, memoryUsedMiB: 2194 },
      { gpuUuid: ZERO_UUID, pid: 12250, memoryUsedMiB: 1170 },
      { gpuUuid: ZERO_UUID, pid: 12267, memoryUsedMiB: 13526 },
    ]);
  });

  it.each([
    'h100-80gb-hbm3__590.48.01',
    'h100-80gb-hbm3__mig__590.48.01',
    'h200__590.48.01',
    'h200__mig__590.48.01',
    'l40s__595.80',
  ])('%s idle: header only → no processes', (name) => {
    expect(parseComputeAppsCsv(fixture(`query-compute-apps__${name}__idle.csv`))).toEqual([]);
  });

  it('reads the noheader,nounits form, [N/A] memory → null; empty output → none', () => {
    expect(
      parseComputeAppsCsv(
        'GPU-aaaaaaaa-0000-0000-0000-000000000001, 4242, [N/A]\nGPU-aaaaaaaa-0000-0000-0000-000000000001, 4243, 812\n',
      ),
    ).toEqual([
      { gpuUuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000001', pid: 4242, memoryUsedMiB: null },
      { gpuUuid: 'GPU-aaaaaaaa-0000-0000-0000-000000000001', pid: 4243, memoryUsedMiB: 812 },
    ]);
    expect(parseComputeAppsCsv('')).toEqual([]);
    expect(() => parseComputeAppsCsv('GPU-a, -3, 1\n')).toThrow(
      /line 1, field "pid": expected a non-negative integer, got "-3"/,
    );
  });
});

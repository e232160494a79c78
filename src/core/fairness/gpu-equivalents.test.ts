import { describe, expect, it } from 'vitest';
import { findMigProfile, migGeometry } from '../mig/mig-profiles.js';
import { findGpuModel } from '../model/gpu-models.js';
import { gpuEquivalents, smallestModelMemoryMiB, type GpuEquivalentRequest } from './gpu-equivalents.js';

const GIB = 1024;
const A100_80 = findGpuModel('A100-80GB')!.gpuMemoryMiB!;
const T4 = findGpuModel('T4')!.gpuMemoryMiB!;

describe('gpuEquivalents', () => {
  it.each<[string, GpuEquivalentRequest, number, number]>([
    ['--gpu 0.6 --gpu-count 2 (proportional memory)', { gpuCount: 2, gpuMilli: 600, gpuMemoryMiB: null }, A100_80, 1.2],
    ['half a GPU, proportional', { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null }, A100_80, 0.5],
    [
      'memory-dominant: 0.1 GPU with 40 GiB on A100-80GB',
      { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 40 * GIB },
      A100_80,
      0.5,
    ],
    [
      'memory-dominant on the smaller T4: 0.1 GPU with 8 GiB',
      { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 8 * GIB },
      T4,
      0.5,
    ],
    [
      'compute-dominant: 0.7 GPU with 8 GiB on A100-80GB',
      { gpuCount: 1, gpuMilli: 700, gpuMemoryMiB: 8 * GIB },
      A100_80,
      0.7,
    ],
    ['memory-dominant × 3 GPUs', { gpuCount: 3, gpuMilli: 100, gpuMemoryMiB: 20 * GIB }, A100_80, 0.75],
    ['whole GPU in auto mode', { gpuCount: 2, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto' }, A100_80, 2],
    [
      'exclusive counts whole GPUs whatever gpuMilli says',
      { gpuCount: 3, gpuMilli: 200, gpuMemoryMiB: 1024, mode: 'exclusive' },
      A100_80,
      3,
    ],
    ['mps keeps the formula', { gpuCount: 1, gpuMilli: 250, gpuMemoryMiB: null, mode: 'mps' }, A100_80, 0.25],
    [
      'timeslice keeps the formula',
      { gpuCount: 1, gpuMilli: 250, gpuMemoryMiB: 40 * GIB, mode: 'timeslice' },
      A100_80,
      0.5,
    ],
    [
      'memory above the model counts one GPU at most',
      { gpuCount: 2, gpuMilli: 100, gpuMemoryMiB: 100 * GIB },
      A100_80,
      2,
    ],
    ['CPU-only job', { gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0 }, A100_80, 0],
    [
      'MIG 3g on A100 (default 7 slices)',
      { gpuCount: 1, gpuMilli: 400, gpuMemoryMiB: null, migComputeSlices: 3 },
      A100_80,
      3 / 7,
    ],
    [
      'MIG 3g on A100, slices given',
      { gpuCount: 1, gpuMilli: 400, gpuMemoryMiB: null, migComputeSlices: 3, gpuComputeSlices: 7 },
      A100_80,
      3 / 7,
    ],
    [
      'MIG 2-slice on A30',
      { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 12 * GIB, migComputeSlices: 2, gpuComputeSlices: 4 },
      24 * GIB,
      0.5,
    ],
    [
      'MIG 1g on 2 GPUs',
      { gpuCount: 2, gpuMilli: 100, gpuMemoryMiB: null, migComputeSlices: 1, gpuComputeSlices: 7 },
      A100_80,
      2 / 7,
    ],
    ['MIG 7g = one GPU', { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, migComputeSlices: 7 }, A100_80, 1],
    [
      'MIG slices win over mode exclusive',
      { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive', migComputeSlices: 2 },
      A100_80,
      2 / 7,
    ],
    [
      'migComputeSlices null = not MIG',
      { gpuCount: 1, gpuMilli: 300, gpuMemoryMiB: null, migComputeSlices: null },
      A100_80,
      0.3,
    ],
  ])('%s → %d', (_name, request, modelMemoryMiB, expected) => {
    expect(gpuEquivalents(request, modelMemoryMiB)).toBeCloseTo(expected, 12);
  });

  it('measures a MIG instance with the catalog geometry (3g.40gb on A100-80GB, 2g.12gb on A30)', () => {
    const a100 = findMigProfile('A100-80GB', '3g.40gb')!;
    const a30 = findMigProfile('A30-24GB', '2g.12gb')!;
    expect(
      gpuEquivalents(
        {
          gpuCount: 1,
          gpuMilli: 1,
          gpuMemoryMiB: null,
          migComputeSlices: a100.computeSlices,
          gpuComputeSlices: migGeometry('A100-80GB')!.computeSlices,
        },
        A100_80,
      ),
    ).toBe(3 / 7);
    expect(
      gpuEquivalents(
        {
          gpuCount: 1,
          gpuMilli: 1,
          gpuMemoryMiB: null,
          migComputeSlices: a30.computeSlices,
          gpuComputeSlices: migGeometry('A30-24GB')!.computeSlices,
        },
        24 * GIB,
      ),
    ).toBe(0.5);
  });

  it('does not read the model memory when it is not needed', () => {
    expect(gpuEquivalents({ gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null }, 0)).toBe(0.5);
    expect(gpuEquivalents({ gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 5, mode: 'exclusive' }, Number.NaN)).toBe(1);
  });

  it('counts a request of 0 MiB by its compute alone, even on a model of unknown memory (0)', () => {
    expect(gpuEquivalents({ gpuCount: 2, gpuMilli: 250, gpuMemoryMiB: 0, mode: 'mps' }, 0)).toBe(0.5);
    expect(gpuEquivalents({ gpuCount: 1, gpuMilli: 600, gpuMemoryMiB: 0 }, T4)).toBe(0.6);
  });

  it.each<[GpuEquivalentRequest, number, RegExp]>([
    [{ gpuCount: -1, gpuMilli: 100, gpuMemoryMiB: null }, A100_80, /gpuCount/],
    [{ gpuCount: 1.5, gpuMilli: 100, gpuMemoryMiB: null }, A100_80, /gpuCount/],
    [{ gpuCount: 1, gpuMilli: 1001, gpuMemoryMiB: null }, A100_80, /gpuMilli/],
    [{ gpuCount: 1, gpuMilli: -1, gpuMemoryMiB: null }, A100_80, /gpuMilli/],
    [{ gpuCount: 1, gpuMilli: Number.NaN, gpuMemoryMiB: null }, A100_80, /gpuMilli/],
    [{ gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: -5 }, A100_80, /gpuMemoryMiB/],
    [{ gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 1024 }, 0, /modelMemoryMiB/],
    [{ gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 1024 }, Number.POSITIVE_INFINITY, /modelMemoryMiB/],
    [{ gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: null, migComputeSlices: 0 }, A100_80, /migComputeSlices/],
    [
      { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: null, migComputeSlices: 5, gpuComputeSlices: 4 },
      A100_80,
      /migComputeSlices/,
    ],
    [{ gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: null, migComputeSlices: 1.5 }, A100_80, /migComputeSlices/],
    [
      { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: null, migComputeSlices: 1, gpuComputeSlices: 0 },
      A100_80,
      /gpuComputeSlices/,
    ],
  ])('rejects %o on %d MiB, naming the field', (request, modelMemoryMiB, field) => {
    expect(() => gpuEquivalents(request, modelMemoryMiB)).toThrow(RangeError);
    expect(() => gpuEquivalents(request, modelMemoryMiB)).toThrow(field);
  });
});

describe('smallestModelMemoryMiB', () => {
  it('picks the smallest eligible model', () => {
    expect(smallestModelMemoryMiB([A100_80, T4, 40 * GIB])).toBe(T4);
    expect(smallestModelMemoryMiB([A100_80])).toBe(A100_80);
  });

  it('makes a pending job count against its cheapest eligible model', () => {
    const request = { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 16 * GIB };
    expect(gpuEquivalents(request, smallestModelMemoryMiB([A100_80, 32 * GIB]))).toBe(0.5);
  });

  it.each([[[]], [[0]], [[A100_80, -1]], [[Number.NaN]]])('rejects %o', (memories) => {
    expect(() => smallestModelMemoryMiB(memories)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import type { GpuRequest } from '../model/request.js';
import { accountedGpuMilli, reservedGpuMemoryMiB, resolveMode } from './share-accounting.js';

const request = (gpuMilli: number, gpuMemoryMiB: number | null, mode: GpuRequest['mode']): GpuRequest => ({
  gpuCount: 1,
  gpuMilli,
  gpuMemoryMiB,
  mode,
});

describe('resolveMode', () => {
  it.each([
    [1000, 'auto', 'exclusive'],
    [999, 'auto', 'mps'],
    [1, 'auto', 'mps'],
    [1000, 'mps', 'mps'],
    [500, 'timeslice', 'timeslice'],
    [500, 'exclusive', 'exclusive'],
    [1000, 'mig', 'mig'],
  ] as const)('%i milli, %s → %s', (milli, mode, expected) => {
    expect(resolveMode(request(milli, null, mode))).toBe(expected);
  });
});

describe('accountedGpuMilli', () => {
  it.each([
    ['exclusive', 1, 1, 1000],
    ['exclusive', 1000, 3, 1000],
    ['mps', 250, 4, 250],
    ['timeslice', 600, 1, 600],
    ['timeslice', 600, 2, 300],
    ['timeslice', 999, 2, 500],
    ['timeslice', 1, 2, 1],
    ['timeslice', 1000, 3, 334],
    ['timeslice', 500, 1.5, 334],
    ['mig', 700, 1, 0],
  ] as const)('%s %i milli at ratio %d → %i', (mode, milli, ratio, expected) => {
    expect(accountedGpuMilli(mode, milli, ratio)).toBe(expected);
  });
});

describe('reservedGpuMemoryMiB', () => {
  it.each([
    ['exclusive', 1000, 1024, 81920, 81920],
    ['exclusive', 1000, null, 16384, 16384],
    ['mps', 500, null, 81920, 40960],
    ['mps', 500, null, 16384, 8192],
    ['timeslice', 333, null, 16384, 5455],
    ['mps', 500, 30720, 81920, 30720],
    ['timeslice', 100, 90000, 81920, 90000],
  ] as const)('%s %i milli, memory %s on %i MiB → %i', (mode, milli, memory, model, expected) => {
    expect(reservedGpuMemoryMiB(mode, request(milli, memory, mode), model)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { requestOf } from './pod-request.js';
import type { WindowStats } from './pod-stats.js';

const stats = (peakMemoryMiB: number, meanDutyPct: number): WindowStats => ({
  pod: 'p',
  memorySamples: 60,
  dutySamples: 60,
  peakMemoryMiB,
  meanDutyPct,
  p50DutyPct: 0,
  p90DutyPct: 0,
  p99DutyPct: 0,
});

describe('requestOf', () => {
  it('asks the peak memory with the headroom, rounded up, and the mean duty cycle as milli-GPU', () => {
    expect(requestOf(stats(40000.2, 7.01), 0.05)).toEqual({ gpuMemoryMiB: 42001, gpuMilli: 71 });
    expect(requestOf(stats(1000, 10), 0)).toEqual({ gpuMemoryMiB: 1000, gpuMilli: 100 });
  });

  it('keeps milli-GPU in 1..1000 and memory at least 1 MiB', () => {
    expect(requestOf(stats(0, 0), 0.1)).toEqual({ gpuMemoryMiB: 1, gpuMilli: 1 });
    expect(requestOf(stats(5, 100), 0)).toEqual({ gpuMemoryMiB: 5, gpuMilli: 1000 });
    expect(() => requestOf(stats(5, 1), -0.1)).toThrow('headroom must be ≥ 0, got -0.1');
  });
});

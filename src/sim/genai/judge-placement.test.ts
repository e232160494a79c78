import { describe, expect, it } from 'vitest';
import { judgePlacement } from './judge-placement.js';
import { podLoadOf } from './pod-load.js';
import { podSeries } from './testing/genai-fixtures.js';

const load = (name: string, duty: (number | null)[], memoryMiB: (number | null)[]) =>
  podLoadOf(podSeries(name, { duty, memoryMiB }), 0);

describe('judgePlacement', () => {
  it('gives GPUs, mean busy %, rule breaks and memory overruns over the window', () => {
    const a = load('a', [0, 80, 60, 30], [50, 50, 60, 70]);
    const b = load('b', [0, 30, 50, 20], [40, 40, 40, 40]);
    const c = load('c', [null, 5, null, null], [null, 10, null, null]);
    const judged = judgePlacement([[a, b], [c]], { start: 1, end: 4 }, 100, 1);
    expect(judged).toEqual({
      gpus: 2,
      pods: 3,
      gpuMinutes: 6,
      occupiedGpuMinutes: 4,
      // GPU 0: min(100, 110) + min(100, 110) + 50; GPU 1: 5, 0, 0.
      meanBusyPct: (100 + 100 + 50 + 5) / 6,
      overloadedGpuMinutes: 2,
      overloadedPct: 50,
      gpusBreakingRule: 1,
      gpusEverOverloaded: 1,
      memoryOverrunGpuMinutes: 1,
      gpusWithMemoryOverrun: 1,
      peakGpuMemoryMiB: 110,
    });
  });

  it('judges an empty placement as zeros', () => {
    expect(judgePlacement([], { start: 0, end: 3 }, 100, 1)).toMatchObject({
      gpus: 0,
      meanBusyPct: 0,
      overloadedPct: 0,
    });
  });
});

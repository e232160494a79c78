import { describe, expect, it } from 'vitest';
import { AllocationTrace } from './allocation-trace.js';
import type { JobOutcome } from './timeline-engine.js';
import { classStats, offeredLoadPct, statsByClass } from './timeline-stats.js';

function outcome(
  id: number,
  priority: number,
  arrival: number,
  wait: number,
  duration: number,
  gpuEquivalents = 1,
): JobOutcome {
  return {
    job: {
      id,
      name: `j${id}`,
      priority,
      arrivalSeconds: arrival,
      durationSeconds: duration,
      request: { cpuMilli: 0, hostMemoryMiB: 0, gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: 0, allowedGpuModels: [] },
    },
    gpuEquivalents,
    firstStartSeconds: arrival + wait,
    endSeconds: arrival + wait + duration,
    waitSeconds: wait,
    preemptions: 0,
    drains: 0,
    lostWorkGpuSeconds: 0,
  };
}

describe('timeline statistics', () => {
  it('summarizes waits and JCTs per class', () => {
    const outs = [outcome(0, 1000, 0, 0, 10), outcome(1, 1000, 5, 20, 10), outcome(2, 100, 6, 4, 1)];
    const { all, byClass } = statsByClass(outs);
    expect(all.jobs).toBe(3);
    expect(byClass.critical.waitSeconds).toEqual({ p50: 0, p95: 20, p99: 20 });
    expect(byClass.critical.jctSeconds).toEqual({ p50: 10, p95: 30, p99: 30 });
    expect(byClass.low.waitSeconds.p50).toBe(4);
    expect(byClass.high).toMatchObject({
      jobs: 0,
      completed: 0,
      waitSeconds: { p50: null, p95: null, p99: null },
      waitPercentileCurveSeconds: [],
    });
    expect(classStats(outs).waitPercentileCurveSeconds).toHaveLength(101);
  });

  it('computes the mean offered load over the arrival span', () => {
    // 2 GPU × 100 s + 1 GPU × 200 s = 400 GPU-s over 100 s on 8 GPUs = 50%.
    expect(offeredLoadPct([outcome(0, 500, 0, 0, 100, 2), outcome(1, 500, 100, 0, 200, 1)], 8)).toBe(50);
    expect(offeredLoadPct([outcome(0, 500, 0, 0, 100)], 8)).toBeNull();
  });
});

describe('AllocationTrace', () => {
  it('gives time-weighted means over equal intervals', () => {
    const t = new AllocationTrace();
    t.record(0, 1000);
    t.record(10, 2000);
    t.record(10, 3000); // same time: replaces
    t.record(30, 0);
    expect(t.intervalMeansPct(4000, 0, 40, 4)).toEqual([25, 75, 75, 0]);
    expect(t.intervalMeansPct(4000, 5, 25, 2)).toEqual([50, 75]);
    expect(t.meanPct(4000, 0, 40)).toBe(43.75);
    expect(t.meanPct(4000, 10, 10)).toBe(75);
    expect(() => t.record(5, 0)).toThrow(RangeError);
  });
});

import { describe, it, expect } from 'vitest';
import { DEFAULT_PRIOR_SHAPES, OnlineWorkload } from './online-workload.js';
import type { TargetWorkload, TaskShape } from '../fragmentation/target-workload.js';

const shape = (
  cpuMilli: number,
  gpuMilli: number,
  gpuCount = 1,
  allowedGpuModels: readonly string[] = [],
): TaskShape => ({ cpuMilli, gpuMilli, gpuCount, allowedGpuModels });
const keyOf = (t: TaskShape): string => `${t.cpuMilli}/${t.gpuMilli}/${t.gpuCount}/${t.allowedGpuModels.join('|')}`;
const weightOf = (workload: TargetWorkload, t: TaskShape): number =>
  workload.types.find((m) => keyOf(m) === keyOf(t))?.weight ?? 0;
const sumWeights = (workload: TargetWorkload): number => workload.types.reduce((s, t) => s + t.weight, 0);
const observeN = (learner: OnlineWorkload, n: number, t: TaskShape): void => {
  for (let i = 0; i < n; i++) learner.observe(t);
};

/** Neither in the prior nor equal to each other. */
const A = shape(3152, 810);
const B = shape(12000, 1000, 2);

describe('OnlineWorkload', () => {
  it('before any observation, M is the prior: the distinct DEFAULT_PRIOR_SHAPES, weights summing to 1', () => {
    const learner = new OnlineWorkload();
    const m = learner.workload();
    expect(learner.epoch()).toBe(0);
    expect(learner.observedCount()).toBe(0);
    const distinct = [...new Set(DEFAULT_PRIOR_SHAPES.map(keyOf))].sort();
    expect(m.types.map(keyOf).sort()).toEqual(distinct);
    expect(Math.abs(sumWeights(m) - 1)).toBeLessThan(1e-9);
    expect(Math.abs(m.weightSum - 1)).toBeLessThan(1e-9);
    // priorWeight 64 over 9 listed shapes: round(64/9) = 7 pseudo-tasks each, 63 in all; the whole
    // 1-GPU shape is listed twice, so it has 14 of 63 and each of the 7 others 7 of 63.
    expect(m.sourceTaskCount).toBe(63);
    expect(m.types[0]).toMatchObject({ cpuMilli: 8000, gpuMilli: 1000, gpuCount: 1, count: 14 });
    expect(m.types[0]!.weight).toBeCloseTo(14 / 63, 12);
    for (const t of m.types.slice(1)) expect(t.weight).toBeCloseTo(7 / 63, 12);
  });

  it('after 1000 requests of one shape the epoch has advanced and that shape has weight > 0.9', () => {
    const learner = new OnlineWorkload();
    observeN(learner, 1000, A);
    expect(learner.epoch()).toBeGreaterThan(0);
    expect(learner.observedCount()).toBe(1000);
    const m = learner.workload();
    expect(weightOf(m, A)).toBeGreaterThan(0.9);
    expect(Math.abs(sumWeights(m) - 1)).toBeLessThan(1e-9);
  });

  it("copies the observed shape (mutating the caller's object later does not change M)", () => {
    const learner = new OnlineWorkload({ refreshEvery: 1, priorShapes: [] });
    const mutable = { cpuMilli: 1000, gpuMilli: 500, gpuCount: 1, allowedGpuModels: [] as string[] };
    learner.observe(mutable);
    mutable.cpuMilli = 9999;
    learner.observe(shape(2000, 500));
    expect(learner.workload().types.map(keyOf).sort()).toEqual(['1000/500/1/', '2000/500/1/']);
  });

  describe('window eviction (windowSize 10)', () => {
    it('after 10 of shape A then 10 of shape B, A is gone from M', () => {
      const learner = new OnlineWorkload({ windowSize: 10, refreshEvery: 1 });
      observeN(learner, 10, A);
      expect(weightOf(learner.workload(), A)).toBeGreaterThan(0);
      observeN(learner, 10, B);
      expect(learner.observedCount()).toBe(10);
      const m = learner.workload();
      expect(weightOf(m, A)).toBe(0);
      // 10 of B among 10 + 63 prior pseudo-tasks; every type is kept (66 < 95% of 73 before the last).
      expect(m.sourceTaskCount).toBe(73);
      expect(weightOf(m, B)).toBeCloseTo(10 / 73, 12);
    });

    it('a shape that is also a prior shape keeps only its prior share', () => {
      const prior = DEFAULT_PRIOR_SHAPES[0]!; // the whole 1-GPU shape, listed twice in the prior (14 pseudo-tasks)
      const learner = new OnlineWorkload({ windowSize: 10, refreshEvery: 1 });
      observeN(learner, 10, prior);
      expect(weightOf(learner.workload(), prior)).toBeCloseTo(24 / 73, 12);
      observeN(learner, 10, B);
      expect(weightOf(learner.workload(), prior)).toBeCloseTo(14 / 73, 12);
    });

    it('half-way through the overwrite, the window holds 5 of each', () => {
      const learner = new OnlineWorkload({ windowSize: 10, refreshEvery: 1, priorShapes: [] });
      observeN(learner, 10, A);
      observeN(learner, 5, B);
      const m = learner.workload();
      expect(m.sourceTaskCount).toBe(10);
      expect(weightOf(m, A)).toBe(0.5);
      expect(weightOf(m, B)).toBe(0.5);
    });
  });

  describe(
    'refresh cadence: rebuild when (observations since the last rebuild) ≥ min(refreshEvery, max(16, ' +
      'min(windowSize, observations at the last rebuild)))',
    () => {
      /** Epoch after each of the first `n` observations (index i = after i + 1 observations). */
      const epochs = (learner: OnlineWorkload, n: number): number[] => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          learner.observe(A);
          out.push(learner.epoch());
        }
        return out;
      };
      /** Observation counts (1-based) at which the epoch went up. */
      const refreshPoints = (trace: readonly number[]): number[] =>
        trace.flatMap((e, i) => (e > (i === 0 ? 0 : trace[i - 1]!) ? [i + 1] : []));

      it('defaults (window 4096, refreshEvery 256): doubling intervals 16, 32, 64, 128, 256, then every 256', () => {
        const trace = epochs(new OnlineWorkload(), 1100);
        expect(refreshPoints(trace)).toEqual([16, 32, 64, 128, 256, 512, 768, 1024]);
        expect(trace[14]).toBe(0);
        expect(trace[15]).toBe(1);
        expect(trace[254]).toBe(4);
        expect(trace[255]).toBe(5);
        expect(trace[999]).toBe(7);
      });

      it('refreshEvery 64: rebuilds at 16, 32, 64, then every 64', () => {
        expect(refreshPoints(epochs(new OnlineWorkload({ refreshEvery: 64 }), 300))).toEqual([
          16, 32, 64, 128, 192, 256,
        ]);
      });

      it('refreshEvery ≤ 16: rebuilds every refreshEvery requests from the start', () => {
        expect(refreshPoints(epochs(new OnlineWorkload({ refreshEvery: 8 }), 40))).toEqual([8, 16, 24, 32, 40]);
        expect(refreshPoints(epochs(new OnlineWorkload({ refreshEvery: 1 }), 5))).toEqual([1, 2, 3, 4, 5]);
      });

      it('a window shorter than 16 caps the interval at 16: windowSize 10 rebuilds every 16 requests', () => {
        expect(refreshPoints(epochs(new OnlineWorkload({ windowSize: 10 }), 70))).toEqual([16, 32, 48, 64]);
      });

      it('M changes only when the epoch does', () => {
        const learner = new OnlineWorkload();
        const initial = learner.workload();
        observeN(learner, 15, A);
        expect(learner.workload()).toBe(initial);
        learner.observe(A);
        const first = learner.workload();
        expect(first).not.toBe(initial);
        expect(weightOf(first, A)).toBeGreaterThan(0);
        observeN(learner, 15, A); // 31 observations: still the M built at 16
        expect(learner.epoch()).toBe(1);
        expect(learner.workload()).toBe(first);
      });
    },
  );
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryFloor } from './memory-floor.js';
import { packRun } from './pack-run.js';
import { podLoadOf } from './pod-load.js';
import { windowStats } from './pod-stats.js';
import { podSeries } from './testing/genai-fixtures.js';

const GPU = { name: 'small', gpuMemoryMiB: 100 };
const WINDOWS = { fit: { start: 0, end: 6 }, judged: { start: 6, end: 12 } };

/** A sample: a value or none. */
const sample = (max: number) => fc.option(fc.integer({ min: 0, max }), { nil: null, freq: 6 });
const pod = fc.record({
  duty: fc.array(sample(100), { minLength: 12, maxLength: 12 }),
  memoryMiB: fc.array(sample(60), { minLength: 12, maxLength: 12 }),
});

describe('packRun (property)', () => {
  it('keeps the rule and the memory on the fit window, places each pod once, on no fewer GPUs than the floor', () => {
    fc.assert(
      fc.property(
        fc.array(pod, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(0, 0.05, 0.5),
        fc.constantFrom(0, 10, 50),
        (samples, headroom, maxOverloadPct) => {
          const series = samples.map((s, i) => podSeries(`p${i}`, s));
          const pods = {
            loads: series.map((s) => podLoadOf(s, 1)),
            fitStats: series.map((s) => windowStats(s, WINDOWS.fit)),
          };
          const run = packRun(pods, GPU, WINDOWS, headroom, maxOverloadPct);
          expect(run.placement.gpus.flat().sort((a, b) => a - b)).toEqual(series.map((_, i) => i));
          expect(run.onFit.gpusBreakingRule).toBe(0);
          // Each pod's fit-window memory is at most its request (its peak with the headroom, ≤ 90 MiB here).
          expect(run.onFit.memoryOverrunGpuMinutes).toBe(0);
          const peaks = pods.fitStats.map((s) => Math.ceil(s.peakMemoryMiB));
          expect(memoryFloor(peaks, GPU.gpuMemoryMiB).lowerBound).toBeLessThanOrEqual(run.placement.gpus.length);
          expect(run.onJudged.gpus).toBe(run.placement.gpus.length);
        },
      ),
      { seed: 2024, numRuns: 200 },
    );
  });
});

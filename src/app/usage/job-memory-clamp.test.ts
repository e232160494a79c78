import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { clampJobMemory } from './job-memory-clamp.js';

describe('clampJobMemory', () => {
  it('keeps values whose sum fits: 2566 + 1542 ≤ 19818', () => {
    expect(
      clampJobMemory(19818, [
        { jobId: 1, memoryUsedMiB: 2566 },
        { jobId: 2, memoryUsedMiB: 1542 },
      ]),
    ).toEqual([
      { jobId: 1, memoryUsedMiB: 2566 },
      { jobId: 2, memoryUsedMiB: 1542 },
    ]);
  });

  it('scales down in proportion and rounds down when the jobs exceed the GPU: 600 + 400 on 500 → 300 + 200', () => {
    expect(
      clampJobMemory(500, [
        { jobId: 1, memoryUsedMiB: 600 },
        { jobId: 2, memoryUsedMiB: 400 },
      ]),
    ).toEqual([
      { jobId: 1, memoryUsedMiB: 300 },
      { jobId: 2, memoryUsedMiB: 200 },
    ]);
    expect(
      clampJobMemory(10, [
        { jobId: 1, memoryUsedMiB: 7 },
        { jobId: 2, memoryUsedMiB: 7 },
      ]),
    ).toEqual([
      { jobId: 1, memoryUsedMiB: 5 },
      { jobId: 2, memoryUsedMiB: 5 },
    ]);
  });

  it('turns negative and non-finite values into 0, and a GPU value of 0, negative or NaN into a cap of 0', () => {
    expect(
      clampJobMemory(null, [
        { jobId: 1, memoryUsedMiB: -5 },
        { jobId: 2, memoryUsedMiB: Number.NaN },
        { jobId: 3, memoryUsedMiB: 12 },
      ]),
    ).toEqual([
      { jobId: 1, memoryUsedMiB: 0 },
      { jobId: 2, memoryUsedMiB: 0 },
      { jobId: 3, memoryUsedMiB: 12 },
    ]);
    expect(clampJobMemory(-1, [{ jobId: 1, memoryUsedMiB: 3 }])).toEqual([{ jobId: 1, memoryUsedMiB: 0 }]);
    expect(clampJobMemory(Number.NaN, [{ jobId: 1, memoryUsedMiB: 3 }])).toEqual([{ jobId: 1, memoryUsedMiB: 0 }]);
  });

  it('property: each value ≥ 0, never above its input, their sum ≤ the GPU value, ids and order kept', () => {
    const value = fc.oneof(fc.integer({ min: -1000, max: 200_000 }), fc.double({ min: -1e6, max: 1e6, noNaN: false }));
    fc.assert(
      fc.property(fc.option(value, { nil: null }), fc.array(value, { maxLength: 12 }), (gpu, values) => {
        const entries = values.map((v, i) => ({ jobId: i + 1, memoryUsedMiB: v }));
        const out = clampJobMemory(gpu, entries);
        expect(out.map((e) => e.jobId)).toEqual(entries.map((e) => e.jobId));
        out.forEach((e, i) => {
          expect(e.memoryUsedMiB).toBeGreaterThanOrEqual(0);
          const input = entries[i]!.memoryUsedMiB;
          expect(e.memoryUsedMiB).toBeLessThanOrEqual(Number.isFinite(input) && input > 0 ? input : 0);
        });
        if (gpu !== null)
          expect(out.reduce((s, e) => s + e.memoryUsedMiB, 0)).toBeLessThanOrEqual(
            Number.isFinite(gpu) && gpu > 0 ? gpu : 0,
          );
      }),
      { numRuns: 500 },
    );
  });
});

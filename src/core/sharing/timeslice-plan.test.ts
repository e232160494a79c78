import { describe, expect, it } from 'vitest';
import { MIN_TIMESLICE_MS, planTimeslices } from './timeslice-plan.js';

describe('planTimeslices', () => {
  it('splits the period in proportion to gpuMilli, in ascending jobId order', () => {
    expect(
      planTimeslices(
        [
          { jobId: 3, gpuMilli: 100 },
          { jobId: 1, gpuMilli: 600 },
          { jobId: 2, gpuMilli: 300 },
        ],
        1000,
      ),
    ).toEqual([
      { jobId: 1, sliceMs: 600 },
      { jobId: 2, sliceMs: 300 },
      { jobId: 3, sliceMs: 100 },
    ]);
  });

  it(
    'distributes the rounding remainder by largest fraction, ties to the lower jobId; slices sum to the ' + 'period',
    () => {
      // 1000 / 3 = 333.33 each: the one spare ms goes to job 1
      expect(
        planTimeslices(
          [
            { jobId: 9, gpuMilli: 1 },
            { jobId: 1, gpuMilli: 1 },
            { jobId: 5, gpuMilli: 1 },
          ],
          1000,
        ),
      ).toEqual([
        { jobId: 1, sliceMs: 334 },
        { jobId: 5, sliceMs: 333 },
        { jobId: 9, sliceMs: 333 },
      ]);
      // 100 × 2/7 = 28.57, 100 × 5/7 = 71.43: the spare ms goes to the larger fraction (job 1)
      expect(
        planTimeslices(
          [
            { jobId: 1, gpuMilli: 200 },
            { jobId: 2, gpuMilli: 500 },
          ],
          100,
        ),
      ).toEqual([
        { jobId: 1, sliceMs: 29 },
        { jobId: 2, sliceMs: 71 },
      ]);
    },
  );

  it('gives a tiny share the minimum slice and the others the rest in proportion', () => {
    const plan = planTimeslices(
      [
        { jobId: 1, gpuMilli: 995 },
        { jobId: 2, gpuMilli: 5 },
      ],
      1000,
    );
    expect(plan).toEqual([
      { jobId: 1, sliceMs: 990 },
      { jobId: 2, sliceMs: MIN_TIMESLICE_MS },
    ]);
  });

  it('stretches the period when it cannot give every job the minimum', () => {
    expect(
      planTimeslices(
        [
          { jobId: 1, gpuMilli: 500 },
          { jobId: 2, gpuMilli: 500 },
          { jobId: 3, gpuMilli: 1 },
        ],
        25,
      ),
    ).toEqual([
      { jobId: 1, sliceMs: 10 },
      { jobId: 2, sliceMs: 10 },
      { jobId: 3, sliceMs: 10 },
    ]);
  });

  it('plans nothing for no jobs, the whole period for one', () => {
    expect(planTimeslices([], 1000)).toEqual([]);
    expect(planTimeslices([{ jobId: 4, gpuMilli: 250 }], 1000)).toEqual([{ jobId: 4, sliceMs: 1000 }]);
  });

  it('rejects a bad period, a non-positive share and a repeated job', () => {
    expect(() => planTimeslices([], 0)).toThrow(RangeError);
    expect(() => planTimeslices([{ jobId: 1, gpuMilli: 0 }], 1000)).toThrow(
      'gpuMilli of job 1 must be a positive integer, got 0',
    );
    expect(() =>
      planTimeslices(
        [
          { jobId: 1, gpuMilli: 1 },
          { jobId: 1, gpuMilli: 2 },
        ],
        1000,
      ),
    ).toThrow('job 1 appears twice');
  });
});

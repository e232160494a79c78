import { describe, expect, it } from 'vitest';
import { mean, meanSd, median, nearestRank } from './statistics.js';

describe('statistics', () => {
  it('meanSd uses the sample standard deviation (n - 1)', () => {
    expect(meanSd([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({ mean: 5, sd: Math.sqrt(32 / 7) });
  });

  it('meanSd gives sd 0 for one value and NaN for none', () => {
    expect(meanSd([3.5])).toEqual({ mean: 3.5, sd: 0 });
    expect(meanSd([])).toEqual({ mean: NaN, sd: NaN });
  });

  it('mean and median', () => {
    expect([mean([1, 2, 6]), median([6, 1, 2]), median([4, 1, 3, 2]), mean([]), median([])]).toEqual([
      3,
      2,
      2.5,
      NaN,
      NaN,
    ]);
  });

  it('uses nearest-rank percentiles, on arrays and typed arrays', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([0, 50, 95, 99, 100].map((p) => nearestRank(sorted, p))).toEqual([1, 50, 95, 99, 100]);
    expect(nearestRank(Float64Array.from([1, 2, 3, 4]), 50)).toBe(2);
    expect(nearestRank([7], 99)).toBe(7);
    expect(nearestRank([], 50)).toBeNull();
  });
});

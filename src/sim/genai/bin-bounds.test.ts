import { describe, expect, it } from 'vitest';
import { binLowerBound, dualFeasibleBound, martelloTothBound, packDecreasing, sumBound } from './bin-bounds.js';

describe('bin-packing bounds', () => {
  it('counts the sum, the big items (L2) and the items over a third (Fekete–Schepers k = 2)', () => {
    const halves = [60, 60, 60, 30, 30, 30];
    expect(sumBound(halves, 100)).toBe(3);
    expect(martelloTothBound(halves, 100)).toBe(3);
    // Five items over a third: at most two share a bin, so three bins; the sum allows two.
    const thirds = [34, 34, 34, 34, 34];
    expect(sumBound(thirds, 100)).toBe(2);
    expect(martelloTothBound(thirds, 100)).toBe(2);
    expect(dualFeasibleBound(thirds, 100)).toBe(3);
    expect(binLowerBound(thirds, 100)).toBe(3);
    // L2: items over 100 − 30 need their own bins, and the 30s fill what those leave only in part.
    expect(martelloTothBound([71, 71, 30, 30, 30, 30], 100)).toBe(4);
  });

  it('packs first fit and best fit decreasing', () => {
    // 70, 40, 35, 20, 15, 15: first fit puts 20 with 70; best fit puts it with 40 + 35, the fuller bin.
    const sizes = [40, 15, 15, 70, 35, 20];
    expect(packDecreasing(sizes, 100, false)).toEqual([[3, 5], [0, 4, 1], [2]]);
    expect(packDecreasing(sizes, 100, true)).toEqual([
      [3, 1, 2],
      [0, 4, 5],
    ]);
    expect(() => packDecreasing([101], 100, false)).toThrow('item 0 of 101 is over the capacity 100');
  });
});

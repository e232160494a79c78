import { describe, expect, it } from 'vitest';
import { formatIdRanges } from './id-ranges.js';

describe('formatIdRanges', () => {
  it('writes runs of consecutive ids as ranges, in ascending order, each id once', () => {
    expect(formatIdRanges([])).toBe('');
    expect(formatIdRanges([7])).toBe('7');
    expect(formatIdRanges([10, 9, 1, 2, 3, 7, 3])).toBe('1-3,7,9-10');
    expect(formatIdRanges(Array.from({ length: 2000 }, (_, i) => i + 1).concat([2005]))).toBe('1-2000,2005');
  });

  it('keeps whole ranges up to the bound and says how many ids it left out', () => {
    const every2nd = Array.from({ length: 1000 }, (_, i) => 2 * i + 1);
    const text = formatIdRanges(every2nd, 20);
    expect(text).toBe('1,3,5,7,9,11,13,15,…(+992 more)');
    expect(formatIdRanges([1, 2, 3, 100], 3)).toBe('1-3,…(+1 more)');
    expect(formatIdRanges([1000, 2000], 2)).toBe('…(+2 more)');
    expect(formatIdRanges(every2nd, 1000).length).toBeLessThanOrEqual(1020);
  });
});

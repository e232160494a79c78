import { describe, expect, it } from 'vitest';
import { COMPARE_HEADER, compareRow, medianOrNull, ratioOrNull } from './before-after-rows.js';

describe('medianOrNull', () => {
  it('takes the median of the rounds that have the figure', () => {
    expect(medianOrNull([3, 1, 2])).toBe(2);
    expect(medianOrNull([4, 1, 3, 2])).toBe(2.5);
    expect(medianOrNull([5, null, 1, Number.NaN, 3])).toBe(3);
  });

  it('is null when no round has it', () => {
    expect(medianOrNull([])).toBeNull();
    expect(medianOrNull([null, null])).toBeNull();
  });
});

describe('ratioOrNull', () => {
  it('divides after by before', () => {
    expect(ratioOrNull(3, 4)).toBe(0.75);
    expect(ratioOrNull(10, 5)).toBe(2);
  });

  it('is null without both figures or with a zero before', () => {
    expect(ratioOrNull(null, 4)).toBeNull();
    expect(ratioOrNull(3, null)).toBeNull();
    expect(ratioOrNull(3, 0)).toBeNull();
  });
});

describe('compareRow', () => {
  it('writes the medians, the ratio and every round, in the header order', () => {
    expect(COMPARE_HEADER).toHaveLength(6);
    expect(compareRow('pass p99 (ms)', [2, 4, 3, 5, 1], [1.5, 1, 2, 1.25, 1.75], 2)).toEqual([
      'pass p99 (ms)',
      '3.00',
      '1.50',
      '0.500×',
      '2.00, 4.00, 3.00, 5.00, 1.00',
      '1.50, 1.00, 2.00, 1.25, 1.75',
    ]);
  });

  it('writes n/a for a build without the figure and for its ratio', () => {
    expect(compareRow('bind pods/s', [null, null], [1200.25, 1000.75], 1)).toEqual([
      'bind pods/s',
      'n/a',
      '1,100.5',
      'n/a',
      'n/a, n/a',
      '1,200.3, 1,000.8',
    ]);
  });
});

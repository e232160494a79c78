import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalRangePattern } from './decimal-range-pattern.js';

/** Whether `text` is a decimal integer from min to max without sign or leading zeros. */
const inRange = (text: string, min: number, max: number): boolean =>
  /^(?:0|[1-9][0-9]*)$/.test(text) && Number(text) >= min && Number(text) <= max;

describe('decimalRangePattern', () => {
  it.each([
    [1, 500, ['1', '9', '10', '99', '100', '499', '500'], ['0', '01', '501', '999', '1000', '-1', '+1', ' 1', '']],
    [0, 1_000_000, ['0', '7', '1000000'], ['00', '1000001', '01']],
    [
      1,
      Number.MAX_SAFE_INTEGER,
      ['1', '9007199254740991', '8999999999999999'],
      ['0', '9007199254740992', '9999999999999999'],
    ],
  ])('%i-%i matches exactly the numbers in range', (min, max, inside, outside) => {
    const pattern = new RegExp(decimalRangePattern(min, max));
    expect(inside.filter((text) => !pattern.test(text))).toEqual([]);
    expect(outside.filter((text) => pattern.test(text))).toEqual([]);
  });

  it('agrees with a numeric comparison for random ranges and values', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.oneof(fc.integer({ min: 0, max: 2_000_000 }).map(String), fc.stringMatching(/^[0-9]{1,8}$/)),
        (a, b, text) => {
          const [min, max] = a <= b ? [a, b] : [b, a];
          expect(new RegExp(decimalRangePattern(min, max)).test(text)).toBe(inRange(text, min, max));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a range that is not 0 <= min <= max', () => {
    expect(() => decimalRangePattern(5, 4)).toThrow('need integers 0 <= min <= max, got 5 and 4');
  });
});

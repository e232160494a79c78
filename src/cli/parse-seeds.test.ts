import { describe, expect, it } from 'vitest';
import { MAX_SEED, parseSeeds, SeedListError } from './parse-seeds.js';

describe('parseSeeds', () => {
  it('expands a range', () => {
    expect(parseSeeds('42-51')).toEqual([42, 43, 44, 45, 46, 47, 48, 49, 50, 51]);
  });

  it('keeps a comma list in the order written', () => {
    expect(parseSeeds('7,3,5')).toEqual([7, 3, 5]);
  });

  it('expands a mix of single seeds and ranges, ignoring spaces', () => {
    expect(parseSeeds(' 42, 45-47 ,1')).toEqual([42, 45, 46, 47, 1]);
    expect(parseSeeds('1 - 3')).toEqual([1, 2, 3]);
  });

  it('accepts a one-seed range, zero and the largest seed', () => {
    expect(parseSeeds('5-5')).toEqual([5]);
    expect(parseSeeds('0')).toEqual([0]);
    expect(parseSeeds(String(MAX_SEED))).toEqual([2147483647]);
  });

  it.each([
    ['', 'empty seed list'],
    ['  ', 'empty seed list'],
    ['1,,2', "empty item in '1,,2'"],
    ['1,', "empty item in '1,'"],
    ['abc', "'abc' is not a seed"],
    ['-3', "'-3' is not a seed"],
    ['1.5', "'1.5' is not a seed"],
    ['1-2-3', "'1-2-3' is not a seed"],
    ['5-3', "range '5-3' is reversed"],
    ['1-3,2', 'seed 2 is listed twice'],
    ['2147483648', 'seed 2147483648 is too large'],
    ['0-10000', 'more than 10000 seeds'],
  ])('rejects %j: %s', (text, detail) => {
    expect(() => parseSeeds(text)).toThrow(SeedListError);
    expect(() => parseSeeds(text)).toThrow(
      `${detail}; expected integers in 0..2147483647 as a range a-b (a <= b), a comma list, or a mix like 42,45-47`,
    );
  });
});

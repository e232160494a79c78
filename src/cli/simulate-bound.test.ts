import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseBoundLevels } from './simulate-bound.js';

describe('parseBoundLevels', () => {
  it('reads lists, ranges and stepped ranges, sorted and without duplicates', () => {
    expect(parseBoundLevels('90-130/10')).toEqual([90, 100, 110, 120, 130]);
    expect(parseBoundLevels('130, 100,100')).toEqual([100, 130]);
    expect(parseBoundLevels('98-101')).toEqual([98, 99, 100, 101]);
  });

  it('refuses what is not a level 0..130, naming the item', () => {
    expect(() => parseBoundLevels('131')).toThrow(InvalidArgumentError);
    expect(() => parseBoundLevels('131')).toThrow("'131' is out of range; expected integer levels 0..130");
    expect(() => parseBoundLevels('100-90')).toThrow("'100-90' is out of range");
    expect(() => parseBoundLevels('90-100/0')).toThrow("'90-100/0' is out of range");
    expect(() => parseBoundLevels('9.5')).toThrow("'9.5' is not a level");
    expect(() => parseBoundLevels('')).toThrow("'' is not a level");
  });
});

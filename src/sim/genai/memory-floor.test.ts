import { describe, expect, it } from 'vitest';
import { memoryFloor } from './memory-floor.js';

describe('memoryFloor', () => {
  it('is exact by the bounds when a heuristic meets them', () => {
    expect(memoryFloor([60, 40, 60, 40], 100)).toMatchObject({
      lowerBound: 2,
      upperBound: 2,
      exact: true,
      provedBy: 'bounds',
      searchSteps: 0,
    });
  });

  it('closes a gap by search: first and best fit decreasing need 3 bins, 2 hold the items', () => {
    const floor = memoryFloor([58, 47, 27, 22, 19, 18], 100);
    expect(floor).toMatchObject({ lowerBound: 2, upperBound: 2, exact: true, provedBy: 'bounds' });
    expect(floor.searchSteps).toBeGreaterThan(0);
    expect(floor.packing.map((bin) => bin.length).sort()).toEqual([3, 3]);
  });

  it('proves by search that the heuristic was best when the bounds are below it', () => {
    // The bounds say 3; first fit decreasing packs 4, and no packing has 3.
    expect(memoryFloor([67, 47, 47, 44, 36, 31, 24], 100)).toMatchObject({
      lowerBound: 4,
      upperBound: 4,
      exact: true,
      provedBy: 'search',
    });
  });

  it('says the floor is only bracketed when the search is out of steps, and cuts items to the capacity', () => {
    expect(memoryFloor([58, 47, 27, 22, 19, 18], 100, 1)).toMatchObject({
      lowerBound: 2,
      upperBound: 3,
      exact: false,
      provedBy: 'bounds',
      searchSteps: 1,
    });
    expect(memoryFloor([150, 10], 100)).toMatchObject({ upperBound: 2, exact: true });
  });
});

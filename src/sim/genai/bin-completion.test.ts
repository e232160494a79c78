import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchPacking } from './bin-completion.js';
import { memoryFloor } from './memory-floor.js';

/** The fewest bins by trying every assignment (items in order, a new bin only after the used ones). */
function bruteForceBins(sizes: readonly number[], capacity: number): number {
  let best = sizes.length;
  const loads: number[] = [];
  const place = (i: number): void => {
    if (loads.length >= best) return;
    if (i === sizes.length) {
      best = loads.length;
      return;
    }
    for (let b = 0; b <= loads.length; b++) {
      if (b === loads.length) loads.push(0);
      if (loads[b]! + sizes[i]! <= capacity) {
        loads[b]! += sizes[i]!;
        place(i + 1);
        loads[b]! -= sizes[i]!;
      }
      if (loads[b] === 0) loads.pop();
    }
  };
  place(0);
  return best;
}

/** Every item once, no bin over the capacity. */
function expectValidPacking(packing: readonly (readonly number[])[], sizes: readonly number[], capacity: number) {
  expect(packing.flat().sort((a, b) => a - b)).toEqual(sizes.map((_, i) => i));
  for (const bin of packing) expect(bin.reduce((sum, i) => sum + sizes[i]!, 0)).toBeLessThanOrEqual(capacity);
}

describe('bin completion', () => {
  // First and best fit decreasing need 3 bins of 100 (58+27, 47+22+19, 18); 58+22+19 and 47+27+18 fit 2.
  const sizes = [58, 47, 27, 22, 19, 18];

  it('finds a packing into the fewest bins, and proves that one fewer has none', () => {
    const found = searchPacking(sizes, 100, 2, 1000);
    expect(found.complete).toBe(true);
    expect(found.packing).not.toBeNull();
    expectValidPacking(found.packing!, sizes, 100);
    expect(found.packing!.length).toBe(2);
    expect(searchPacking(sizes, 100, 1, 1000)).toEqual({ packing: null, complete: true, steps: 1 });
  });

  it('stops at its step budget without an answer', () => {
    expect(searchPacking(sizes, 100, 2, 3)).toEqual({ packing: null, complete: false, steps: 3 });
  });

  it('gives the fewest bins of every small instance (against trying every assignment)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 9 }), (items) => {
        const floor = memoryFloor(items, 100);
        expect(floor.exact).toBe(true);
        expect(floor.upperBound).toBe(bruteForceBins(items, 100));
        expectValidPacking(floor.packing, items, 100);
      }),
      { seed: 24, numRuns: 300 },
    );
  });
});

/**
 * The memory floor: the fewest GPUs that hold every pod's peak memory (of the judged half), as
 * bin packing of the peaks into GPUs of the model's memory. The lower bounds (bin-bounds.ts) and
 * the better of first- and best-fit decreasing bracket it; bin completion (bin-completion.ts)
 * then closes the gap by trying one bin fewer than the best packing known, until it finds none or
 * its step budget is spent. The answer says which: exact, or a range.
 */
import { binLowerBound, packDecreasing, type Packing } from './bin-bounds.js';
import { searchPacking } from './bin-completion.js';

/**
 * Steps the exact search may take in all, by default: about 2 s on one core. On the GenAI pods it
 * proves the A100-80GB floor in 1.1 million; the H200-141GB gap stays open far beyond it.
 */
export const DEFAULT_FLOOR_STEPS = 5_000_000;

/** The floor, exact or bracketed. */
export interface MemoryFloor {
  /** No packing has fewer GPUs (proved by the lower bounds or by a complete search). */
  readonly lowerBound: number;
  /** GPUs of the best packing found. */
  readonly upperBound: number;
  /** True when the two meet: the floor is `upperBound`. */
  readonly exact: boolean;
  /** How the lower bound was proved: `bounds` (Martello–Toth, Fekete–Schepers) or `search` (bin completion). */
  readonly provedBy: 'bounds' | 'search';
  /** Steps the exact search took. */
  readonly searchSteps: number;
  /** The best packing found (indices into the sizes). */
  readonly packing: Packing;
}

/**
 * The fewest bins of `capacity` that hold `sizes` (integers; a size over the capacity is cut to it:
 * such an item fills a bin alone), searched with at most `maxSteps` steps.
 */
export function memoryFloor(sizes: readonly number[], capacity: number, maxSteps = DEFAULT_FLOOR_STEPS): MemoryFloor {
  const items = sizes.map((s) => Math.min(s, capacity));
  let lowerBound = binLowerBound(items, capacity);
  const ffd = packDecreasing(items, capacity, false);
  const bfd = packDecreasing(items, capacity, true);
  let packing = bfd.length < ffd.length ? bfd : ffd;
  let provedBy: MemoryFloor['provedBy'] = 'bounds';
  let steps = 0;
  while (packing.length > lowerBound && steps < maxSteps) {
    const search = searchPacking(items, capacity, packing.length - 1, maxSteps - steps);
    steps += search.steps;
    if (search.packing !== null) packing = search.packing;
    else if (search.complete) [lowerBound, provedBy] = [packing.length, 'search'];
    else break;
  }
  return {
    lowerBound,
    upperBound: packing.length,
    exact: lowerBound === packing.length,
    provedBy,
    searchSteps: steps,
    packing,
  };
}

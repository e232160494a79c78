/**
 * Exact bin packing by bin completion (R. E. Korf, "A new algorithm for optimal bin packing",
 * AAAI 2002; "An improved algorithm for optimal bin packing", IJCAI 2003): does a packing into a
 * given number of bins exist? Bins are filled one at a time, each around the largest item left,
 * with every undominated completion of it tried, fullest first; the space left empty over all bins
 * may not exceed bins × capacity − Σ sizes, and the items left must not need more bins than are
 * left by the lower bounds of bin-bounds.ts.
 *
 * A completion B of the bin of x is dominated (and not tried) when an item left out fits into the
 * bin's free space, or when a non-empty part T of B could be swapped for one item z left out with
 * Σ T ≤ z that still fits (z > Σ T, or T of two items or more): swapping T and z between the bins
 * of a packing keeps both bins within capacity, so some best packing uses an undominated completion.
 *
 * The items left after some bins determine the rest of the search, whatever bins came before: a
 * set of items left that could not be packed into b bins is remembered and not searched again with
 * b bins or fewer.
 *
 * The search is bounded by a number of steps (each bin tried and each step of a completion's
 * enumeration); the answer says whether it ran to its end.
 */
import { binLowerBound, type Packing } from './bin-bounds.js';

/** The outcome of a search. */
export interface CompletionSearch {
  /** A packing into at most the bins asked for, or null when none was found. */
  readonly packing: Packing | null;
  /** True when the search ran to its end: a null packing then proves that none exists. */
  readonly complete: boolean;
  /** Steps taken. */
  readonly steps: number;
}

/** Thrown inside the search when its step budget is spent. */
class OutOfSteps extends Error {}

/** The item sizes as distinct values (descending) with counts and the items of each. */
interface Multiset {
  readonly values: readonly number[];
  readonly counts: Int32Array;
  readonly items: readonly (readonly number[])[];
}

function multisetOf(sizes: readonly number[]): Multiset {
  const byValue = new Map<number, number[]>();
  sizes.forEach((s, i) => byValue.set(s, [...(byValue.get(s) ?? []), i]));
  const values = [...byValue.keys()].sort((a, b) => b - a);
  const items = values.map((v) => byValue.get(v)!);
  return { values, counts: Int32Array.from(items, (list) => list.length), items };
}

/**
 * Searches for a packing of `sizes` into `bins` bins of `capacity` (sizes and capacity in one
 * unit; every size ≤ capacity), taking at most `maxSteps` steps.
 */
export function searchPacking(
  sizes: readonly number[],
  capacity: number,
  bins: number,
  maxSteps: number,
): CompletionSearch {
  const set = multisetOf(sizes);
  const { values, counts } = set;
  const n = values.length;
  const total = sizes.reduce((a, b) => a + b, 0);
  const budget = bins * capacity - total;
  const chosen: Int32Array[] = []; // per bin: the count of each value it holds
  let steps = 0;
  const step = (): void => {
    if (steps === maxSteps) throw new OutOfSteps();
    steps++;
  };

  /** The first value index ≥ `from` of at most `free` with items left (binary search, values descending), or n. */
  const firstFitting = (from: number, free: number): number => {
    let [lo, hi] = [from, n];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid]! <= free) hi = mid;
      else lo = mid + 1;
    }
    while (lo < n && counts[lo] === 0) lo++;
    return lo;
  };

  /** The smallest value index ≥ 0 with items left beyond `used`, or -1. */
  const smallestLeft = (used: Int32Array): number => {
    for (let j = n - 1; j >= 0; j--) if (counts[j]! - used[j]! > 0) return j;
    return -1;
  };

  /** Whether a part of the completion `used` can be swapped for one left-out item that still fits. */
  const dominated = (used: Int32Array, free: number): boolean => {
    const parts: number[] = [];
    for (let j = 0; j < n; j++) for (let c = 0; c < used[j]!; c++) parts.push(values[j]!);
    for (let mask = 1; mask < 1 << parts.length; mask++) {
      let sum = 0;
      let size = 0;
      for (let b = 0; b < parts.length; b++) if (mask & (1 << b)) [sum, size] = [sum + parts[b]!, size + 1];
      // A left-out z with sum ≤ z ≤ sum + free (z > sum for a single item): values are descending.
      for (let j = n - 1; j >= 0 && values[j]! <= sum + free; j--) {
        const z = values[j]!;
        if (z < sum || (z === sum && size === 1)) continue;
        if (counts[j]! - used[j]! > 0) return true;
      }
    }
    return false;
  };

  /** The undominated completions of a bin with `gap` free that leave at most `maxWaste` empty, fullest first. */
  const completions = (gap: number, maxWaste: number): Int32Array[] => {
    const suffix = new Float64Array(n + 1);
    for (let j = n - 1; j >= 0; j--) suffix[j] = suffix[j + 1]! + counts[j]! * values[j]!;
    const found: { used: Int32Array; sum: number }[] = [];
    const used = new Int32Array(n);
    const visit = (from: number, free: number, sum: number): void => {
      step();
      if (gap - sum - Math.min(free, suffix[from]!) > maxWaste) return;
      const j = firstFitting(from, free);
      if (j === n) {
        const left = smallestLeft(used);
        if (left >= 0 && values[left]! <= free) return; // not maximal: an item left out fits
        if (!dominated(used, free)) found.push({ used: used.slice(), sum });
        return;
      }
      const v = values[j]!;
      for (let c = Math.min(counts[j]!, Math.floor(free / v)); c >= 0; c--) {
        used[j] = c;
        visit(j + 1, free - c * v, sum + c * v);
      }
      used[j] = 0;
    };
    visit(0, gap, 0);
    return found.sort((a, b) => b.sum - a.sum).map((f) => f.used);
  };

  /** Items left (counts per value) that were found not to fit the bins left, with the most bins left tried. */
  const failed = new Map<string, number>();
  const fill = (binsLeft: number, waste: number): boolean => {
    step();
    let x = 0;
    while (x < n && counts[x] === 0) x++;
    if (x === n) return true;
    const left: number[] = [];
    for (let j = x; j < n; j++) for (let c = 0; c < counts[j]!; c++) left.push(values[j]!);
    if (binLowerBound(left, capacity) > binsLeft) return false;
    const key = counts.join(',');
    if ((failed.get(key) ?? -1) >= binsLeft) return false;
    counts[x]!--;
    for (const used of completions(capacity - values[x]!, budget - waste)) {
      let sum = values[x]!;
      for (let j = 0; j < n; j++) [sum, counts[j]] = [sum + used[j]! * values[j]!, counts[j]! - used[j]!];
      used[x]!++; // the bin holds x too
      chosen.push(used);
      if (fill(binsLeft - 1, waste + capacity - sum)) return true;
      chosen.pop();
      used[x]!--;
      for (let j = 0; j < n; j++) counts[j] = counts[j]! + used[j]!;
    }
    counts[x]!++;
    failed.set(key, binsLeft);
    return false;
  };

  try {
    if (!fill(bins, 0)) return { packing: null, complete: true, steps };
  } catch (err) {
    if (err instanceof OutOfSteps) return { packing: null, complete: false, steps };
    throw err;
  }
  const next = new Int32Array(n); // items of each value handed out so far
  const packing = chosen.map((used) => {
    const bin: number[] = [];
    for (let j = 0; j < n; j++) for (let c = 0; c < used[j]!; c++) bin.push(set.items[j]![next[j]!++]!);
    return bin;
  });
  return { packing, complete: true, steps };
}

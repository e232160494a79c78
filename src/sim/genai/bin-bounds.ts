/**
 * Bin packing's bounds (items and bins in MiB here: pods' peak memory into GPUs): lower bounds on
 * the fewest bins, and the first-fit and best-fit decreasing packings as upper bounds.
 *
 * Sources: S. Martello and P. Toth, "Lower bounds and reduction procedures for the bin packing
 * problem", Discrete Applied Mathematics 28 (1990) — the bound L2; S. P. Fekete and J. Schepers,
 * "New classes of fast lower bounds for bin packing problems", Mathematical Programming 91 (2001)
 * — the dual feasible functions u^(k).
 */

/** ⌈Σ sizes / capacity⌉ (Martello and Toth's L1). */
export function sumBound(sizes: readonly number[], capacity: number): number {
  let sum = 0;
  for (const s of sizes) sum += s;
  return Math.ceil(sum / capacity);
}

/**
 * Martello and Toth's L2: for each threshold k ≤ capacity / 2 (0 and every item size up to it),
 * the items over capacity − k each need a bin, so do those over capacity / 2, and the items of
 * [k, capacity / 2] need whatever the latter bins leave over.
 */
export function martelloTothBound(sizes: readonly number[], capacity: number): number {
  const half = capacity / 2;
  let best = 0;
  for (const k of new Set([0, ...sizes.filter((s) => s <= half)])) {
    let big = 0;
    let middle = 0;
    let middleSum = 0;
    let smallSum = 0;
    for (const s of sizes) {
      if (s > capacity - k) big++;
      else if (s > half) [middle, middleSum] = [middle + 1, middleSum + s];
      else if (s >= k) smallSum += s;
    }
    const left = middle * capacity - middleSum;
    best = Math.max(best, big + middle + Math.max(0, Math.ceil((smallSum - left) / capacity)));
  }
  return best;
}

/**
 * Fekete and Schepers's bounds for k = 1..`maxK`: ⌈Σ u^(k)(size) / capacity⌉ with u^(k)(x) = x when
 * (k + 1)·x / capacity is whole, else ⌊(k + 1)·x / capacity⌋ · capacity / k. (k = 1 counts the items
 * over half a bin, k = 2 halves those over a third, …)
 */
export function dualFeasibleBound(sizes: readonly number[], capacity: number, maxK = 20): number {
  let best = 0;
  for (let k = 1; k <= maxK; k++) {
    let units = 0; // Σ u^(k)(x) in units of capacity / k
    for (const x of sizes) {
      const scaled = (k + 1) * x;
      units += scaled % capacity === 0 ? (x * k) / capacity : Math.floor(scaled / capacity);
    }
    best = Math.max(best, Math.ceil(units / k - 1e-9));
  }
  return best;
}

/** The best of the lower bounds above. */
export function binLowerBound(sizes: readonly number[], capacity: number): number {
  return Math.max(sumBound(sizes, capacity), martelloTothBound(sizes, capacity), dualFeasibleBound(sizes, capacity));
}

/** A packing: the indices of the items in each bin. */
export type Packing = readonly (readonly number[])[];

/**
 * First fit decreasing (`best` false: the first bin with room) or best fit decreasing (`best`:
 * the fullest bin with room), items by decreasing size, ties by index.
 * @throws RangeError for an item over the capacity
 */
export function packDecreasing(sizes: readonly number[], capacity: number, best: boolean): Packing {
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const loads: number[] = [];
  const bins: number[][] = [];
  for (const i of order) {
    const s = sizes[i]!;
    if (s > capacity) throw new RangeError(`item ${i} of ${s} is over the capacity ${capacity}`);
    let chosen = -1;
    for (let b = 0; b < loads.length; b++) {
      if (loads[b]! + s > capacity) continue;
      if (chosen < 0 || (best && loads[b]! > loads[chosen]!)) chosen = b;
      if (!best) break;
    }
    if (chosen < 0) {
      loads.push(0);
      bins.push([]);
      chosen = loads.length - 1;
    }
    loads[chosen] = loads[chosen]! + s;
    bins[chosen]!.push(i);
  }
  return bins;
}

/**
 * Largest-remainder apportionment: splitting a whole number of units (milliseconds of a time-slice
 * period, milli-GPU of a MIG GPU) among shares in proportion to their weights, in whole units
 * that add up exactly.
 */

/**
 * Splits `total` into integers proportional to `weights` that sum exactly to `total`: floors
 * first, then one unit each to the largest fractional parts, ties to the earlier entry. All
 * weights 0: the first share gets `total`, the others 0. No weights: [].
 * @param total a non-negative integer
 * @param weights non-negative weights
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  let sum = 0;
  for (const w of weights) sum += w;
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = weights.map((w) => (w * total) / sum);
  const shares = exact.map(Math.floor);
  let left = total;
  for (const share of shares) left -= share;
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    shares[i]!++;
    left--;
  }
  return shares;
}

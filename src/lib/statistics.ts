/**
 * The summary statistics gpushare reports: mean, median, sample standard deviation and
 * nearest-rank percentiles. Pure functions of a list of numbers.
 */

/** Arithmetic mean; NaN for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Median (mean of the two middle values for an even count); NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A mean with its sample standard deviation. */
export interface MeanSd {
  readonly mean: number;
  readonly sd: number;
}

/**
 * Mean and sample standard deviation (divisor n − 1) of `values`; sd is 0 for a single value.
 * An empty list gives NaN for both. A NaN value makes both NaN.
 */
export function meanSd(values: readonly number[]): MeanSd {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, sd: Number.NaN };
  const m = mean(values);
  if (n === 1) return { mean: m, sd: Number.isNaN(m) ? Number.NaN : 0 };
  let squares = 0;
  for (const v of values) squares += (v - m) ** 2;
  return { mean: m, sd: Math.sqrt(squares / (n - 1)) };
}

/**
 * Nearest-rank percentile: the value at rank ⌈p/100 × n⌉ (1-based; rank 1 for p = 0) of the
 * ascending `sorted` sample.
 * @param sorted ascending values (an array or a typed array)
 * @param p percentile in [0, 100]
 * @returns the value, or null for an empty sample
 */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Small text helpers for the benchmark's console output. */

/** A number with `digits` decimals and thousands separators, e.g. 12,345.6. */
export function num(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio as `1.23×`. */
export function times(value: number, digits = 2): string {
  return `${num(value, digits)}×`;
}

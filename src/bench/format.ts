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

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Arithmetic mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/**
 * An aligned plain-text table: first row is the header, a dashed rule follows it. `right[i]`
 * right-aligns column i (numbers). No trailing spaces; no trailing newline.
 */
export function table(rows: readonly (readonly string[])[], right: readonly boolean[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => { widths[i] = Math.max(widths[i] ?? 0, cell.length); });
  const line = (row: readonly string[]): string =>
    row.map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const [header, ...body] = rows;
  return [header ? line(header) : '', rule, ...body.map(line)].join('\n');
}

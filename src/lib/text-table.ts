/**
 * Aligned plain-text tables, the one table format of the CLI, the simulator's console reports and
 * the benchmark: columns separated by two spaces, each as wide as its widest cell (header
 * included), trailing spaces trimmed, no final newline.
 */

/** How {@link formatTable} lays a table out. */
export interface TableLayout {
  /** `right[i]` right-aligns column i (numbers); other columns are left-aligned. */
  readonly right?: readonly boolean[];
  /** A dashed rule under the header (default true). */
  readonly rule?: boolean;
}

/**
 * Formats `rows`, the first of which is the header. A row shorter than the header gets empty
 * cells; cells beyond the header's columns are dropped.
 * @returns the lines joined by `\n` ('' for no rows)
 */
export function formatTable(rows: readonly (readonly string[])[], layout: TableLayout = {}): string {
  const [header, ...body] = rows;
  if (header === undefined) return '';
  const right = layout.right ?? [];
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    widths
      .map((width, i) => (right[i] ? (cells[i] ?? '').padStart(width) : (cells[i] ?? '').padEnd(width)))
      .join('  ')
      .trimEnd();
  const lines = [line(header)];
  if (layout.rule ?? true) lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  return [...lines, ...body.map(line)].join('\n');
}

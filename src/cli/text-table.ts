/**
 * Plain-text tables for the client commands: left-aligned columns separated by two spaces.
 */

/**
 * Formats rows under a header, each column as wide as its widest cell; trailing spaces are trimmed.
 * @param header - Column titles.
 * @param rows - Cells per row (as many as the header).
 * @returns The lines, header first, without a final newline.
 */
export function formatTextTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * A usage bar: `[#####.....]` with `width` cells, `used` of `total` filled (clamped to 0..total).
 */
export function formatBar(used: number, total: number, width = 20): string {
  const share = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

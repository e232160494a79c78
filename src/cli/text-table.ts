/**
 * Plain-text tables for the client commands: src/lib/text-table.ts laid out the CLI's way
 * (left-aligned columns, no rule under the header), and usage bars.
 */
import { formatTable } from '../lib/text-table.js';

/**
 * Formats rows under a header, each column as wide as its widest cell; trailing spaces are trimmed.
 * @param header - Column titles.
 * @param rows - Cells per row (as many as the header).
 * @returns The lines, header first, without a final newline.
 */
export function formatTextTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return formatTable([header, ...rows], { rule: false });
}

/**
 * A usage bar: `[#####.....]` with `width` cells, `used` of `total` filled (clamped to 0..total).
 */
export function formatBar(used: number, total: number, width = 20): string {
  const share = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

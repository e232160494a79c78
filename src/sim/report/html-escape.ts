/**
 * Escaping and number formatting shared by the simulator's reports (HTML, SVG charts, console).
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for safe insertion into HTML/SVG element content or a quoted attribute value.
 *
 * @param text - Raw text (any characters).
 * @returns The text with `& < > " '` replaced by character references.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/**
 * Formats a number with a fixed number of decimals; `-0.00` becomes `0.00` and
 * non-finite values become `n/a`.
 *
 * @param value - The number to format.
 * @param decimals - Digits after the decimal point (default 2).
 * @returns The formatted number.
 */
export function formatFixed(value: number, decimals = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  const text = value.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** `mean ± sd`, both with `decimals` digits (default 2). */
export function formatMeanSd(v: { readonly mean: number; readonly sd: number }, decimals = 2): string {
  return `${formatFixed(v.mean, decimals)} ± ${formatFixed(v.sd, decimals)}`;
}

/**
 * Formats a list of seeds compactly as sorted, comma-separated ranges, e.g. `42-51` or `1,3,5-7`.
 *
 * @param seeds - Seed values (any order, duplicates ignored).
 * @returns The compact form; `—` when the list is empty.
 */
export function formatSeeds(seeds: readonly number[]): string {
  const sorted = [...new Set(seeds)].sort((a, b) => a - b);
  if (sorted.length === 0) return '—';
  const parts: string[] = [];
  let start = sorted[0] as number;
  let prev = start;
  for (const seed of sorted.slice(1)) {
    if (Number.isInteger(seed) && seed === prev + 1) {
      prev = seed;
      continue;
    }
    parts.push(start === prev ? String(start) : `${start}-${prev}`);
    start = seed;
    prev = seed;
  }
  parts.push(start === prev ? String(start) : `${start}-${prev}`);
  return parts.join(',');
}

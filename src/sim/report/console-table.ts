/**
 * Plain-text rendering of simulation results for the terminal: an aligned summary table and a
 * progress bar line.
 */
import type { PolicySummary } from '../simulation-types.js';
import { formatTable } from '../../lib/text-table.js';
import { formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';

const HEADERS = ['policy', 'seeds', 'unalloc@100', 'unalloc@130', 'published@100', 'failed pods'] as const;
/** Whether each column is right-aligned (numbers) rather than left-aligned (text). */
const RIGHT = [false, false, true, true, true, true] as const;

/**
 * Formats policy summaries as a plain-text table aligned with spaces: columns `policy`,
 * `seeds` (compact ranges such as `42-51`), `unalloc@100` and `unalloc@130` (unallocated GPU %
 * as `mean ± sd`), `published@100` (the FGD authors' figure as `mean ± sd`, or `—`) and
 * `failed pods` (mean). Numbers have 2 decimals. Lines are joined with `\n`, carry no trailing
 * spaces, and the result has no trailing newline. A dashed rule separates header and rows.
 *
 * @param summary - One entry per policy, in display order.
 * @returns The table text.
 */
export function formatSummaryTable(summary: readonly PolicySummary[]): string {
  const rows: string[][] = [
    [...HEADERS],
    ...summary.map((p) => [
      p.policy,
      formatSeeds(p.seeds),
      formatMeanSd(p.unallocatedPctAt100),
      formatMeanSd(p.unallocatedPctAt130),
      p.published ? formatMeanSd(p.published.unallocatedPctAt100) : '—',
      formatFixed(p.failedPods.mean),
    ]),
  ];
  return formatTable(rows, { right: RIGHT });
}

/**
 * Formats a one-line progress bar, e.g. `[#####-----]  50%  5/10 label`. Pure: the caller writes
 * it (typically prefixed with `\r`). `done` is clamped to `0..total`; the percentage is rounded
 * down so 100% means finished; `total <= 0` counts as finished. An empty label leaves no
 * trailing space.
 *
 * @param done - Units completed.
 * @param total - Units in all.
 * @param width - Number of characters inside the brackets (negative counts as 0).
 * @param label - Text after the counts.
 * @returns The progress line, without `\r` or newline.
 */
export function formatProgressBar(done: number, total: number, width: number, label: string): string {
  const safeTotal = Number.isFinite(total) ? Math.max(0, Math.floor(total)) : 0;
  const safeDone = Math.min(safeTotal, Math.max(0, Number.isFinite(done) ? Math.floor(done) : 0));
  const cells = Number.isFinite(width) ? Math.max(0, Math.floor(width)) : 0;
  // Integer arithmetic, so e.g. 29/100 gives 29% (not 28.999…).
  const filled = safeTotal === 0 ? cells : Math.floor((safeDone * cells) / safeTotal);
  const pct = safeTotal === 0 ? 100 : Math.floor((safeDone * 100) / safeTotal);
  const bar = '#'.repeat(filled) + '-'.repeat(cells - filled);
  const head = `[${bar}] ${String(pct).padStart(3)}%  ${safeDone}/${safeTotal}`;
  return label === '' ? head : `${head} ${label}`;
}

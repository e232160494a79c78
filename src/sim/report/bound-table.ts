/**
 * The packing bound beside each policy, as a plain-text table and as HTML rows: per arrival level,
 * the mean unallocated GPU % and its gap to the bound (docs/packing-bound.md).
 */
import { policyBoundGaps } from '../bound/bound-report.js';
import type { SimulationReport } from '../simulation-types.js';
import { formatTable } from '../../lib/text-table.js';

/** A number with 2 decimals, or `n/a`. */
function fixed(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(2);
}

/** A gap with its sign, e.g. `+1.28`, or `n/a`. */
function signed(value: number | null): string {
  return value === null ? 'n/a' : `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(2)}`;
}

/**
 * Rows of the bound table: a header (`policy`, then `U@x (gap)` per level), a `bound` row with the
 * mean bound, and one row per policy with its mean unallocated GPU % and, in parentheses, its
 * mean gap to the bound over the seeds. Empty when the report has no bound.
 */
export function boundTableRows(report: SimulationReport): string[][] {
  const bound = report.bound;
  if (!bound) return [];
  return [
    ['policy', ...bound.levelsPct.map((x) => `U@${x} (gap)`)],
    ['bound', ...bound.meanUnallocatedPctBound.map(fixed)],
    ...policyBoundGaps(report.runs, bound).map((p) => [
      p.policy,
      ...p.unallocatedPct.map((u, l) => `${fixed(u)} (${signed(p.gapPct[l]!)})`),
    ]),
  ];
}

/**
 * The bound table as aligned plain text (no trailing newline), or '' without a bound. Values are
 * unallocated GPU % (mean over seeds) and gaps in percentage points.
 */
export function formatBoundTable(report: SimulationReport): string {
  const rows = boundTableRows(report);
  if (rows.length === 0) return '';
  return formatTable(rows, { right: rows[0]!.map((_, i) => i > 0) });
}

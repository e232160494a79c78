/**
 * Plain-text table of a hybrid-sharing grid (`gpushare simulate --sharing`): one row per sharing
 * setting, means (± SD) over seeds.
 */
import type { HybridSummary } from '../hybrid/hybrid-types.js';
import type { MeanSd } from '../simulation-types.js';
import { formatFixed, formatSeeds } from './html-escape.js';

const HEADERS = [
  'sharing', 'seeds', 'unalloc@100', 'unalloc@130', 'unrequested@100', 'failed pods',
  'HW-isolated %', 'strict isolated %', 'strict MIG/whole/shared/failed', 'GI creations', 'MIG switches', 'reconfig.',
] as const;
const RIGHT = [false, false, true, true, true, true, true, true, true, true, true, true] as const;

function pm(v: MeanSd): string {
  return `${formatFixed(v.mean)} ± ${formatFixed(v.sd)}`;
}

/** A mean count with no decimals. */
function count(v: MeanSd): string {
  return formatFixed(v.mean, 0);
}

/**
 * Formats the summaries as an aligned table (lines joined with `\n`, no trailing newline):
 * unallocated GPU % at 100% and 130% arrived (reserved capacity, MIG instances by compute slices),
 * unrequested GPU % at 100% (by the placed pods' requests), failed pods, % of placed GPU pods with
 * hardware isolation (MIG), % of placed strict pods with a MIG instance or whole GPUs, strict pods
 * by outcome, GPU-instance creations, MIG mode switches and their sum.
 */
export function formatHybridTable(summary: readonly HybridSummary[]): string {
  const rows: string[][] = [
    [...HEADERS],
    ...summary.map((s) => [
      s.sharing,
      formatSeeds(s.seeds),
      pm(s.unallocatedPctAt100),
      pm(s.unallocatedPctAt130),
      pm(s.unrequestedPctAt100),
      count(s.failedPods),
      formatFixed(s.hardwareIsolatedPct.mean, 1),
      formatFixed(s.strictIsolatedPct.mean, 1),
      [s.strictMig, s.strictExclusive, s.strictShared, s.strictFailed].map(count).join('/'),
      count(s.giCreations),
      count(s.migModeSwitches),
      count(s.reconfigurations),
    ]),
  ];
  const widths = HEADERS.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string => cells
    .map((cell, c) => (RIGHT[c] ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
    .join('  ')
    .trimEnd();
  const [header, ...body] = rows;
  return [line(header ?? []), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

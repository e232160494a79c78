/**
 * Plain-text table of a hybrid-sharing grid (`gpushare simulate --sharing`): one row per sharing
 * setting, means (± SD) over seeds.
 */
import type { HybridSummary } from '../hybrid/hybrid-types.js';
import type { MeanSd } from '../simulation-types.js';
import { formatTable } from '../../lib/text-table.js';
import { formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';

const HEADERS = [
  'sharing',
  'seeds',
  'unalloc@100',
  'unalloc@130',
  'unrequested@100',
  'failed pods',
  'GPU pods placed %',
  'MPS GPUs',
  'HW-isolated %',
  'strict isolated %',
  'strict MIG/whole/shared/failed',
  'GI creations',
  'MIG switches',
  'reconfig.',
] as const;
const RIGHT = [false, false, true, true, true, true, true, true, true, true, true, true, true, true] as const;

/** A mean count with no decimals. */
function count(v: MeanSd): string {
  return formatFixed(v.mean, 0);
}

/**
 * Formats the summaries as an aligned table (lines joined with `\n`, no trailing newline):
 * unallocated GPU % at 100% and 130% arrived (reserved capacity, MIG instances by compute slices),
 * unrequested GPU % at 100% (by the placed pods' requests), failed pods, % of the GPU pods placed,
 * GPUs running MPS pods at the end, % of placed GPU pods with
 * hardware isolation (MIG), % of placed strict pods with a MIG instance or whole GPUs, strict pods
 * by outcome, GPU-instance creations, MIG mode switches and their sum.
 */
export function formatHybridTable(summary: readonly HybridSummary[]): string {
  const rows: string[][] = [
    [...HEADERS],
    ...summary.map((s) => [
      s.sharing,
      formatSeeds(s.seeds),
      formatMeanSd(s.unallocatedPctAt100),
      formatMeanSd(s.unallocatedPctAt130),
      formatMeanSd(s.unrequestedPctAt100),
      count(s.failedPods),
      formatMeanSd(s.placedGpuPodsPct),
      count(s.mpsGpus),
      formatFixed(s.hardwareIsolatedPct.mean, 1),
      formatFixed(s.strictIsolatedPct.mean, 1),
      [s.strictMig, s.strictExclusive, s.strictShared, s.strictFailed].map(count).join('/'),
      count(s.giCreations),
      count(s.migModeSwitches),
      count(s.reconfigurations),
    ]),
  ];
  return formatTable(rows, { right: RIGHT });
}

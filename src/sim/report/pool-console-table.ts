/**
 * Plain-text tables of the pool report (`gpushare simulate --replay timeline --pool-report`): one
 * line per scenario with what its pool paid and how long jobs waited (means over seeds), the
 * per-class p95 waits, the ceiling of what sharing saves, the two goals, and the autoscaler's calls.
 */
import { formatTable } from '../../lib/text-table.js';
import type { MeanSd } from '../simulation-types.js';
import { CLASS_ORDER } from '../timeline/timeline-types.js';
import {
  GPU_HOURS_USE_COLUMNS,
  meanGpuHoursUse,
  SCENARIO_LABELS,
  type PoolGoal,
  type PoolReport,
} from '../pool/pool-types.js';
import { formatFixed, formatSeeds } from './html-escape.js';

function whole(v: MeanSd | null): string {
  return v === null ? '—' : formatFixed(v.mean, 0);
}

function pct(fraction: number): string {
  return `${formatFixed(100 * fraction, 1)}%`;
}

/** A goal as one line: measured against required, met or not. */
function goalLine(goal: PoolGoal): string {
  const result = goal.met ? 'MET    ' : 'NOT MET';
  return (
    `${result}  ${goal.description}: measured ${pct(goal.saving)}, required ${pct(goal.required)}` +
    (goal.bound === undefined ? '' : `, packing bound ${pct(goal.bound)}`)
  );
}

const HEADER = [
  'scenario',
  'pool GPUs',
  'GPU-hours',
  'cost USD',
  'alloc %',
  'requested %',
  'p95 wait s',
  'within ±tol',
  ...CLASS_ORDER.map((c) => `p95 ${c} s`),
  'p50 wait s',
  'drains',
];

/**
 * Formats the report: the scenario table (means over seeds; pool GPUs = the fixed size, or the
 * autoscaled peak), a per-seed table, the ceiling and the goals, and the autoscaler's calls.
 * No trailing newline.
 */
export function formatPoolTables(report: PoolReport): string {
  const rows = report.summary.map((s) => [
    SCENARIO_LABELS[s.scenario],
    s.scenario === 'fixed-whole'
      ? String(report.settings.fixedPool.gpus ?? '—')
      : `peak ${formatFixed(s.peakGpus.mean, 0)}`,
    formatFixed(s.gpuHours.mean, 0),
    formatFixed(s.cost.mean, 0),
    formatFixed(s.allocatedPct.mean, 1),
    formatFixed(s.requestedPct.mean, 1),
    formatFixed(s.waitP95Seconds.mean, 0),
    s.withinTarget ? 'yes' : 'no',
    ...CLASS_ORDER.map((c) => whole(s.waitP95ByClass[c])),
    formatFixed(s.waitP50Seconds.mean, 0),
    formatFixed(s.drains.mean, 0),
  ]);
  const seedRows = report.runs.map((r) => [
    r.scenario,
    String(r.seed),
    formatFixed(r.gpuHours, 0),
    formatFixed(r.cost, 0),
    r.all.waitSeconds.p95 === null ? '—' : formatFixed(r.all.waitSeconds.p95, 0),
    String(r.jobs),
    r.autoscale === null ? '—' : String(r.autoscale.calls),
    r.autoscale === null ? '—' : formatFixed(r.autoscale.wallSeconds, 1),
    r.autoscale === null ? '—' : formatFixed(r.autoscale.maxWallSeconds * 1000, 1),
    formatFixed(r.wallSeconds, 1),
  ]);
  const { ceiling, settings } = report;
  return [
    `p95-wait target ${formatFixed(settings.waitTargetSeconds, 0)} s ± ${formatFixed(100 * settings.tolerance, 0)}%, ` +
      `seeds ${formatSeeds(settings.seeds)} (means over seeds)`,
    formatTable([HEADER, ...rows], { right: HEADER.map((_, i) => i > 0 && i !== 7) }),
    '',
    `sharing ceiling: 1 − ${formatFixed(ceiling.fractionalGpuHours, 0)} GPU-h asked ÷ ` +
      `${formatFixed(ceiling.wholeGpuHours, 0)} GPU-h rounded up to whole GPUs = ${pct(ceiling.ceiling)}`,
    `packing bound: 1 − ${formatFixed(ceiling.packedGpuHours, 0)} GPU-h that the jobs running at once occupy at ` +
      `least (shares packed, whole GPUs as asked) ÷ ${formatFixed(ceiling.wholeGpuHours, 0)} = ` +
      pct(ceiling.packingBound) +
      ` (${pct(ceiling.ceiling === 0 ? 0 : ceiling.packingBound / ceiling.ceiling)} of the ceiling)`,
    goalLine(report.goals.sharingVsWhole),
    goalLine(report.goals.hybridVsFixed),
    '',
    'where the GPU-hours paid went (means over seeds):',
    formatTable(
      [
        ['scenario', ...GPU_HOURS_USE_COLUMNS.map(([, name]) => name), 'paid'],
        ...meanGpuHoursUse(report.runs).map(([scenario, use]) => [
          SCENARIO_LABELS[scenario],
          ...GPU_HOURS_USE_COLUMNS.map(([k]) => formatFixed(use[k], 0)),
          formatFixed(
            GPU_HOURS_USE_COLUMNS.reduce((sum, [k]) => sum + use[k], 0),
            0,
          ),
        ]),
      ],
      { right: [false, ...GPU_HOURS_USE_COLUMNS.map(() => true), true] },
    ),
    '',
    formatTable(
      [
        [
          'scenario',
          'seed',
          'GPU-hours',
          'cost USD',
          'p95 wait s',
          'jobs',
          'autoscale calls',
          'calls wall s',
          'slowest call ms',
          'run wall s',
        ],
        ...seedRows,
      ],
      { right: [false, true, true, true, true, true, true, true, true, true] },
    ),
  ].join('\n');
}

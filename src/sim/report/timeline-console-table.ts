/**
 * Plain-text tables of a timeline replay for the terminal: one line per run (cluster, load,
 * allocation), then per priority class the wait and completion-time percentiles, preemptions and
 * lost work — per run, and as means over seeds.
 */
import type { MeanSd } from '../simulation-types.js';
import { CLASS_ORDER, type ClassStats, type ClassSummary, type TimelineReport } from '../timeline/timeline-types.js';
import { formatTable } from '../../lib/text-table.js';
import { formatFixed, formatSeeds } from './html-escape.js';

/** Seconds as a whole number, `—` for null. */
function secs(value: number | null): string {
  return value === null ? '—' : formatFixed(value, 0);
}

function triple(a: number | null, b: number | null, c: number | null): string {
  return `${secs(a)} / ${secs(b)} / ${secs(c)}`;
}

function mean(v: MeanSd | null): number | null {
  return v === null ? null : v.mean;
}

const RUN_HEADER = [
  'policy',
  'seed',
  'nodes',
  'GPUs',
  'jobs',
  'unplaceable',
  'offered load %',
  'alloc % (arrivals)',
  'alloc % (all)',
  'makespan h',
  'wall s',
];
const CLASS_HEADER = [
  'policy',
  'seed',
  'class',
  'jobs',
  'completed',
  'wait p50/p95/p99 s',
  'JCT p50/p95/p99 s',
  'preemptions',
  'lost GPU-h',
];
const MEAN_HEADER = [
  'policy',
  'seeds',
  'class',
  'completed',
  'wait p50/p95/p99 s',
  'JCT p50/p95/p99 s',
  'preemptions',
  'lost GPU-h',
];
const MEAN_RIGHT = [false, false, false, true, true, true, true, true];
const RUN_RIGHT = [false, true, true, true, true, true, true, true, true, true, true];
const CLASS_RIGHT = [false, false, false, true, true, true, true, true, true];

function classRow(policy: string, seed: string, name: string, s: ClassStats): string[] {
  return [
    policy,
    seed,
    name,
    String(s.jobs),
    String(s.completed),
    triple(s.waitSeconds.p50, s.waitSeconds.p95, s.waitSeconds.p99),
    triple(s.jctSeconds.p50, s.jctSeconds.p95, s.jctSeconds.p99),
    String(s.preemptions),
    formatFixed(s.lostWorkGpuHours, 1),
  ];
}

function summaryRow(policy: string, seeds: string, name: string, s: ClassSummary): string[] {
  return [
    policy,
    seeds,
    name,
    formatFixed(s.completed.mean, 1),
    triple(mean(s.waitP50Seconds), mean(s.waitP95Seconds), mean(s.waitP99Seconds)),
    triple(mean(s.jctP50Seconds), mean(s.jctP95Seconds), mean(s.jctP99Seconds)),
    formatFixed(s.preemptions.mean, 1),
    formatFixed(s.lostWorkGpuHours.mean, 1),
  ];
}

/**
 * Formats a timeline report as three aligned tables separated by blank lines: runs (cluster,
 * jobs, offered load, mean allocation, makespan in hours, wall time), then per run and class
 * (`all` first, then the classes that have jobs) the wait and JCT percentiles in whole seconds,
 * completed jobs, preemptions and lost work in GPU-hours, then the same as means over seeds per
 * policy (seeds shown as ranges). No trailing newline; `—` marks an empty sample.
 * @param report the timeline results
 * @returns the text
 */
export function formatTimelineTables(report: TimelineReport): string {
  const runRows = report.runs.map((r) => [
    r.policy,
    String(r.seed),
    String(r.cluster.nodes),
    String(r.cluster.gpus),
    String(r.jobs),
    String(r.unplaceable),
    r.offeredLoadPct === null ? '—' : formatFixed(r.offeredLoadPct, 1),
    formatFixed(r.meanAllocationPctDuringArrivals, 1),
    formatFixed(r.meanAllocationPct, 1),
    formatFixed(r.makespanSeconds / 3600, 1),
    formatFixed(r.wallSeconds, 2),
  ]);
  const classRows = report.runs.flatMap((r) => [
    classRow(r.policy, String(r.seed), 'all', r.all),
    ...CLASS_ORDER.filter((c) => r.byClass[c].jobs > 0).map((c) => classRow(r.policy, String(r.seed), c, r.byClass[c])),
  ]);
  const meanRows = report.summary.flatMap((p) => [
    summaryRow(p.policy, formatSeeds(p.seeds), 'all', p.all),
    ...CLASS_ORDER.filter((c) => report.runs.some((r) => r.policy === p.policy && r.byClass[c].jobs > 0)).map((c) =>
      summaryRow(p.policy, formatSeeds(p.seeds), c, p.byClass[c]),
    ),
  ]);
  return [
    formatTable([RUN_HEADER, ...runRows], { right: RUN_RIGHT }),
    '',
    formatTable([CLASS_HEADER, ...classRows], { right: CLASS_RIGHT }),
    '',
    'mean over seeds:',
    formatTable([MEAN_HEADER, ...meanRows], { right: MEAN_RIGHT }),
  ].join('\n');
}

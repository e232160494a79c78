/**
 * Renders a {@link TimelineReport} as one self-contained, offline HTML page (inline CSS and SVG,
 * no scripts): settings, results tables, GPU allocation over time, and wait-time percentiles per
 * priority class.
 */
import type { MeanSd } from '../simulation-types.js';
import { CLASS_ORDER, type ClassSummary, type TimelineReport } from '../timeline/timeline-types.js';
import { POLICY_PALETTE, htmlFigure, htmlSection, htmlTable, renderReportPage } from './html-page.js';
import { escapeHtml, formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';
import { renderLineChart, type LineSeries } from './svg-line-chart.js';

/** Colour of each priority class in the wait chart. */
const CLASS_COLORS: Readonly<Record<string, string>> = {
  critical: '#d62728',
  high: '#ff7f0e',
  normal: '#2ca02c',
  low: '#1f77b4',
};
/** Dash patterns for the second, third, … policy in the wait chart. */
const POLICY_DASHES = ['', '6 3', '2 3', '8 3 2 3'];

function secs(v: MeanSd | null): string {
  return v === null ? '—' : formatMeanSd(v, 0);
}

function table(caption: string, head: readonly string[], rows: readonly (readonly string[])[]): string {
  const body = rows.map(
    (r) =>
      `<tr>` +
      `${r.map((c, i) => (i < 3 ? `<td>${escapeHtml(c)}</td>` : `<td class="num">${escapeHtml(c)}</td>`)).join('')}` +
      `</tr>`,
  );
  return htmlTable(caption, head, body);
}

function classRow(policy: string, seeds: string, name: string, s: ClassSummary): string[] {
  return [
    policy,
    seeds,
    name,
    secs(s.waitP50Seconds),
    secs(s.waitP95Seconds),
    secs(s.waitP99Seconds),
    secs(s.jctP50Seconds),
    secs(s.jctP95Seconds),
    secs(s.jctP99Seconds),
    formatFixed(s.completed.mean, 1),
    formatFixed(s.preemptions.mean, 1),
    formatFixed(s.lostWorkGpuHours.mean, 2),
  ];
}

/**
 * Allocation over time, one line per run, from the whole replay or the arrival window; `untilHours` limits the x range.
 */
function allocationChart(
  report: TimelineReport,
  id: string,
  title: string,
  untilHours: number,
  arrivals: boolean,
): string {
  const series: LineSeries[] = report.runs.map((run, i) => {
    const a = arrivals ? run.allocationDuringArrivals : { ...run.allocation, startSeconds: 0 };
    return {
      label: `${run.policy} seed ${run.seed}`,
      color: POLICY_PALETTE[i % POLICY_PALETTE.length] ?? '#000',
      points: a.pct.map((y, k) => ({ x: (a.startSeconds + (k + 0.5) * a.intervalSeconds) / 3600, y })),
      ...(i >= POLICY_PALETTE.length ? { dash: '8 3' } : {}),
    };
  });
  return renderLineChart({
    id,
    title,
    xLabel: 'Simulated time (hours)',
    yLabel: 'Allocated GPU (% of capacity)',
    series,
    xDomain: [0, Math.max(untilHours, 1e-9)],
    yDomain: [0, 100],
  });
}

/** Wait percentile curves (p = 50..100, hours), one line per policy and class with jobs. */
function waitChart(report: TimelineReport): string {
  const series: LineSeries[] = report.summary.flatMap((p, pi) =>
    CLASS_ORDER.filter((c) => p.byClass[c].meanWaitPercentileCurveSeconds.length > 0).map((c) => ({
      label: report.summary.length > 1 ? `${p.policy} ${c}` : c,
      color: CLASS_COLORS[c] ?? '#000',
      points: p.byClass[c].meanWaitPercentileCurveSeconds.slice(50).map((s, k) => ({ x: 50 + k, y: s / 3600 })),
      ...(POLICY_DASHES[pi % POLICY_DASHES.length] ? { dash: POLICY_DASHES[pi % POLICY_DASHES.length]! } : {}),
    })),
  );
  return renderLineChart({
    id: 'chart-wait',
    title: 'Wait time percentiles per priority class',
    xLabel: 'Percentile of jobs',
    yLabel: 'Wait (hours)',
    series,
    xDomain: [50, 100],
    includeZero: true,
  });
}

/**
 * Renders the timeline report as one self-contained HTML document (no JavaScript, fonts, images
 * or links). All text taken from the report is HTML-escaped.
 * @param report the timeline results
 * @returns the document, starting with `<!doctype html>`
 */
export function renderTimelineHtmlReport(report: TimelineReport): string {
  const title = 'gpushare timeline replay report';
  const s = report.settings;
  const load = report.summary
    .map((p) => `${p.policy}: ${p.offeredLoadPct === null ? 'n/a' : `${formatFixed(p.offeredLoadPct.mean, 1)}%`}`)
    .join(', ');
  const inputs: [string, string][] = [
    ['Node file', report.inputs.nodesFile],
    ['Pod file', report.inputs.podsFile],
    [
      'Cluster',
      report.cluster.source === 'sampled'
        ? `${report.cluster.gpus} GPUs sampled per seed from the node file`
        : `${report.cluster.nodes} nodes, ${report.cluster.gpus} GPUs`,
    ],
    [
      'Pods',
      `${report.inputs.pods} (${report.inputs.timedPods} with valid times; skipped: ` +
        `${report.inputs.skippedMissingTimes} missing times, ${report.inputs.skippedNegativeDuration} ` +
        `negative duration)`,
    ],
    ['Policies', s.policies.join(', ')],
    ['Seeds', formatSeeds(s.seeds)],
    ['Arrival speedup', String(s.arrivalSpeedup)],
    [
      'Preemption',
      `${s.preemption ? 'on' : 'off'} (checkpoint every ${s.checkpointIntervalSeconds} s; min run ` +
        `${s.minRunSeconds} s; ` +
        `${s.maxPreemptionsPerJob === null ? 'no limit per job' : `at most ${s.maxPreemptionsPerJob} per job`}` +
        `)`,
    ],
    ['Offered load (mean over seeds)', `${load} — ${report.offeredLoadDefinition}`],
    [
      'Queue order',
      `priority, aged +${s.queueAging.agingStep} per ${s.queueAging.agingIntervalMs / 60_000} min waited ` +
        `up to the next class; then arrival`,
    ],
  ];
  const classRows = report.summary.flatMap((p) => [
    classRow(p.policy, formatSeeds(p.seeds), 'all', p.all),
    ...CLASS_ORDER.filter((c) => p.byClass[c].completed.mean > 0).map((c) =>
      classRow(p.policy, formatSeeds(p.seeds), c, p.byClass[c]),
    ),
  ]);
  const runRows = report.runs.map((r) => [
    r.policy,
    String(r.seed),
    `${r.cluster.nodes} nodes / ${r.cluster.gpus} GPUs`,
    String(r.jobs),
    String(r.unplaceable),
    r.offeredLoadPct === null ? 'n/a' : formatFixed(r.offeredLoadPct, 1),
    formatFixed(r.meanAllocationPctDuringArrivals, 1),
    formatFixed(r.meanAllocationPct, 1),
    formatFixed(r.makespanSeconds / 3600, 1),
  ]);
  const maxMakespanHours = Math.max(0, ...report.runs.map((r) => r.makespanSeconds / 3600));
  const maxArrivalHours = Math.max(
    0,
    ...report.runs.map((r) => (r.allocationDuringArrivals.startSeconds + r.arrivalSpanSeconds) / 3600),
  );
  return renderReportPage({
    title,
    generatedAt: report.generatedAt,
    inputsHeading: 'Inputs and settings',
    inputs,
    method:
      'Event-driven replay with arrivals, queueing, departures and preemption (docs/simulator.md "Timeline replay").',
    sections: [
      htmlSection('h-results', 'Results', [
        table(
          'Per priority class, mean ± SD over seeds (seconds)',
          [
            'Policy',
            'Seeds',
            'Class',
            'Wait p50',
            'Wait p95',
            'Wait p99',
            'JCT p50',
            'JCT p95',
            'JCT p99',
            'Completed',
            'Preemptions',
            'Lost GPU-h',
          ],
          classRows,
        ),
        table(
          'Per run',
          [
            'Policy',
            'Seed',
            'Cluster',
            'Jobs',
            'Unplaceable',
            'Offered load %',
            'Alloc % (arrivals)',
            'Alloc % (all)',
            'Makespan h',
          ],
          runRows,
        ),
      ]),
      htmlSection('h-charts', 'Charts', [
        htmlFigure(
          allocationChart(report, 'chart-alloc-arrivals', 'Allocated GPU % while jobs arrive', maxArrivalHours, true),
          'Allocated GPU (% of capacity) over simulated time until the last arrival; each point is the ' +
            'time-weighted mean over one interval.',
        ),
        htmlFigure(
          allocationChart(
            report,
            'chart-alloc-all',
            'Allocated GPU % until the last job ends',
            maxMakespanHours,
            false,
          ),
          'Allocated GPU (% of capacity) over the whole replay, until the last job completes.',
        ),
        htmlFigure(
          waitChart(report),
          'Wait time (hours) at each percentile p = 50…100 of the jobs of each priority class, mean over seeds.',
        ),
      ]),
    ],
  });
}

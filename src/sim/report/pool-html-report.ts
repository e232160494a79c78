/**
 * Renders a {@link PoolReport} as one self-contained, offline HTML page (inline CSS and SVG, no
 * scripts): the scenarios' GPU-hours, cost, allocation and waits, the goals, and over time for each
 * scenario the pool's size (with the GPUs its jobs hold), the queue length and the cost so far.
 */
import { CLASS_ORDER } from '../timeline/timeline-types.js';
import {
  GPU_HOURS_USE_COLUMNS,
  meanGpuHoursUse,
  POOL_SCENARIOS,
  SCENARIO_LABELS,
  type PoolReport,
  type PoolRunResult,
  type PoolScenario,
} from '../pool/pool-types.js';
import { htmlFigure, htmlSection, htmlTable, renderReportPage } from './html-page.js';
import { escapeHtml, formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';
import { renderLineChart, type LineSeries } from './svg-line-chart.js';

/** Colour of each scenario's lines. */
const SCENARIO_COLORS: Readonly<Record<PoolScenario, string>> = {
  'fixed-whole': '#7f7f7f',
  'autoscaled-whole': '#1f77b4',
  'autoscaled-sharing': '#2ca02c',
  'autoscaled-hybrid': '#d62728',
};

function rows(cells: readonly (readonly string[])[], textColumns = 1): string[] {
  const cell = (c: string, i: number): string =>
    i < textColumns ? `<td>${escapeHtml(c)}</td>` : `<td class="num">${escapeHtml(c)}</td>`;
  return cells.map((r) => `<tr>${r.map(cell).join('')}</tr>`);
}

/** The run of each scenario drawn in the charts: its first seed's. */
function drawnRuns(report: PoolReport): PoolRunResult[] {
  return POOL_SCENARIOS.map((s) => report.runs.find((r) => r.scenario === s)).filter(
    (r): r is PoolRunResult => r !== undefined,
  );
}

/** One chart over simulated days, one line per scenario (plus dashed ones from `dashed`). */
function chart(
  id: string,
  title: string,
  yLabel: string,
  runs: readonly PoolRunResult[],
  values: (r: PoolRunResult) => readonly number[],
  dashed?: { readonly label: string; readonly values: (r: PoolRunResult) => readonly number[] },
): string {
  const line = (r: PoolRunResult, ys: readonly number[], label: string, dash?: string): LineSeries => ({
    label,
    color: SCENARIO_COLORS[r.scenario],
    points: ys.map((y, k) => ({ x: ((k + 0.5) * r.series.intervalSeconds) / 86_400, y })),
    ...(dash === undefined ? {} : { dash }),
  });
  const series: LineSeries[] = runs.flatMap((r) => [
    line(r, values(r), SCENARIO_LABELS[r.scenario].slice(0, 3)),
    ...(dashed ? [line(r, dashed.values(r), `${SCENARIO_LABELS[r.scenario].slice(0, 3)} ${dashed.label}`, '5 3')] : []),
  ]);
  const end = Math.max(...runs.map((r) => r.makespanSeconds), 1) / 86_400;
  return renderLineChart({
    id,
    title,
    xLabel: 'Simulated time (days)',
    yLabel,
    series,
    xDomain: [0, end],
    includeZero: true,
  });
}

/**
 * Renders the pool report as one self-contained HTML document (no JavaScript, fonts, images or
 * links). All text taken from the report is HTML-escaped.
 * @returns the document, starting with `<!doctype html>`
 */
export function renderPoolHtmlReport(report: PoolReport): string {
  const s = report.settings;
  const price = s.priceList;
  const drawn = drawnRuns(report);
  const summaryRows = report.summary.map((x) => [
    SCENARIO_LABELS[x.scenario],
    x.scenario === 'fixed-whole' ? String(s.fixedPool.gpus ?? '—') : `peak ${formatFixed(x.peakGpus.mean, 0)}`,
    formatMeanSd(x.gpuHours, 0),
    formatMeanSd(x.cost, 0),
    formatFixed(x.allocatedPct.mean, 1),
    formatFixed(x.requestedPct.mean, 1),
    formatMeanSd(x.waitP95Seconds, 0),
    x.withinTarget ? 'yes' : 'no',
    ...CLASS_ORDER.map((c) => {
      const v = x.waitP95ByClass[c];
      return v === null ? '—' : formatFixed(v.mean, 0);
    }),
  ]);
  const goals = [report.goals.sharingVsWhole, report.goals.hybridVsFixed].map((g) => [
    g.description,
    `${formatFixed(100 * g.saving, 1)}%`,
    `${formatFixed(100 * g.required, 1)}%`,
    g.bound === undefined ? '—' : `${formatFixed(100 * g.bound, 1)}%`,
    g.met ? 'met' : 'not met',
  ]);
  const templates = [...s.templates.trace, ...s.templates.hybrid].map((t) => [
    t.name,
    t.gpuModel,
    String(t.gpuCount),
    formatFixed(t.hostCpuMilli / 1000, 0),
    formatFixed(t.hostMemoryMiB / 1024, 0),
    formatFixed(t.pricePerHour, 4),
  ]);
  const searched = s.fixedPool.searched.map((e) => [
    String(e.gpus),
    formatFixed(e.waitP95Seconds, 0),
    e.meets ? 'yes' : 'no',
  ]);
  const calls = report.runs
    .filter((r) => r.autoscale !== null)
    .map((r) => [
      r.scenario,
      String(r.seed),
      String(r.autoscale!.calls),
      formatFixed(r.autoscale!.wallSeconds, 2),
      formatFixed(r.autoscale!.maxWallSeconds * 1000, 1),
      String(r.autoscale!.nodesAdded),
      String(r.autoscale!.jobsDrained),
      formatFixed(r.wallSeconds, 1),
    ]);
  const policy = s.policies['autoscaled-sharing'];
  const sections = [
    htmlSection('h-results', 'Scenarios at one p95-wait target', [
      htmlTable(
        `Means ± SD over seeds ${formatSeeds(s.seeds)}; target ${formatFixed(s.waitTargetSeconds, 0)} s ± ` +
          `${formatFixed(100 * s.tolerance, 0)}%. alloc % = GPU held by running jobs ÷ GPUs paid; requested % = ` +
          'the trace pods\u2019 own fractional requests ÷ GPUs paid.',
        [
          'scenario',
          'pool GPUs',
          'GPU-hours',
          `cost ${price.currency}`,
          'alloc %',
          'requested %',
          'p95 wait s',
          'within target',
          ...CLASS_ORDER.map((c) => `p95 ${c} s`),
        ],
        rows(summaryRows),
      ),
      `<p>Sharing ceiling: 1 − ${escapeHtml(formatFixed(report.ceiling.fractionalGpuHours, 0))} GPU-h asked ÷ ` +
        `${escapeHtml(formatFixed(report.ceiling.wholeGpuHours, 0))} GPU-h rounded up to whole GPUs = ` +
        `${escapeHtml(formatFixed(100 * report.ceiling.ceiling, 2))}%. Packing bound: 1 − ` +
        `${escapeHtml(formatFixed(report.ceiling.packedGpuHours, 0))} GPU-h that the shares of jobs running at ` +
        `the same time occupy at least (whole GPUs) ÷ the same ` +
        `${escapeHtml(formatFixed(report.ceiling.wholeGpuHours, 0))} = ` +
        `${escapeHtml(formatFixed(100 * report.ceiling.packingBound, 2))}%: no pool that shares saves more.</p>`,
      htmlTable('Goals', ['goal', 'measured', 'required', 'packing bound', 'result'], rows(goals)),
      htmlTable(
        'Where the GPU-hours paid went (means over seeds)',
        ['scenario', ...GPU_HOURS_USE_COLUMNS.map(([, name]) => name), 'paid'],
        rows(
          meanGpuHoursUse(report.runs).map(([scenario, use]) => [
            SCENARIO_LABELS[scenario],
            ...GPU_HOURS_USE_COLUMNS.map(([k]) => formatFixed(use[k], 0)),
            formatFixed(
              GPU_HOURS_USE_COLUMNS.reduce((sum, [k]) => sum + use[k], 0),
              0,
            ),
          ]),
        ),
      ),
    ]),
    htmlSection('h-over-time', 'Over time', [
      htmlFigure(
        chart(
          'chart-pool',
          'GPUs paid for (solid) and held by jobs (dashed)',
          'GPUs',
          drawn,
          (r) => r.series.poolGpus,
          {
            label: 'held',
            values: (r) => r.series.allocatedGpus,
          },
        ),
        `Pool size over time, seed ${drawn[0]?.seed ?? '—'} of each scenario (time-weighted means over ` +
          `${drawn[0]?.series.poolGpus.length ?? 0} intervals).`,
      ),
      htmlFigure(
        chart('chart-queue', 'Jobs waiting', 'Queued jobs', drawn, (r) => r.series.queueLength),
        'Queue length over time.',
      ),
      htmlFigure(
        chart('chart-cost', 'Cost paid so far', price.currency, drawn, (r) => r.series.cumulativeCost),
        `Cumulative cost at ${price.name} prices of ${price.date}.`,
      ),
    ]),
    htmlSection('h-pool', 'Pools and prices', [
      `<p>Prices: ${escapeHtml(price.name)}, ${escapeHtml(price.date)} (${escapeHtml(price.sources.join('; '))}); ` +
        `GPUs per hour ${escapeHtml(
          Object.entries(price.gpuPerHour)
            .map(([m, p]) => `${m} ${p}`)
            .join(', '),
        )}` +
        (price.hostPrices
          ? `; hosts at ${price.vcpuPerHour} per vCPU-hour and ${price.memoryGiBPerHour} per GiB-hour`
          : '; hosts not priced') +
        `. ${escapeHtml(price.assumedPriceModels.join(', '))} are undisclosed models priced as a V100.</p>`,
      htmlTable(
        'Node templates',
        ['template', 'GPU model', 'GPUs', 'vCPUs', 'memory GiB', `${price.currency}/hour`],
        rows(templates, 2),
      ),
      htmlTable(
        `Fixed pool search (mean p95 wait over the seeds; ${s.fixedPool.gpus ?? 'none'} GPUs chosen)`,
        ['GPUs', 'p95 wait s', 'meets'],
        rows(searched, 0),
      ),
      htmlTable(
        'Autoscaler calls',
        ['scenario', 'seed', 'calls', 'wall s', 'slowest ms', 'nodes added', 'jobs drained', 'run wall s'],
        rows(calls),
      ),
    ]),
  ];
  return renderReportPage({
    title: 'gpushare pool report',
    generatedAt: report.generatedAt,
    method:
      'The timeline replay of the trace\u2019s GPU jobs on a fixed pool of whole GPUs and on pools the core\u2019s ' +
      'autoscaler grows and shrinks (docs/simulator.md, Pool replay).',
    inputs: [
      ['Node file', report.inputs.nodesFile],
      ['Pod file', report.inputs.podsFile],
      ['Jobs', `${report.inputs.timedPods} pods with times, ${report.inputs.cpuOnlyLeftOut} CPU-only left out`],
      ['Seeds', formatSeeds(s.seeds)],
      ['Time scale', `arrival speedup ${s.arrivalSpeedup} (run times kept)`],
      ['Preemption', `${s.preemption ? 'on' : 'off'}, checkpoint every ${s.checkpointIntervalSeconds} s`],
      [
        'Autoscaler',
        `every ${s.autoscaleIntervalSeconds} s, boot ${s.bootSeconds} s, wait-time target ` +
          `${policy.scaleUpWaitSeconds} s, scale-down after ${policy.scaleDownDelaySeconds} s at ≤ ` +
          `${policy.scaleDownUtilization} of a node's GPUs, drains move ${s.drainable} jobs, at most ` +
          `${s.maxPendingJobs} queued jobs per call`,
      ],
      ['Hybrid model', s.hybridGpuModel],
    ],
    sections,
  });
}

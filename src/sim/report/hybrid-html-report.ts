/**
 * Renders a {@link HybridReport} (`gpushare simulate --sharing ... --report FILE.html`) as one
 * self-contained HTML page: the settings, the definitions, the results table per sharing setting
 * and the allocation curves A(x) and A′(x). Inline CSS and SVG only.
 */
import type { HybridReport, HybridSummary } from '../hybrid/hybrid-types.js';
import { CURVE_POINTS, type MeanSd } from '../simulation-types.js';
import { escapeHtml, formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';
import { POLICY_PALETTE, htmlFigure, htmlTable, renderReportPage } from './html-page.js';
import { renderLineChart, type LineSeries } from './svg-line-chart.js';

function resultsTable(summary: readonly HybridSummary[]): string {
  const head = [
    'Sharing',
    'Seeds',
    'Unallocated GPU % at 100% (reserved)',
    'Unallocated GPU % at 130%',
    'Unrequested GPU % at 100%',
    'Failed pods',
    'GPU pods with hardware isolation (MIG) %',
    'Strict pods isolated (MIG or whole GPU) %',
    'Strict pods: MIG / whole GPU / shared / failed',
    'GI creations',
    'MIG mode switches',
    'Reconfigurations',
  ];
  const rows = summary.map((s) => {
    const n = (v: MeanSd): string => formatFixed(v.mean, 0);
    const cells = [
      `<th scope="row">${escapeHtml(s.sharing)}</th>`,
      `<td>${escapeHtml(formatSeeds(s.seeds))}</td>`,
      ...[
        formatMeanSd(s.unallocatedPctAt100),
        formatMeanSd(s.unallocatedPctAt130),
        formatMeanSd(s.unrequestedPctAt100),
        n(s.failedPods),
        formatFixed(s.hardwareIsolatedPct.mean, 1),
        formatFixed(s.strictIsolatedPct.mean, 1),
        [s.strictMig, s.strictExclusive, s.strictShared, s.strictFailed].map(n).join(' / '),
        n(s.giCreations),
        n(s.migModeSwitches),
        n(s.reconfigurations),
      ].map((v) => `<td class="num">${escapeHtml(v)}</td>`),
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return htmlTable('Per sharing setting, mean (± SD) over seeds', head, rows);
}

function series(
  summary: readonly HybridSummary[],
  pick: (s: HybridSummary) => readonly (number | null)[],
): LineSeries[] {
  return summary.map((s, i) => ({
    label: s.sharing,
    color: POLICY_PALETTE[i % POLICY_PALETTE.length] ?? '#000',
    points: pick(s)
      .slice(0, CURVE_POINTS)
      .map((y, x) => ({ x, y })),
  }));
}

/**
 * The hybrid section alone (a `<section>` element), for embedding in another page.
 */
export function renderHybridSection(report: HybridReport): string {
  const xLabel = 'Arrived workload x (% of cluster GPU capacity)';
  return [
    '<section aria-labelledby="h-hybrid">',
    '<h2 id="h-hybrid">Hybrid sharing</h2>',
    `<p class="meta">Every GPU is a ${escapeHtml(report.gpuModel)} (${report.gpuMemoryMiB} MiB); node ` +
      `choice by the ${escapeHtml(report.policy)} policy; inflation ${report.inflation}.</p>`,
    resultsTable(report.summary),
    '<dl class="inputs">',
    ...Object.entries(report.definitions).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
    '</dl>',
    htmlFigure(
      renderLineChart({
        id: 'chart-hybrid-alloc',
        title: 'Reserved GPU A(x) vs arrived workload x',
        xLabel,
        yLabel: 'A(x) (%)',
        series: series(report.summary, (s) => s.meanAllocationPct),
        xDomain: [0, CURVE_POINTS - 1],
        yDomain: [0, 100],
      }),
      'A(x): reserved milli-GPU (MIG instances by compute slices) in % of capacity, mean over seeds.',
    ),
    htmlFigure(
      renderLineChart({
        id: 'chart-hybrid-requested',
        title: 'Requested GPU of placed pods A′(x), zoomed to x = 80..130',
        xLabel,
        yLabel: 'A′(x) (%)',
        series: series(report.summary, (s) => s.meanRequestedAllocationPct),
        xDomain: [80, CURVE_POINTS - 1],
        height: 300,
      }),
      "A′(x): the placed pods' own requests in % of capacity (what MIG instances hold beyond the request " +
        'counts as unused), mean over seeds.',
    ),
    '</section>',
  ].join('\n');
}

/** The whole page. */
export function renderHybridHtmlReport(report: HybridReport): string {
  const title = 'gpushare hybrid-sharing simulation report';
  const inputs: [string, string][] = [
    ['Node file', report.inputs.nodesFile],
    ['Pod file', report.inputs.podsFile],
    ['Nodes', String(report.cluster.nodes)],
    ['GPUs', String(report.cluster.gpus)],
    ['Pods', String(report.inputs.pods)],
    ['Sharing', report.sharing.join(', ')],
    ['GPU model', report.gpuModel],
    ['Runs', String(report.runs.length)],
  ];
  return renderReportPage({
    title,
    generatedAt: report.generatedAt,
    method: 'Packing replay (FGD paper protocol) with per-GPU sharing modes.',
    inputs,
    sections: [renderHybridSection(report)],
  });
}

/**
 * Renders a {@link HybridReport} (`gpushare simulate --sharing ... --report FILE.html`) as one
 * self-contained HTML page: the settings, the definitions, the results table per sharing setting
 * and the allocation curves A(x) and A′(x). Inline CSS and SVG only.
 */
import type { HybridReport, HybridSummary } from '../hybrid/hybrid-types.js';
import { CURVE_POINTS, type MeanSd } from '../simulation-types.js';
import { escapeHtml, formatFixed, formatSeeds } from './html-escape.js';
import { POLICY_PALETTE, REPORT_CSS } from './html-report.js';
import { renderLineChart, type LineSeries } from './svg-line-chart.js';

function pm(v: MeanSd): string {
  return `${formatFixed(v.mean)} ± ${formatFixed(v.sd)}`;
}

function resultsTable(summary: readonly HybridSummary[]): string {
  const head = [
    'Sharing', 'Seeds', 'Unallocated GPU % at 100% (reserved)', 'Unallocated GPU % at 130%', 'Unrequested GPU % at 100%', 'Failed pods',
    'GPU pods with hardware isolation (MIG) %', 'Strict pods isolated (MIG or whole GPU) %', 'Strict pods: MIG / whole GPU / shared / failed',
    'GI creations', 'MIG mode switches', 'Reconfigurations',
  ];
  const rows = summary.map((s) => {
    const n = (v: MeanSd): string => formatFixed(v.mean, 0);
    const cells = [
      `<th scope="row">${escapeHtml(s.sharing)}</th>`,
      `<td>${escapeHtml(formatSeeds(s.seeds))}</td>`,
      ...[pm(s.unallocatedPctAt100), pm(s.unallocatedPctAt130), pm(s.unrequestedPctAt100), n(s.failedPods),
        formatFixed(s.hardwareIsolatedPct.mean, 1), formatFixed(s.strictIsolatedPct.mean, 1),
        [s.strictMig, s.strictExclusive, s.strictShared, s.strictFailed].map(n).join(' / '),
        n(s.giCreations), n(s.migModeSwitches), n(s.reconfigurations)].map((v) => `<td class="num">${escapeHtml(v)}</td>`),
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return [
    '<table>',
    '<caption>Per sharing setting, mean (± SD) over seeds</caption>',
    `<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

function series(summary: readonly HybridSummary[], pick: (s: HybridSummary) => readonly (number | null)[]): LineSeries[] {
  return summary.map((s, i) => ({
    label: s.sharing,
    color: POLICY_PALETTE[i % POLICY_PALETTE.length] ?? '#000',
    points: pick(s).slice(0, CURVE_POINTS).map((y, x) => ({ x, y })),
  }));
}

function figure(svg: string, caption: string): string {
  return `<figure>\n${svg}\n<figcaption>${escapeHtml(caption)}</figcaption>\n</figure>`;
}

/**
 * The hybrid section alone (a `<section>` element), for embedding in another page.
 */
export function renderHybridSection(report: HybridReport): string {
  const xLabel = 'Arrived workload x (% of cluster GPU capacity)';
  return [
    '<section aria-labelledby="h-hybrid">',
    '<h2 id="h-hybrid">Hybrid sharing</h2>',
    `<p class="meta">Every GPU is a ${escapeHtml(report.gpuModel)} (${report.gpuMemoryMiB} MiB); node choice by the ${escapeHtml(report.policy)} policy; inflation ${report.inflation}.</p>`,
    resultsTable(report.summary),
    '<dl class="inputs">',
    ...Object.entries(report.definitions).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
    '</dl>',
    figure(renderLineChart({
      id: 'chart-hybrid-alloc', title: 'Reserved GPU A(x) vs arrived workload x', xLabel, yLabel: 'A(x) (%)',
      series: series(report.summary, (s) => s.meanAllocationPct), xDomain: [0, CURVE_POINTS - 1], yDomain: [0, 100],
    }), 'A(x): reserved milli-GPU (MIG instances by compute slices) in % of capacity, mean over seeds.'),
    figure(renderLineChart({
      id: 'chart-hybrid-requested', title: 'Requested GPU of placed pods A′(x), zoomed to x = 80..130', xLabel, yLabel: 'A′(x) (%)',
      series: series(report.summary, (s) => s.meanRequestedAllocationPct), xDomain: [80, CURVE_POINTS - 1], height: 300,
    }), 'A′(x): the placed pods\' own requests in % of capacity (what MIG instances hold beyond the request counts as unused), mean over seeds.'),
    '</section>',
  ].join('\n');
}

/** The whole page. */
export function renderHybridHtmlReport(report: HybridReport): string {
  const title = 'gpushare hybrid-sharing simulation report';
  const inputs: [string, string][] = [
    ['Node file', report.inputs.nodesFile], ['Pod file', report.inputs.podsFile], ['Nodes', String(report.cluster.nodes)],
    ['GPUs', String(report.cluster.gpus)], ['Pods', String(report.inputs.pods)], ['Sharing', report.sharing.join(', ')],
    ['GPU model', report.gpuModel], ['Runs', String(report.runs.length)],
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${title}</h1>`,
    `<p class="meta">Generated ${escapeHtml(report.generatedAt)}. Packing replay (FGD paper protocol) with per-GPU sharing modes.</p>`,
    '<section aria-labelledby="h-inputs">',
    '<h2 id="h-inputs">Inputs</h2>',
    `<dl class="inputs">${inputs.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`,
    '</section>',
    renderHybridSection(report),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Renders a {@link SimulationReport} as one self-contained, offline HTML page: inline CSS,
 * inline SVG charts, no scripts and no external references.
 */
import { CURVE_POINTS } from '../simulation-types.js';
import type { MeanSd, PolicySummary, SimulationReport } from '../simulation-types.js';
import { escapeHtml, formatFixed, formatSeeds } from './html-escape.js';
import { renderLineChart } from './svg-line-chart.js';
import type { ChartPoint, LineSeries } from './svg-line-chart.js';

/** Fixed palette of distinct policy colours (cycled, with a dash pattern after the first round). */
export const POLICY_PALETTE: readonly string[] = [
  '#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
];

/** The report pages' inline style sheet (shared with the timeline report). */
export const REPORT_CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1000px;margin:0 auto;padding:24px}
h1{font-size:1.6rem;margin:0 0 4px}
h2{font-size:1.2rem;margin:28px 0 8px}
.meta{color:#666;font-size:.9rem;margin:0}
dl.inputs{display:grid;grid-template-columns:max-content auto;gap:4px 16px;margin:0}
dl.inputs dt{font-weight:600}
dl.inputs dd{margin:0;font-family:ui-monospace,Menlo,Consolas,monospace}
table{border-collapse:collapse;background:#fff;font-size:.92rem}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #ccc;padding:4px 10px}
th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:16px 0;background:#fff;border:1px solid #ddd;padding:8px}
figcaption{font-size:.9rem;color:#444;margin-top:4px}
svg.chart{max-width:100%;height:auto;font-family:inherit}
`;

/** `mean ± sd` with 2 decimals. */
function meanSd(v: MeanSd): string {
  return `${formatFixed(v.mean)} ± ${formatFixed(v.sd)}`;
}

/** Curve values (index = x) as chart points. */
function curvePoints(values: readonly (number | null)[]): ChartPoint[] {
  return values.slice(0, CURVE_POINTS).map((y, x) => ({ x, y }));
}

/** One chart series per policy, coloured from the palette. */
function policySeries(summary: readonly PolicySummary[], pick: (p: PolicySummary) => readonly (number | null)[]): LineSeries[] {
  return summary.map((p, i) => {
    const color = POLICY_PALETTE[i % POLICY_PALETTE.length] ?? '#000';
    const base = { label: p.policy, color, points: curvePoints(pick(p)) };
    return i < POLICY_PALETTE.length ? base : { ...base, dash: '8 3' };
  });
}

/** The results table. */
function resultsTable(summary: readonly PolicySummary[]): string {
  const head = [
    'Policy', 'Seeds', 'Unallocated GPU % at 100% arrived (mean ± SD)',
    'Unallocated GPU % at 130% arrived (mean ± SD)', 'Failed pods (mean)',
    'Published FGD figure at 100% (mean ± SD)', 'Published FGD figure at 130% (mean ± SD)',
  ];
  const rows = summary.map((p) => {
    const cells = [
      `<th scope="row">${escapeHtml(p.policy)}</th>`,
      `<td>${escapeHtml(formatSeeds(p.seeds))} <span class="meta">(${p.seeds.length})</span></td>`,
      `<td class="num">${escapeHtml(meanSd(p.unallocatedPctAt100))}</td>`,
      `<td class="num">${escapeHtml(meanSd(p.unallocatedPctAt130))}</td>`,
      `<td class="num">${escapeHtml(formatFixed(p.failedPods.mean))}</td>`,
      `<td class="num">${p.published ? escapeHtml(meanSd(p.published.unallocatedPctAt100)) : '—'}</td>`,
      `<td class="num">${p.published ? escapeHtml(meanSd(p.published.unallocatedPctAt130)) : '—'}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return [
    '<table>',
    '<caption>Unallocated GPU capacity per policy (lower is better), over all seeds</caption>',
    `<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

/** A chart wrapped in a figure with a visible caption. */
function figure(svg: string, caption: string): string {
  return `<figure>\n${svg}\n<figcaption>${escapeHtml(caption)}</figcaption>\n</figure>`;
}

/** The three charts: A(x), R(x) and A(x) zoomed to x = 80..130. */
function charts(summary: readonly PolicySummary[]): string {
  const xMax = CURVE_POINTS - 1;
  const xLabel = 'Arrived workload x (% of cluster GPU capacity)';
  const ideal: LineSeries = {
    label: 'ideal min(x,100)',
    color: '#888',
    dash: '6 4',
    points: Array.from({ length: CURVE_POINTS }, (_, x) => ({ x, y: Math.min(x, 100) })),
  };
  const alloc = policySeries(summary, (p) => p.meanAllocationPct);
  const frag = policySeries(summary, (p) => p.meanFragmentRatioPct);
  return [
    figure(
      renderLineChart({
        id: 'chart-alloc', title: 'GPU allocation ratio A(x) vs arrived workload x',
        xLabel, yLabel: 'GPU allocation ratio A(x) (%)', series: [...alloc, ideal],
        xDomain: [0, xMax], yDomain: [0, 100],
      }),
      'GPU allocation ratio A(x) (%), mean over seeds, vs arrived workload x (%). Dashed grey: ideal min(x, 100).',
    ),
    figure(
      renderLineChart({
        id: 'chart-frag', title: 'Fragment ratio R(x) vs arrived workload x',
        xLabel, yLabel: 'Fragment ratio R(x) (%)', series: frag,
        xDomain: [0, xMax], includeZero: true,
      }),
      'Fragment ratio R(x) (%): fragmented share of idle GPU capacity, mean over seeds, vs arrived workload x (%).',
    ),
    figure(
      renderLineChart({
        id: 'chart-alloc-zoom', title: 'GPU allocation ratio A(x), zoomed to x = 80..130',
        xLabel, yLabel: 'A(x) (%)', series: alloc, xDomain: [80, xMax], height: 300,
      }),
      'A(x) (%) zoomed to x = 80..130 with the y range fitted to the data, so differences between policies are visible.',
    ),
  ].join('\n');
}

/**
 * Renders a simulation report as a single self-contained HTML document that opens offline:
 * inline CSS and inline SVG only, no JavaScript, fonts, images or links. All text taken from
 * the report (policy names, file names, …) is HTML-escaped.
 *
 * @param report - The simulation results (see {@link SimulationReport}).
 * @returns The complete HTML document, starting with `<!doctype html>`.
 */
export function renderHtmlReport(report: SimulationReport): string {
  const title = 'gpushare simulation report';
  const inputs: [string, string][] = [
    ['Node file', report.inputs.nodesFile],
    ['Pod file', report.inputs.podsFile],
    ['Nodes', String(report.cluster.nodes)],
    ['GPUs', String(report.cluster.gpus)],
    ['Pods', String(report.inputs.pods)],
    ['Inflation', String(report.inflation)],
    ['Workload of default', report.workloadSource],
    ['Runs', String(report.runs.length)],
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
    `<p class="meta">Generated ${escapeHtml(report.generatedAt)}. Trace-driven replay after the FGD paper (Weng et al., USENIX ATC'23).</p>`,
    '<section aria-labelledby="h-inputs">',
    '<h2 id="h-inputs">Inputs</h2>',
    `<dl class="inputs">${inputs.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`,
    '</section>',
    '<section aria-labelledby="h-results">',
    '<h2 id="h-results">Results</h2>',
    resultsTable(report.summary),
    '</section>',
    '<section aria-labelledby="h-charts">',
    '<h2 id="h-charts">Charts</h2>',
    charts(report.summary),
    '</section>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Renders a {@link SimulationReport} as one self-contained, offline HTML page: inline CSS,
 * inline SVG charts, no scripts and no external references.
 */
import { CURVE_POINTS } from '../simulation-types.js';
import type { PolicySummary, SimulationReport } from '../simulation-types.js';
import { escapeHtml, formatFixed, formatMeanSd, formatSeeds } from './html-escape.js';
import { POLICY_PALETTE, htmlFigure, htmlSection, htmlTable, renderReportPage } from './html-page.js';
import { boundTableRows } from './bound-table.js';
import { renderLineChart } from './svg-line-chart.js';
import type { ChartPoint, LineSeries } from './svg-line-chart.js';

/** Curve values (index = x) as chart points. */
function curvePoints(values: readonly (number | null)[]): ChartPoint[] {
  return values.slice(0, CURVE_POINTS).map((y, x) => ({ x, y }));
}

/** One chart series per policy, coloured from the palette. */
function policySeries(
  summary: readonly PolicySummary[],
  pick: (p: PolicySummary) => readonly (number | null)[],
): LineSeries[] {
  return summary.map((p, i) => {
    const color = POLICY_PALETTE[i % POLICY_PALETTE.length] ?? '#000';
    const base = { label: p.policy, color, points: curvePoints(pick(p)) };
    return i < POLICY_PALETTE.length ? base : { ...base, dash: '8 3' };
  });
}

/** The results table. */
function resultsTable(summary: readonly PolicySummary[]): string {
  const head = [
    'Policy',
    'Seeds',
    'Unallocated GPU % at 100% arrived (mean ± SD)',
    'Unallocated GPU % at 130% arrived (mean ± SD)',
    'Failed pods (mean)',
    'Published FGD figure at 100% (mean ± SD)',
    'Published FGD figure at 130% (mean ± SD)',
  ];
  const rows = summary.map((p) => {
    const cells = [
      `<th scope="row">${escapeHtml(p.policy)}</th>`,
      `<td>${escapeHtml(formatSeeds(p.seeds))} <span class="meta">(${p.seeds.length})</span></td>`,
      `<td class="num">${escapeHtml(formatMeanSd(p.unallocatedPctAt100))}</td>`,
      `<td class="num">${escapeHtml(formatMeanSd(p.unallocatedPctAt130))}</td>`,
      `<td class="num">${escapeHtml(formatFixed(p.failedPods.mean))}</td>`,
      `<td class="num">${p.published ? escapeHtml(formatMeanSd(p.published.unallocatedPctAt100)) : '—'}</td>`,
      `<td class="num">${p.published ? escapeHtml(formatMeanSd(p.published.unallocatedPctAt130)) : '—'}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return htmlTable('Unallocated GPU capacity per policy (lower is better), over all seeds', head, rows);
}

/** The bound as an A(x) series: 100 − mean bound at each of its levels (no placement lies above). */
function boundSeries(report: SimulationReport): LineSeries[] {
  const bound = report.bound;
  if (!bound) return [];
  const points = bound.levelsPct.map((x, l) => {
    const u = bound.meanUnallocatedPctBound[l];
    return { x, y: u === null || u === undefined ? null : 100 - u };
  });
  return [{ label: 'bound (no placement above)', color: '#000', dash: '2 3', points }];
}

/** The bound section: the bound beside each policy and its gap, per level. */
function boundSection(report: SimulationReport): string[] {
  const rows = boundTableRows(report);
  if (rows.length === 0) return [];
  const [head, ...body] = rows;
  const html = body.map(([name, ...cells]) => {
    const numbers = cells.map((c) => `<td class="num">${escapeHtml(c)}</td>`).join('');
    return `<tr><th scope="row">${escapeHtml(name!)}</th>${numbers}</tr>`;
  });
  const caption =
    'Unallocated GPU % at each arrival level x (mean over seeds) and, in parentheses, the gap to the lower ' +
    'bound that no placement of the same arrivals can beat (percentage points, paired by seed)';
  return [
    htmlSection('h-bound', 'Bound', [
      htmlTable(caption, head!, html),
      `<p class="meta">Bound: configuration LP over request shapes and node types (docs/packing-bound.md), ` +
        `${report.bound!.seeds.length} seed(s), computed in ${report.bound!.seconds.toFixed(1)} s.</p>`,
    ]),
  ];
}

/** The three charts: A(x), R(x) and A(x) zoomed to x = 80..130. */
function charts(summary: readonly PolicySummary[], bound: readonly LineSeries[]): string {
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
    htmlFigure(
      renderLineChart({
        id: 'chart-alloc',
        title: 'GPU allocation ratio A(x) vs arrived workload x',
        xLabel,
        yLabel: 'GPU allocation ratio A(x) (%)',
        series: [...alloc, ideal, ...bound],
        xDomain: [0, xMax],
        yDomain: [0, 100],
      }),
      'GPU allocation ratio A(x) (%), mean over seeds, vs arrived workload x (%). Dashed grey: ideal min(x, 100).' +
        (bound.length > 0 ? ' Dotted black: the bound, 100 − the lower bound on unallocated GPU %.' : ''),
    ),
    htmlFigure(
      renderLineChart({
        id: 'chart-frag',
        title: 'Fragment ratio R(x) vs arrived workload x',
        xLabel,
        yLabel: 'Fragment ratio R(x) (%)',
        series: frag,
        xDomain: [0, xMax],
        includeZero: true,
      }),
      'Fragment ratio R(x) (%): fragmented share of idle GPU capacity, mean over seeds, vs arrived workload x (%).',
    ),
    htmlFigure(
      renderLineChart({
        id: 'chart-alloc-zoom',
        title: 'GPU allocation ratio A(x), zoomed to x = 80..130',
        xLabel,
        yLabel: 'A(x) (%)',
        series: [...alloc, ...bound],
        xDomain: [80, xMax],
        height: 300,
      }),
      'A(x) (%) zoomed to x = 80..130 with the y range fitted to the data, so differences between ' +
        'policies are visible.',
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
  return renderReportPage({
    title,
    generatedAt: report.generatedAt,
    method: "Trace-driven replay after the FGD paper (Weng et al., USENIX ATC'23).",
    inputs,
    sections: [
      htmlSection('h-results', 'Results', [resultsTable(report.summary)]),
      ...boundSection(report),
      htmlSection('h-charts', 'Charts', [charts(report.summary, boundSeries(report))]),
    ],
  });
}

/**
 * The HTML report of `gpushare what-if` (docs/what-if.md): one self-contained page with the sizing
 * table, the p95 wait against pool size (whole GPUs and the recommended policy with sharing), the
 * autoscaled pools and the right-sizing advice.
 */
import type { PoolSize, WhatIfReport } from '../whatif/run-what-if.js';
import { htmlFigure, htmlSection, htmlTable, renderReportPage } from './html-page.js';
import { escapeHtml, formatFixed } from './html-escape.js';
import { renderLineChart, type LineSeries } from './svg-line-chart.js';
import {
  ADVICE_HEAD,
  adviceRows,
  AUTOSCALED_HEAD,
  NO_PEAKS,
  autoscaledRows,
  rightSizedLine,
  sizingRows,
} from './what-if-table.js';

function rows(cells: readonly (readonly string[])[], textColumns: number): string[] {
  const cell = (c: string, i: number): string =>
    i < textColumns ? `<td>${escapeHtml(c)}</td>` : `<td class="num">${escapeHtml(c)}</td>`;
  return cells.map((r) => `<tr>${r.map(cell).join('')}</tr>`);
}

function waitLine(label: string, color: string, pool: PoolSize, dash?: string): LineSeries {
  return {
    label,
    color,
    points: pool.tried.filter((t) => t.unplaceable === 0).map((t) => ({ x: t.gpus, y: t.waitP95Seconds })),
    ...(dash === undefined ? {} : { dash }),
  };
}

/**
 * Renders the report as one HTML document (no scripts, styles inline).
 * @param generatedAt ISO time to print (display only)
 */
export function renderWhatIfHtml(report: WhatIfReport, source: string, generatedAt: string): string {
  const recommended = report.shared.find((s) => s.policy === report.recommendedPolicy);
  const series = [waitLine('whole GPUs', '#1f77b4', report.whole)];
  if (recommended !== undefined) series.push(waitLine(`sharing, ${recommended.policy}`, '#2ca02c', recommended));
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const chart = renderLineChart({
    id: 'wait-vs-gpus',
    title: 'p95 wait against pool size',
    xLabel: 'GPUs',
    yLabel: 'p95 wait (s)',
    series,
    xDomain: [Math.min(...xs, 1), Math.max(...xs, 2)],
    includeZero: true,
  });
  const sections = [
    htmlSection('h-sizing', 'GPUs needed', [
      htmlTable(
        `At p95 wait ≤ ${formatFixed(report.target.waitP95Seconds, 0)} s`,
        ['requests', 'policy', 'GPUs needed', 'p95 wait s', 'fewer GPUs than whole'],
        rows(sizingRows(report), 2),
      ),
      `<p>Recommended policy: <strong>${escapeHtml(report.recommendedPolicy ?? 'none')}</strong>.</p>`,
      htmlFigure(chart, 'p95 wait of each pool size tried, whole GPUs and the recommended policy with sharing'),
    ]),
  ];
  if (report.autoscaled !== null)
    sections.push(
      htmlSection('h-autoscaled', 'Autoscaled pool', [
        htmlTable('GPU-hours and cost paid', AUTOSCALED_HEAD, rows(autoscaledRows(report.autoscaled), 1)),
      ]),
    );
  sections.push(
    htmlSection('h-right-sizing', 'Right-sizing advice', [
      report.rightSizing.workloads.length === 0
        ? `<p>${escapeHtml(NO_PEAKS)}</p>`
        : htmlTable(
            `Observed peak + ${formatFixed(100 * report.rightSizing.headroom, 0)}% headroom (advice only)`,
            ADVICE_HEAD,
            rows(adviceRows(report), 1),
          ) + `<p>${escapeHtml(rightSizedLine(report))}</p>`,
    ]),
  );
  const { inputs, observed, settings } = report;
  return renderReportPage({
    title: 'gpushare what-if',
    generatedAt,
    method: 'A server\u2019s history replayed through the core on pools of one GPU model (docs/what-if.md).',
    inputs: [
      ['History', source],
      ['Jobs', `${inputs.jobs} (${inputs.gpuJobs} with GPUs), ${inputs.tenants} tenant(s)`],
      [
        'Asked',
        `${formatFixed(observed.requestedGpuHours, 1)} GPU-h (${formatFixed(observed.wholeGpuHours, 1)} whole)`,
      ],
      ['p95 wait on the server', `${formatFixed(observed.waitP95Seconds, 0)} s`],
      ['Nodes', `${settings.shape.gpuModel}, ${settings.shape.gpusPerNode} GPUs each`],
      ['Seed', String(settings.seed)],
    ],
    sections,
  });
}

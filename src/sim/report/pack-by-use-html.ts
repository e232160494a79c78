/**
 * `gpushare pack-by-use --report FILE.html`: the text report's rows and lines (pack-by-use-table.ts)
 * as one self-contained HTML page.
 */
import type { PackByUseResult } from '../genai/pack-by-use.js';
import { escapeHtml } from './html-escape.js';
import { htmlSection, htmlTable, renderReportPage } from './html-page.js';
import { goalsLine, headroomLine, introLines, RESULT_HEADER, resultRows } from './pack-by-use-table.js';

/** A paragraph per line. */
const paragraphs = (lines: readonly string[]): string => lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n');

/** The page, `generatedAt` an ISO time. */
export function renderPackByUseHtml(r: PackByUseResult, dataName: string, generatedAt: string): string {
  const rows = r.models
    .flatMap(resultRows)
    .map(
      ([model, placement, ...figures]) =>
        `<tr><th scope="row">${escapeHtml(model!)}</th><td>${escapeHtml(placement!)}</td>` +
        `${figures.map((f) => `<td class="num">${escapeHtml(f)}</td>`).join('')}</tr>`,
    );
  return renderReportPage({
    title: 'Packing by use: GenAI inference pods',
    generatedAt,
    method:
      'Each pod is placed once from statistics of the first half of the trace and judged on the second half ' +
      '(docs/pack-by-use.md).',
    inputs: [
      ['data', dataName],
      ['GPU models', r.models.map((m) => m.model.name).join(', ')],
      ['headroom', String(r.settings.headroom)],
      ['rule bound', `${r.settings.maxOverloadPct}% of a GPU's occupied minutes`],
      ['floor search steps', r.settings.floorSteps.toLocaleString('en-US')],
    ],
    sections: [
      htmlSection('h-data', 'Pods and rule', [paragraphs(introLines(r, dataName))]),
      htmlSection('h-results', 'Results on the second half', [
        htmlTable('One pod per GPU and packed by use, per GPU model', RESULT_HEADER, rows),
      ]),
      htmlSection('h-headroom', 'Headroom', [paragraphs(r.models.map(headroomLine))]),
      htmlSection('h-goals', 'Goals', [paragraphs(r.models.map(goalsLine))]),
    ],
  });
}

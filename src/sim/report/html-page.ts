/**
 * The page every HTML report of the simulator shares (`gpushare simulate --html`, the hybrid and
 * the timeline reports): one self-contained file with an inline style sheet, no scripts, a title,
 * an inputs list, then the report's sections; and the figure and table blocks inside them.
 */
import { escapeHtml } from './html-escape.js';

/** Fixed palette of distinct series colours (cycled, with a dash pattern after the first round). */
export const POLICY_PALETTE: readonly string[] = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

/** The report pages' inline style sheet. */
const REPORT_CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
  margin:0;color:#222;background:#fafafa}
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

/** What a report page shows. Text is escaped here; `sections` are HTML. */
export interface ReportPage {
  readonly title: string;
  /** ISO time the report was made. */
  readonly generatedAt: string;
  /** The sentence after "Generated …", naming the method (HTML). */
  readonly method: string;
  /** Heading of the inputs list (default `Inputs`). */
  readonly inputsHeading?: string;
  /** Label and value of each input. */
  readonly inputs: readonly (readonly [string, string])[];
  /** The report's sections, HTML (see {@link htmlSection}). */
  readonly sections: readonly string[];
}

/** The whole document, ending with a newline. */
export function renderReportPage(page: ReportPage): string {
  const title = escapeHtml(page.title);
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
    `<p class="meta">Generated ${escapeHtml(page.generatedAt)}. ${page.method}</p>`,
    htmlSection('h-inputs', page.inputsHeading ?? 'Inputs', [
      `<dl class="inputs">` +
        `${page.inputs.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`,
    ]),
    ...page.sections,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A section with an `h2` heading of id `id`; `parts` are HTML. */
export function htmlSection(id: string, heading: string, parts: readonly string[]): string {
  return [
    `<section aria-labelledby="${id}">`,
    `<h2 id="${id}">${escapeHtml(heading)}</h2>`,
    ...parts,
    '</section>',
  ].join('\n');
}

/** A chart wrapped in a figure with a visible caption. */
export function htmlFigure(svg: string, caption: string): string {
  return `<figure>\n${svg}\n<figcaption>${escapeHtml(caption)}</figcaption>\n</figure>`;
}

/** A table with a caption and column headers; `rows` are `<tr>` elements (HTML). */
export function htmlTable(caption: string, head: readonly string[], rows: readonly string[]): string {
  return [
    '<table>',
    `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

/**
 * A small, dependency-free SVG line chart renderer used by the HTML report. The output is a
 * single inline `<svg>` element (no scripts, no external references, no `xmlns` URL needed
 * when embedded in HTML5).
 */
import { escapeHtml } from './html-escape.js';

/** One data point; `y: null` breaks the line. */
export interface ChartPoint {
  readonly x: number;
  readonly y: number | null;
}

/** One line of a chart. */
export interface LineSeries {
  /** Legend label (plain text; escaped on output). */
  readonly label: string;
  /** CSS colour of the stroke, e.g. `#1f77b4`. */
  readonly color: string;
  readonly points: readonly ChartPoint[];
  /** SVG `stroke-dasharray`, e.g. `6 4`; solid when omitted. */
  readonly dash?: string;
}

/** Options of {@link renderLineChart}. */
export interface LineChartOptions {
  /** Prefix for element ids inside the SVG; must be unique within the page. */
  readonly id: string;
  /** Accessible title (plain text). */
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  /** Visible x range; points outside it are dropped. */
  readonly xDomain: readonly [number, number];
  /** Visible y range; auto-fitted to the data in `xDomain` when omitted. */
  readonly yDomain?: readonly [number, number];
  /** With an automatic y range, extend it down (or up) to include 0. */
  readonly includeZero?: boolean;
  readonly width?: number;
  readonly height?: number;
}

const MARGIN = { top: 16, right: 190, bottom: 48, left: 60 } as const;

/** Rounds an SVG coordinate to 2 decimals without trailing zeros. */
function coord(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** A "nice" step (1, 2 or 5 × 10^k) giving about `target` intervals over `span`. */
function niceStep(span: number, target: number): number {
  const raw = span / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
}

/** Decimal places needed to print multiples of `step`. */
function stepDecimals(step: number): number {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

/** Tick values in [lo, hi] at multiples of a nice step. */
function ticks(lo: number, hi: number, target: number): { values: number[]; decimals: number } {
  if (!(hi > lo) || !Number.isFinite(hi - lo)) return { values: Number.isFinite(lo) ? [lo] : [], decimals: 2 };
  const step = niceStep(hi - lo, target);
  const decimals = stepDecimals(step);
  const values: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let i = first; i * step <= hi + step * 1e-9; i++) values.push(Number((i * step).toFixed(decimals)));
  return { values, decimals };
}

/** Fits a y range to the finite data inside the x domain, padded and snapped to nice ticks. */
function autoYDomain(opts: LineChartOptions): [number, number] {
  const [x0, x1] = opts.xDomain;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of opts.series) {
    for (const p of s.points) {
      if (p.y === null || !Number.isFinite(p.y) || p.x < x0 || p.x > x1) continue;
      lo = Math.min(lo, p.y);
      hi = Math.max(hi, p.y);
    }
  }
  if (lo > hi) return [0, 1];
  if (opts.includeZero) {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  if (lo === hi) return [lo - 1, hi + 1];
  const dataLo = lo;
  const pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  if (dataLo >= 0 && lo < 0) lo = 0;
  const step = niceStep(hi - lo, 5);
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

/** Splits points into runs of consecutive non-null, in-domain points. */
function segments(points: readonly ChartPoint[], x0: number, x1: number): ChartPoint[][] {
  const out: ChartPoint[][] = [];
  let cur: ChartPoint[] = [];
  for (const p of points) {
    if (p.x < x0 || p.x > x1) continue;
    if (p.y === null || !Number.isFinite(p.y)) {
      if (cur.length > 0) out.push(cur);
      cur = [];
    } else {
      cur.push(p);
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * Renders a line chart as one self-contained inline SVG string with axes, ticks, axis labels,
 * a legend and `role="img"` plus `aria-label`/`<title>` for accessibility. Null y values break
 * a series into separate `<polyline>` elements (each tagged `data-series="<label>"`); an
 * isolated point is additionally drawn as a small circle.
 *
 * @param options - Chart data and layout; see {@link LineChartOptions}.
 * @returns The `<svg>…</svg>` markup.
 */
export function renderLineChart(options: LineChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 360;
  const [x0, x1] = options.xDomain;
  const [y0, y1] = options.yDomain ?? autoYDomain(options);
  const pw = width - MARGIN.left - MARGIN.right;
  const ph = height - MARGIN.top - MARGIN.bottom;
  const sx = (x: number): number => MARGIN.left + ((x - x0) / (x1 - x0 || 1)) * pw;
  const sy = (y: number): number => MARGIN.top + ph - ((y - y0) / (y1 - y0 || 1)) * ph;
  const id = escapeHtml(options.id);
  const title = escapeHtml(options.title);
  const parts: string[] = [];

  parts.push(
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
      `role="img" aria-label="${title}" aria-labelledby="${id}-title">`,
    `<title id="${id}-title">${title}</title>`,
    `<defs><clipPath id="${id}-clip"><rect x="${MARGIN.left}" y="${MARGIN.top}" width="${pw}" height="` +
      `${ph}"/></clipPath></defs>`,
    `<rect class="plot-bg" x="${MARGIN.left}" y="${MARGIN.top}" width="${pw}" height="${ph}" fill="#fff" ` +
      `stroke="#999"/>`,
  );

  const xt = ticks(x0, x1, 8);
  for (const v of xt.values) {
    const x = coord(sx(v));
    parts.push(
      `<line x1="${x}" y1="${MARGIN.top}" x2="${x}" y2="${MARGIN.top + ph}" stroke="#eee"/>`,
      `<line x1="${x}" y1="${MARGIN.top + ph}" x2="${x}" y2="${MARGIN.top + ph + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${MARGIN.top + ph + 18}" text-anchor="middle" font-size="11">${v.toFixed(xt.decimals)}</text>`,
    );
  }
  const yt = ticks(y0, y1, 5);
  for (const v of yt.values) {
    const y = coord(sy(v));
    parts.push(
      `<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + pw}" y2="${y}" stroke="#eee"/>`,
      `<line x1="${MARGIN.left - 5}" y1="${y}" x2="${MARGIN.left}" y2="${y}" stroke="#333"/>`,
      `<text x="${MARGIN.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle" font-size="11">` +
        `${v.toFixed(yt.decimals)}</text>`,
    );
  }
  parts.push(
    `<text x="${coord(MARGIN.left + pw / 2)}" y="${height - 8}" text-anchor="middle" font-size="12">` +
      `${escapeHtml(options.xLabel)}</text>`,
    `<text transform="translate(16 ${coord(MARGIN.top + ph / 2)}) rotate(-90)" text-anchor="middle" ` +
      `font-size="12">${escapeHtml(options.yLabel)}</text>`,
  );

  parts.push(`<g clip-path="url(#${id}-clip)" fill="none" stroke-width="1.8" stroke-linejoin="round">`);
  for (const s of options.series) {
    const label = escapeHtml(s.label);
    const dash = s.dash ? ` stroke-dasharray="${escapeHtml(s.dash)}"` : '';
    const color = escapeHtml(s.color);
    for (const seg of segments(s.points, x0, x1)) {
      const pts = seg.map((p) => `${coord(sx(p.x))},${coord(sy(p.y as number))}`).join(' ');
      parts.push(`<polyline data-series="${label}" points="${pts}" stroke="${color}"${dash}/>`);
      const only = seg[0];
      if (seg.length === 1 && only) {
        parts.push(
          `<circle cx="${coord(sx(only.x))}" cy="${coord(sy(only.y as number))}" r="2.5" fill="${color}" ` +
            `stroke="none"/>`,
        );
      }
    }
  }
  parts.push('</g>');

  const lx = MARGIN.left + pw + 16;
  parts.push(`<g class="legend" font-size="12">`);
  options.series.forEach((s, i) => {
    const y = MARGIN.top + 10 + i * 20;
    const dash = s.dash ? ` stroke-dasharray="${escapeHtml(s.dash)}"` : '';
    parts.push(
      `<line x1="${lx}" y1="${y}" x2="${lx + 24}" y2="${y}" stroke="${escapeHtml(s.color)}" ` +
        `stroke-width="2.5"${dash}/>`,
      `<text x="${lx + 30}" y="${y}" dominant-baseline="middle">${escapeHtml(s.label)}</text>`,
    );
  });
  parts.push('</g>', '</svg>');
  return parts.join('\n');
}

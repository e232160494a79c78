import { describe, it, expect } from 'vitest';
import { CURVE_POINTS } from '../simulation-types.js';
import type { PolicySummary, RunResult, SimulationReport } from '../simulation-types.js';
import { renderHtmlReport } from './html-report.js';
import { escapeHtml, formatFixed, formatSeeds } from './html-escape.js';
import { renderLineChart } from './svg-line-chart.js';

/** A curve of CURVE_POINTS values, null at the given x. */
function curve(f: (x: number) => number, nullAt: readonly number[]): (number | null)[] {
  return Array.from({ length: CURVE_POINTS }, (_, x) => (nullAt.includes(x) ? null : f(x)));
}

const fgdNulls = [0, 50, 51, 130];
const evilNulls = [5];

const summary: PolicySummary[] = [
  {
    policy: 'FGD',
    seeds: [42, 43],
    unallocatedPctAt100: { mean: 4.5, sd: 0.123 },
    unallocatedPctAt130: { mean: 2.25, sd: 0.05 },
    failedPods: { mean: 12, sd: 1 },
    meanAllocationPct: curve((x) => Math.min(x, 96), fgdNulls),
    meanFragmentRatioPct: curve((x) => x / 10, fgdNulls),
    published: { unallocatedPctAt100: { mean: 4.77, sd: 0.11 }, unallocatedPctAt130: { mean: 2.1, sd: 0.2 } },
  },
  {
    policy: '<x>',
    seeds: [42, 43],
    unallocatedPctAt100: { mean: 9.87, sd: 0.5 },
    unallocatedPctAt130: { mean: 6, sd: 0.25 },
    failedPods: { mean: 30.5, sd: 2 },
    meanAllocationPct: curve((x) => Math.min(x, 90), evilNulls),
    meanFragmentRatioPct: curve((x) => x / 5, evilNulls),
    published: null,
  },
];

const runs: RunResult[] = summary.flatMap((p) =>
  p.seeds.map((seed) => ({
    policy: p.policy,
    seed,
    unallocatedPctAt100: p.unallocatedPctAt100.mean,
    unallocatedPctAt130: p.unallocatedPctAt130.mean,
    failedPods: p.failedPods.mean,
    arrivals: 100,
    wallSeconds: 1,
    allocationPct: p.meanAllocationPct,
    fragmentRatioPct: p.meanFragmentRatioPct,
  })),
);

const report: SimulationReport = {
  cluster: { nodes: 1213, gpus: 6212 },
  inputs: { nodesFile: 'openb_node_list_gpu_node.csv', podsFile: 'openb_pod_list_default.csv', pods: 8152 },
  inflation: 1.3,
  workloadSource: 'online',
  runs,
  summary,
  generatedAt: '2024-01-01T00:00:00.000Z',
};

const html = renderHtmlReport(report);

/** The markup of the n-th <svg> element. */
function svgAt(n: number): string {
  const all = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
  return all[n] ?? '';
}

/** Total number of polyline points of the series with this (escaped) label. */
function pointCount(svg: string, label: string): number {
  const re = new RegExp(`<polyline data-series="${label}" points="([^"]*)"`, 'g');
  return [...svg.matchAll(re)].reduce((n, m) => n + (m[1] ?? '').split(' ').length, 0);
}

describe('renderHtmlReport', () => {
  it('is a complete document with title, inputs and a captioned table', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>gpushare simulation report</title>');
    expect(html).toContain('<h1>gpushare simulation report</h1>');
    for (const s of [
      'openb_node_list_gpu_node.csv',
      'openb_pod_list_default.csv',
      '1213',
      '6212',
      '8152',
      '1.3',
      '<dd>online</dd>',
    ]) {
      expect(html).toContain(s);
    }
    expect(html).toMatch(/<table>\s*<caption>[^<]+<\/caption>/);
  });

  it('shows mean ± SD figures, the published figure or —, and each policy', () => {
    expect(html).toContain('<td class="num">4.50 ± 0.12</td>');
    expect(html).toContain('<td class="num">2.25 ± 0.05</td>');
    expect(html).toContain('<td class="num">4.77 ± 0.11</td>');
    expect(html).toContain('<td class="num">12.00</td>');
    expect(html).toContain('<td class="num">30.50</td>');
    expect(html).toContain('<td class="num">—</td>');
    expect(html).toContain('<th scope="row">FGD</th>');
    expect(html).toContain('<th scope="row">&lt;x&gt;</th>');
    expect(html).toContain('42-43');
  });

  it('is self-contained: no scripts and no URLs at all', () => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain('http');
    expect(html).not.toMatch(/<link|<img|@import|url\((?!#)/);
  });

  it('escapes inserted text', () => {
    expect(html).not.toContain('<x>');
    expect(html).toContain('&lt;x&gt;');
    expect(html).toContain('data-series="&lt;x&gt;"');
  });

  it('has exactly 3 accessible SVG charts', () => {
    expect(html.match(/<svg/g)).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const svg = svgAt(i);
      expect(svg).toMatch(/^<svg [^>]*role="img"[^>]*aria-label="[^"]+"/);
      expect(svg).toMatch(/<title id="[^"]+">[^<]+<\/title>/);
    }
    expect(svgAt(0)).toContain('ideal min(x,100)');
    expect(svgAt(0)).toContain('stroke-dasharray="6 4"');
    expect(svgAt(2)).not.toContain('ideal');
  });

  it('breaks polylines at nulls and keeps one point per non-null x', () => {
    const alloc = svgAt(0);
    // FGD: nulls at 0, 50, 51, 130 -> segments 1..49 and 52..129.
    expect(alloc.match(/<polyline data-series="FGD"/g)).toHaveLength(2);
    expect(pointCount(alloc, 'FGD')).toBe(CURVE_POINTS - fgdNulls.length);
    // <x>: null at 5 -> segments 0..4 and 6..130.
    expect(alloc.match(/<polyline data-series="&lt;x&gt;"/g)).toHaveLength(2);
    expect(pointCount(alloc, '&lt;x&gt;')).toBe(CURVE_POINTS - evilNulls.length);
    expect(pointCount(alloc, 'ideal min\\(x,100\\)')).toBe(CURVE_POINTS);
    expect(pointCount(svgAt(1), 'FGD')).toBe(CURVE_POINTS - fgdNulls.length);
    // Zoom: x = 80..130 only; FGD is null at 130.
    expect(pointCount(svgAt(2), 'FGD')).toBe(50);
    expect(pointCount(svgAt(2), '&lt;x&gt;')).toBe(51);
  });

  it('fits the zoomed y axis to the data', () => {
    // Data in x = 80..130 spans 80..96; tick labels should not reach 0 or 100.
    const labels = [...svgAt(2).matchAll(/text-anchor="end"[^>]*>([^<]+)</g)].map((m) => Number(m[1]));
    expect(Math.min(...labels)).toBeGreaterThanOrEqual(75);
    expect(Math.max(...labels)).toBeLessThanOrEqual(100);
  });
});

describe('helpers', () => {
  it('escapeHtml escapes the five special characters', () => {
    expect(escapeHtml(`a&b<c>"d'`)).toBe('a&amp;b&lt;c&gt;&quot;d&#39;');
  });

  it('formatFixed rounds, drops negative zero and marks non-finite values', () => {
    expect(formatFixed(4.775)).toBe('4.78');
    expect(formatFixed(-0.001)).toBe('0.00');
    expect(formatFixed(Number.NaN)).toBe('n/a');
  });

  it('formatSeeds compacts ranges', () => {
    expect(formatSeeds([51, 42, 43, 44, 45, 46, 47, 48, 49, 50])).toBe('42-51');
    expect(formatSeeds([7, 1, 3, 5, 6])).toBe('1,3,5-7');
    expect(formatSeeds([])).toBe('—');
  });

  it('renderLineChart draws an isolated point as a circle and survives an empty series', () => {
    const svg = renderLineChart({
      id: 't',
      title: 'T',
      xLabel: 'x',
      yLabel: 'y',
      xDomain: [0, 4],
      series: [
        {
          label: 'a',
          color: '#000',
          points: [
            { x: 0, y: 1 },
            { x: 1, y: null },
            { x: 2, y: 2 },
            { x: 3, y: null },
          ],
        },
        { label: 'b', color: '#111', points: [] },
      ],
    });
    expect(svg.match(/<polyline data-series="a"/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(2);
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('Infinity');
  });
});

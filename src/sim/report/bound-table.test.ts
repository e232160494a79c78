import { describe, expect, it } from 'vitest';
import { CURVE_POINTS } from '../simulation-types.js';
import type { RunResult, SimulationReport } from '../simulation-types.js';
import { boundTableRows, formatBoundTable } from './bound-table.js';
import { renderHtmlReport } from './html-report.js';

/** A run whose A(x) is `allocation(x)` everywhere. */
function run(policy: string, seed: number, allocation: (x: number) => number | null): RunResult {
  const allocationPct = Array.from({ length: CURVE_POINTS }, (_, x) => allocation(x));
  return {
    policy,
    seed,
    unallocatedPctAt100: 100 - allocation(100)!,
    unallocatedPctAt130: 100 - allocation(130)!,
    failedPods: 0,
    arrivals: 10,
    wallSeconds: 1,
    allocationPct,
    fragmentRatioPct: allocationPct.map(() => 5),
  };
}

const report: SimulationReport = {
  cluster: { nodes: 2, gpus: 16 },
  inputs: { nodesFile: 'n.csv', podsFile: 'p.csv', pods: 10 },
  inflation: 1.3,
  workloadSource: 'trace',
  runs: [
    run('fgd', 42, (x) => (x === 130 ? null : 95)),
    run('fgd', 43, () => 94),
    run('default', 42, () => 96.5),
    run('default', 43, () => 96),
  ],
  summary: [],
  generatedAt: '2024-01-01T00:00:00.000Z',
  bound: {
    levelsPct: [100, 130],
    seeds: [42, 43],
    unallocatedPctBoundBySeed: [
      [3, 0.5],
      [3.5, null],
    ],
    meanUnallocatedPctBound: [3.25, 0.5],
    seconds: 2,
  },
};

describe('boundTableRows', () => {
  it('shows the mean bound and each policy with its gap, paired by seed and leaving out missing pairs', () => {
    expect(boundTableRows(report)).toEqual([
      ['policy', 'U@100 (gap)', 'U@130 (gap)'],
      ['bound', '3.25', '0.50'],
      // fgd at 100: U 5 and 6 (mean 5.5), gaps 2 and 2.5; at 130 only seed 43 has U (6) and it has no bound.
      ['fgd', '5.50 (+2.25)', '6.00 (n/a)'],
      ['default', '3.75 (+0.50)', '3.75 (+3.00)'],
    ]);
  });

  it('is empty without a bound', () => {
    expect(boundTableRows({ ...report, bound: undefined })).toEqual([]);
    expect(formatBoundTable({ ...report, bound: undefined })).toBe('');
  });
});

describe('formatBoundTable', () => {
  it('aligns the numbers to the right', () => {
    expect(formatBoundTable(report).split('\n')).toEqual([
      'policy    U@100 (gap)   U@130 (gap)',
      '-------  ------------  ------------',
      'bound            3.25          0.50',
      'fgd      5.50 (+2.25)    6.00 (n/a)',
      'default  3.75 (+0.50)  3.75 (+3.00)',
    ]);
  });
});

describe('renderHtmlReport with a bound', () => {
  it('has the bound section and a bound line on both A(x) charts', () => {
    const html = renderHtmlReport(report);
    expect(html).toContain('<h2 id="h-bound">Bound</h2>');
    expect(html).toContain('<td class="num">5.50 (+2.25)</td>');
    expect(html.match(/data-series="bound \(no placement above\)"/g)?.length).toBe(2);
    expect(renderHtmlReport({ ...report, bound: undefined })).not.toContain('h-bound');
  });
});

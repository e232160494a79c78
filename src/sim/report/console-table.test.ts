import { describe, it, expect } from 'vitest';
import type { PolicySummary } from '../simulation-types.js';
import { formatProgressBar, formatSummaryTable } from './console-table.js';

const base = { meanAllocationPct: [], meanFragmentRatioPct: [] };

const summary: PolicySummary[] = [
  {
    ...base,
    policy: 'FGD',
    seeds: [42, 43, 44, 45, 46, 47, 48, 49, 50, 51],
    unallocatedPctAt100: { mean: 4.5, sd: 0.123 },
    unallocatedPctAt130: { mean: 2.25, sd: 0.05 },
    failedPods: { mean: 12, sd: 1 },
    published: { unallocatedPctAt100: { mean: 4.77, sd: 0.11 }, unallocatedPctAt130: { mean: 2.1, sd: 0.2 } },
  },
  {
    ...base,
    policy: 'GpuClustering',
    seeds: [42],
    unallocatedPctAt100: { mean: 21.456, sd: 0 },
    unallocatedPctAt130: { mean: 10, sd: 1.5 },
    failedPods: { mean: 130.25, sd: 0 },
    published: null,
  },
];

describe('formatSummaryTable', () => {
  it('renders exact aligned lines', () => {
    expect(formatSummaryTable(summary).split('\n')).toEqual([
      'policy         seeds   unalloc@100   unalloc@130  published@100  failed pods',
      '-------------  -----  ------------  ------------  -------------  -----------',
      'FGD            42-51   4.50 ± 0.12   2.25 ± 0.05    4.77 ± 0.11        12.00',
      'GpuClustering  42     21.46 ± 0.00  10.00 ± 1.50              —       130.25',
    ]);
  });

  it('renders only the header and rule for an empty summary', () => {
    expect(formatSummaryTable([])).toBe(
      'policy  seeds  unalloc@100  unalloc@130  published@100  failed pods\n' +
        '------  -----  -----------  -----------  -------------  -----------',
    );
  });
});

describe('formatProgressBar', () => {
  it('renders exact strings', () => {
    expect(formatProgressBar(5, 10, 10, 'label')).toBe('[#####-----]  50%  5/10 label');
    expect(formatProgressBar(0, 10, 10, 'FGD seed 42')).toBe('[----------]   0%  0/10 FGD seed 42');
    expect(formatProgressBar(10, 10, 10, 'done')).toBe('[##########] 100%  10/10 done');
    expect(formatProgressBar(29, 100, 20, 'x')).toBe('[#####---------------]  29%  29/100 x');
    expect(formatProgressBar(1, 3, 4, '')).toBe('[#---]  33%  1/3');
  });

  it('clamps out-of-range input', () => {
    expect(formatProgressBar(15, 10, 4, 'a')).toBe('[####] 100%  10/10 a');
    expect(formatProgressBar(-3, 10, 4, 'a')).toBe('[----]   0%  0/10 a');
    expect(formatProgressBar(0, 0, 4, 'a')).toBe('[####] 100%  0/0 a');
    expect(formatProgressBar(1, 2, -5, 'a')).toBe('[]  50%  1/2 a');
  });
});

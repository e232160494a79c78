import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPublishedFigures } from './published-results.js';

describe('loadPublishedFigures', () => {
  it('maps the default trace to our policy names from the shipped CSV', () => {
    const figures = loadPublishedFigures('data/alibaba-gpu-v2023/openb_pod_list_default.csv');
    expect([...figures.keys()]).toEqual(['random', 'dot-product', 'gpu-clustering', 'gpu-packing', 'best-fit', 'fgd']);
    expect(figures.get('fgd')).toEqual({
      unallocatedPctAt100: { mean: 4.773, sd: 0.106 },
      unallocatedPctAt130: { mean: 4.609, sd: 0.082 },
    });
    expect(figures.get('best-fit')?.unallocatedPctAt100).toEqual({ mean: 7.138, sd: 0.144 });
    expect(figures.get('default')).toBeUndefined();
  });

  it('matches on the basename without .csv, whatever the folder', () => {
    const figures = loadPublishedFigures('/elsewhere/openb_pod_list_gpushare40.csv');
    expect(figures.get('fgd')?.unallocatedPctAt100).toEqual({ mean: 6.039, sd: 0.074 });
    expect(loadPublishedFigures('openb_pod_list_multigpu20').get('best-fit')?.unallocatedPctAt130).toEqual({
      mean: 6.067,
      sd: 0.23,
    });
  });

  it('returns an empty map for a trace the CSV does not cover', () => {
    expect(loadPublishedFigures('/tmp/my_pods.csv').size).toBe(0);
  });

  it('reads another CSV when given, and names the line of a bad number', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpushare-published-'));
    const csv = join(dir, 'summary.csv');
    try {
      const header =
        'workload,sc_policy,alloc_pct_at_arrive100_sd,unalloc_pct_at_arrive100_mean,' +
        'alloc_pct_at_arrive130_sd,unalloc_pct_at_arrive130_mean';
      writeFileSync(csv, `${header}\nmine,06-FGD,0.5,3,0.25,2\nmine,99-Other,1,1,1,1\nmine,05-BestFit,x,1,1,1\n`);
      expect(() => loadPublishedFigures('mine.csv', csv)).toThrow(
        `${csv}:4 field 'alloc_pct_at_arrive100_sd': expected a number, found 'x'`,
      );
      writeFileSync(csv, `${header}\nmine,06-FGD,0.5,3,0.25,2\nmine,99-Other,1,1,1,1\n`);
      expect([...loadPublishedFigures('mine.csv', csv)]).toEqual([
        ['fgd', { unallocatedPctAt100: { mean: 3, sd: 0.5 }, unallocatedPctAt130: { mean: 2, sd: 0.25 } }],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

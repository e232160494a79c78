import { beforeAll, describe, expect, it } from 'vitest';
import { POLICY_NAMES } from '../../src/core/index.js';
import { compareWithGolden, loadGoldenContext, type GoldenContext } from './golden-check.js';

// Seed 42 of every policy here; every seed 42-51 runs in the slow suite (test/slow/).
describe('placement decisions are those of the golden file (default trace, seed 42)', () => {
  let ctx: GoldenContext;
  beforeAll(async () => {
    ctx = await loadGoldenContext();
  });

  it('covers the seven policies and seeds 42-51', () => {
    expect(ctx.golden.index.runs.length).toBe(70);
    expect(new Set(ctx.golden.index.runs.map((r) => r.key.split('/')[0]))).toEqual(new Set(POLICY_NAMES));
  });

  for (const policy of POLICY_NAMES) {
    it(`${policy}: every arrival placed as recorded`, () => {
      expect(compareWithGolden(ctx, policy, 42)).toBeNull();
    });
  }
});

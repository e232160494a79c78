import { beforeAll, describe, expect, it } from 'vitest';
import { POLICY_NAMES } from '../../src/core/index.js';
import { GOLDEN_SETUP } from '../../src/sim/golden/golden-setup.js';
import { compareWithGolden, loadGoldenContext, type GoldenContext } from '../golden/golden-check.js';

describe('placement decisions are those of the golden file (default trace, seeds 42-51)', () => {
  let ctx: GoldenContext;
  beforeAll(async () => {
    ctx = await loadGoldenContext();
  });

  for (const policy of POLICY_NAMES) {
    it(`${policy}: every arrival of every seed placed as recorded`, () => {
      const diverged = GOLDEN_SETUP.seeds.map((seed) => compareWithGolden(ctx, policy, seed)).filter((m) => m !== null);
      expect(diverged).toEqual([]);
    });
  }
});

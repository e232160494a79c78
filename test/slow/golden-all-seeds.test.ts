import { beforeAll, describe, expect, it } from 'vitest';
import { POLICY_NAMES } from '../../src/core/index.js';
import { GOLDEN_SETUP } from '../../src/sim/golden/golden-setup.js';
import { compareWithGolden, loadGoldenContext, type GoldenContext } from '../golden/golden-check.js';

describe.each(POLICY_NAMES)('placement decisions of %s are those of the golden file (default trace)', (policy) => {
  let ctx: GoldenContext;
  beforeAll(async () => {
    ctx = await loadGoldenContext();
  });

  it.each(GOLDEN_SETUP.seeds)('seed %i: every arrival placed as recorded', (seed) => {
    expect(compareWithGolden(ctx, policy, seed)).toBeNull();
  });
});

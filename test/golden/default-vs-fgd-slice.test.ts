/**
 * The slice of the default-vs-fgd check that `npm test` runs (the whole check is in the slow suite,
 * test/slow/default-vs-fgd-*.test.ts): the model-constrained variant where the policy's scarcity
 * weighting matters most, `prodspec:25` (synth seed 42), on seeds 42 and 43.
 */
import { describeDefaultVsFgd } from '../support/default-vs-fgd.js';

describeDefaultVsFgd(
  [{ name: 'prodspec:25 (synth seed 42)', variant: { kind: 'prodspec', constrainedPct: 25 }, synthSeed: 42 }],
  [42, 43],
);

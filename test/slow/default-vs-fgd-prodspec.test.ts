/**
 * `default` vs `fgd` on 10 model-constrained variants (`prodspec` at 5, 10, 20, 25 and 33% of GPU
 * tasks, two synth seeds each), seeds 42-51 (test/support/default-vs-fgd.ts).
 */
import { describeDefaultVsFgd, variantCases } from '../support/default-vs-fgd.js';

describeDefaultVsFgd(variantCases((constrainedPct) => ({ kind: 'prodspec', constrainedPct }), [5, 10, 20, 25, 33]));

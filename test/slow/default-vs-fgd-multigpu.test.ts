/**
 * `default` vs `fgd` on 10 multi-GPU-heavy variants (`multigpu` at 30, 35, 40, 45 and 50% of the
 * GPU request, two synth seeds each), seeds 42-51 (test/support/default-vs-fgd.ts).
 */
import { describeDefaultVsFgd, variantCases } from '../support/default-vs-fgd.js';

describeDefaultVsFgd(variantCases((multiGpuPct) => ({ kind: 'multigpu', multiGpuPct }), [30, 35, 40, 45, 50]));

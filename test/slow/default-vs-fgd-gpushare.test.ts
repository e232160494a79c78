/**
 * `default` vs `fgd` on 10 shared-heavy variants (`gpushare` at 20, 40, 60, 80 and 100% of the GPU
 * request, two synth seeds each), seeds 42-51 (test/support/default-vs-fgd.ts).
 */
import { describeDefaultVsFgd, variantCases } from '../support/default-vs-fgd.js';

describeDefaultVsFgd(variantCases((sharingGpuPct) => ({ kind: 'gpushare', sharingGpuPct }), [20, 40, 60, 80, 100]));

/**
 * `default` vs `fgd` on the three shipped pod lists, seeds 42-51 (test/support/default-vs-fgd.ts);
 * on the default list `default` must also stay at or below its published 4.32.
 */
import { describeDefaultVsFgd } from '../support/default-vs-fgd.js';

describeDefaultVsFgd([
  { name: 'default', podsFile: 'openb_pod_list_default.csv', defaultAtMost: 4.32 },
  { name: 'gpushare40', podsFile: 'openb_pod_list_gpushare40.csv' },
  { name: 'multigpu20', podsFile: 'openb_pod_list_multigpu20.csv' },
]);

/**
 * The one place where the timeline replay gets the core APIs that are still being written: the
 * queue order (`src/core/queue/queue-order.ts`), the preemption planner
 * (`src/core/preemption/plan-preemption.ts`) and `gpuEquivalents`
 * (`src/core/fairness/gpu-equivalents.ts`). Until they are exported from `src/core/index.ts`,
 * these re-exports point at local stand-ins with the same signatures; switching is a change of
 * import here (and of {@link CORE_API_SOURCE}).
 */
export { compareQueueEntries, orderQueue, type QueueEntry, type QueueOrderContext } from './local-queue-order.js';
export {
  defaultPreemptible, planPreemption,
  type PreemptionCandidate, type PreemptionOptions, type PreemptionPlan, type PreemptionRequest, type Preemptor,
} from './local-plan-preemption.js';
export { gpuEquivalents } from './local-gpu-equivalents.js';

/** Where each of the APIs above comes from (reported in the JSON output): `sim-stand-in` or `core`. */
export const CORE_API_SOURCE = {
  queueOrder: 'sim-stand-in',
  preemptionPlanner: 'sim-stand-in',
  gpuEquivalents: 'sim-stand-in',
} as const;

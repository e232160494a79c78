/**
 * gpushare's `default` policy (docs/default-policy.md). Placeholder: FGD over an online-learned workload.
 */
import type { SchedulingProfile } from '../../framework/extension-points.js';
import { OnlineWorkload } from '../../workload/online-workload.js';
import { evaluateFgd } from '../fgd-score/fgd-score.js';
import { createGpuFit } from '../gpu-fit/gpu-fit.js';
import { createNodeResourcesFit } from '../node-resources-fit/node-resources-fit.js';

/** Plugin name. */
export const NAME = 'default-score';

/** Builds the `default` profile. */
export function createDefaultPolicy(_nodeCount: number): SchedulingProfile {
  const learner = new OnlineWorkload();
  return {
    name: 'default',
    filters: [createNodeResourcesFit(), createGpuFit()],
    scores: [{
      weight: 1000,
      plugin: {
        name: NAME,
        cacheable: true,
        cacheEpoch: () => learner.epoch(),
        score: ({ pod }, node) => evaluateFgd(node, pod, learner.workload()).score,
      },
    }],
    gpuSelect: { name: NAME, selectGpus: ({ pod }, node) => evaluateFgd(node, pod, learner.workload()).gpuIndices },
    reserve: [],
    observe: (pod) => learner.observe(pod),
  };
}

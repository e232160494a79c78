/**
 * gpushare's `default` policy (docs/default-policy.md): FGD's fragmentation gradient with two
 * tie-breaks that keep whole GPUs and whole nodes free, over a target workload that is either
 * given (a trace) or learned online from the requests seen.
 *
 * Node score, compared lexicographically (encoded as one number, integer part first):
 * 1. the FGD score class trunc(100·σ(−Δ/1000)) of the best GPU choice (Weng et al., ATC'23);
 * 2. +0.5 when a GPU pod would land on a node that already runs GPU work (consolidate, so empty
 *    nodes stay whole for multi-GPU pods; CPU-only pods are steered by the gradient alone);
 * 3. +0.25 when a sharing pod would land on a GPU that is already shared (keep whole GPUs whole).
 * Remaining ties go to the lowest seeded node rank, as in FGD.
 */
import { gpuCanHost } from '../../model/allocation.js';
import type { NodeState } from '../../model/node.js';
import { GPU_MILLI_PER_GPU } from '../../model/quantity.js';
import { isSharingRequest, type PodRequest } from '../../model/request.js';
import { nodeFragmentationMilli } from '../../fragmentation/node-fragmentation.js';
import type { TargetWorkload } from '../../fragmentation/target-workload.js';
import type { SchedulingProfile } from '../../framework/extension-points.js';
import { OnlineWorkload, type OnlineWorkloadOptions } from '../../workload/online-workload.js';
import { bestFitGpus } from '../best-fit-gpu/best-fit-gpu.js';
import { fgdScoreOfDelta } from '../fgd-score/fgd-score.js';
import { createGpuFit } from '../gpu-fit/gpu-fit.js';
import { createNodeResourcesFit } from '../node-resources-fit/node-resources-fit.js';

/** Plugin name. */
export const NAME = 'default-score';

/** Bonus for a GPU pod on a node that already carries GPU work. */
export const USED_NODE_BONUS = 0.5;
/** Bonus for a sharing pod on a GPU that is already partly allocated. */
export const SHARED_GPU_BONUS = 0.25;

/** The default policy's score and GPU choice for one node. */
export interface DefaultEvaluation {
  /** FGD class (integer 0..100) plus tie-break bonuses (< 1 in total). */
  readonly score: number;
  readonly gpuIndices: number[];
}

/**
 * Evaluates the default policy on one node without changing it.
 * @param workload the target workload M used for the fragmentation measure
 */
export function evaluateDefault(node: NodeState, pod: PodRequest, workload: TargetWorkload): DefaultEvaluation {
  const model = node.spec.gpuModel;
  const before = nodeFragmentationMilli(node.freeCpuMilli, model, node.gpuFreeMilli, workload);
  const cpuAfter = node.freeCpuMilli - pod.cpuMilli;
  const scratch = Int32Array.from(node.gpuFreeMilli);
  const nodeBonus = pod.gpuCount > 0 && !node.isGpuIdle() ? USED_NODE_BONUS : 0;
  if (isSharingRequest(pod)) {
    let bestScore = -1;
    let bestGpu = -1;
    for (let j = 0; j < scratch.length; j++) {
      if (!gpuCanHost(node, j, pod)) continue;
      const wasShared = scratch[j]! < GPU_MILLI_PER_GPU;
      scratch[j]! -= pod.gpuMilli;
      const after = nodeFragmentationMilli(cpuAfter, model, scratch, workload);
      scratch[j]! += pod.gpuMilli;
      const score = fgdScoreOfDelta(after - before) + (wasShared ? SHARED_GPU_BONUS : 0);
      if (score > bestScore) {
        bestScore = score;
        bestGpu = j;
      }
    }
    return { score: bestScore + nodeBonus, gpuIndices: [bestGpu] };
  }
  const gpuIndices = bestFitGpus(node, pod);
  for (const j of gpuIndices) scratch[j]! -= pod.gpuMilli;
  const after = nodeFragmentationMilli(cpuAfter, model, scratch, workload);
  return { score: fgdScoreOfDelta(after - before) + nodeBonus, gpuIndices };
}

/** Options of the default policy. */
export interface DefaultPolicyOptions {
  /** A workload known in advance; when absent the policy learns one online. */
  readonly targetWorkload?: TargetWorkload;
  /** Settings of the online learner (used only without `targetWorkload`). */
  readonly online?: OnlineWorkloadOptions;
}

/** Builds the `default` profile. */
export function createDefaultPolicy(options: DefaultPolicyOptions = {}): SchedulingProfile {
  const learner = options.targetWorkload ? null : new OnlineWorkload(options.online);
  const fixed = options.targetWorkload;
  const workload = (): TargetWorkload => (learner ? learner.workload() : fixed!);
  return {
    name: 'default',
    filters: [createNodeResourcesFit(), createGpuFit()],
    scores: [{
      weight: 1000,
      plugin: {
        name: NAME,
        cacheable: true,
        cacheEpoch: () => learner?.epoch() ?? 0,
        score: ({ pod }, node) => evaluateDefault(node, pod, workload()).score,
      },
    }],
    gpuSelect: { name: NAME, selectGpus: ({ pod }, node) => evaluateDefault(node, pod, workload()).gpuIndices },
    reserve: [],
    ...(learner ? { observe: (pod: PodRequest) => learner.observe(pod) } : {}),
  };
}

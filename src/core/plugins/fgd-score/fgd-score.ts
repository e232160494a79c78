/**
 * FGD: fragmentation gradient descent (Weng et al., USENIX ATC'23 §4; authors'
 * `pkg/simulator/plugin/fgd_score.go`, as restated in docs/simulator.md "Policies"). A node scores
 * trunc(100·σ((F_n(M) − F_n′(M))/1000)), σ the logistic function, n′ the node after a hypothetical
 * placement: the placement that increases the expected fragmentation least wins. A sharing pod is
 * tried on every GPU that can host it and gets the lowest-index GPU reaching the best integer
 * score; other pods use the best-fit GPU set.
 */
import type { NodeState } from '../../framework/node-state.js';
import { isSharingRequest, type ResourceDemand } from '../../framework/resource-demand.js';
import { gpuCanHost } from '../../framework/allocation.js';
import { nodeFragmentationMilli } from '../../fragmentation/node-fragmentation.js';
import type { TargetWorkload } from '../../fragmentation/target-workload.js';
import type { GpuSelectPlugin, ScorePlugin } from '../../framework/extension-points.js';
import { bestFitGpus } from '../best-fit-gpu/best-fit-gpu.js';

/** Plugin name. */
export const NAME = 'fgd-score';

/** The FGD score and GPU choice of `pod` on `node`. */
export interface FgdEvaluation {
  /** Integer 0..100. */
  readonly score: number;
  /** Device indices the pod would get. */
  readonly gpuIndices: number[];
}

/** Maps a fragmentation change Δ (milli-GPU, positive = more fragment) to the integer FGD score. */
export function fgdScoreOfDelta(deltaMilli: number): number {
  return Math.trunc(100 * (1 / (1 + Math.exp(deltaMilli / 1000))));
}

/**
 * A fragmentation measure of a node state, in milli-GPU (e.g. F_n(M) for a fixed M). It must not
 * depend on the order of the GPUs (only on the multiset of their free amounts): evaluateGradient
 * tries a sharing pod once per distinct free amount.
 */
export type NodeFragmentation = (
  freeCpuMilli: number,
  gpuModel: string | null,
  gpuFreeMilli: ArrayLike<number>,
) => number;

/**
 * Scores one node by the fragmentation gradient of a measure, FGD-style, without changing the node
 * (a scratch copy is used): a sharing pod is tried on every GPU that can host it and gets the
 * lowest-index GPU reaching the best integer score; other pods use the best-fit GPU set.
 */
export function evaluateGradient(
  node: NodeState,
  pod: ResourceDemand,
  fragmentation: NodeFragmentation,
): FgdEvaluation {
  const model = node.spec.gpuModel;
  const before = fragmentation(node.freeCpuMilli, model, node.gpuFreeMilli);
  const cpuAfter = node.freeCpuMilli - pod.cpuMilli;
  const scratch = Int32Array.from(node.gpuFreeMilli);
  if (isSharingRequest(pod)) {
    let bestScore = -1;
    let bestGpu = -1;
    // A GPU with the same free milli as one tried before gives the same multiset of free amounts,
    // so the same fragmentation and score, which cannot beat the earlier (lower-index) GPU.
    const tried: number[] = [];
    for (let j = 0; j < scratch.length; j++) {
      if (!gpuCanHost(node, j, pod)) continue;
      if (tried.includes(scratch[j]!)) continue;
      tried.push(scratch[j]!);
      scratch[j]! -= pod.gpuMilli;
      const after = fragmentation(cpuAfter, model, scratch);
      scratch[j]! += pod.gpuMilli;
      const score = fgdScoreOfDelta(after - before);
      if (score > bestScore) {
        bestScore = score;
        bestGpu = j;
      }
    }
    return { score: bestScore, gpuIndices: [bestGpu] };
  }
  const gpuIndices = bestFitGpus(node, pod);
  for (const j of gpuIndices) scratch[j]! -= pod.gpuMilli;
  return { score: fgdScoreOfDelta(fragmentation(cpuAfter, model, scratch) - before), gpuIndices };
}

/**
 * Evaluates FGD for one node with the paper's measure F_n(M). Pure: the node is not changed.
 * @param workload the target workload M
 */
export function evaluateFgd(node: NodeState, pod: ResourceDemand, workload: TargetWorkload): FgdEvaluation {
  return evaluateGradient(node, pod, (cpu, model, gpus) => nodeFragmentationMilli(cpu, model, gpus, workload));
}

/** Creates the FGD score and GPU-selection plugins over a fixed target workload. */
export function createFgd(workload: TargetWorkload): { score: ScorePlugin; gpuSelect: GpuSelectPlugin } {
  return {
    score: { name: NAME, cacheable: true, score: ({ pod }, node) => evaluateFgd(node, pod, workload).score },
    gpuSelect: { name: NAME, selectGpus: ({ pod }, node) => evaluateFgd(node, pod, workload).gpuIndices },
  };
}

/**
 * gpushare's `default` policy (docs/default-policy.md): fragmentation gradient descent over a
 * blended fragmentation measure, with a tie-break that keeps whole nodes free, over a target
 * workload that is either given (a trace) or learned online from the requests seen.
 *
 * 1. Fragmentation F = (1 − α)·F_FGD + α·F_capacity (α = 0.1): FGD's one-step measure (Weng et
 *    al., ATC'23) plus the capacity-aware one, which also counts idle GPU that CPU or slot sizes
 *    will strand after the next few placements (capacity-fragmentation.ts).
 * 2. Node score = the FGD score class trunc(100·σ(−Δ/1000)) of the best GPU choice, Δ = F(n′) − F(n).
 *    M is weighted by scarcity: a type allowed only on some GPU models counts C / C_A times its
 *    popularity (all GPUs over the GPUs it may use), so unconstrained pods leave scarce models to
 *    the pods that need them (scarcity-weights.ts).
 * 3. +0.5 when a GPU pod would land on a node that already runs GPU work: among nodes of the same
 *    class, consolidate, so empty nodes stay whole for multi-GPU pods (CPU-only pods are steered by
 *    the gradient alone).
 * Remaining ties go to the lowest seeded node rank, as in FGD.
 */
import type { NodeState } from '../../framework/node-state.js';
import type { ResourceDemand } from '../../framework/resource-demand.js';
import { blendedFragmentationMilli } from '../../fragmentation/blended-fragmentation.js';
import type { TargetWorkload } from '../../fragmentation/target-workload.js';
import type { CycleContext, SchedulingProfile } from '../../framework/extension-points.js';
import { gpuCountByModel, weightByScarcity } from '../../fragmentation/scarcity-weights.js';
import { OnlineWorkload, type OnlineWorkloadOptions } from '../../workload/online-workload.js';
import { evaluateGradient } from '../fgd-score/fgd-score.js';
import { createGpuFit } from '../gpu-fit/gpu-fit.js';
import { createNodeResourcesFit } from '../node-resources-fit/node-resources-fit.js';

/** Plugin name. */
export const NAME = 'default-score';

/** Tunable weights of the default policy (the documented defaults are the shipped policy). */
export interface DefaultWeights {
  /** Share α of the capacity-aware fragmentation in the blended measure (1 − α is FGD's). @defaultValue 0.1 */
  readonly capacityShare: number;
  /**
   * Score bonus (< 1, so it only orders nodes within one FGD score class) for a GPU pod on a node that already carries
   * GPU work. @defaultValue 0.5
   */
  readonly usedNodeBonus: number;
}

/** The shipped weights. */
export const DEFAULT_WEIGHTS: DefaultWeights = { capacityShare: 0.1, usedNodeBonus: 0.5 };

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
export function evaluateDefault(
  node: NodeState,
  pod: ResourceDemand,
  workload: TargetWorkload,
  weights: DefaultWeights = DEFAULT_WEIGHTS,
): DefaultEvaluation {
  const alpha = weights.capacityShare;
  const { score, gpuIndices } = evaluateGradient(node, pod, (cpu, model, gpus) =>
    blendedFragmentationMilli(cpu, model, gpus, workload, alpha),
  );
  const nodeBonus = pod.gpuCount > 0 && !node.isGpuIdle() ? weights.usedNodeBonus : 0;
  return { score: score + nodeBonus, gpuIndices };
}

/** Options of the default policy. */
export interface DefaultPolicyOptions {
  /** A workload known in advance; when absent the policy learns one online. */
  readonly targetWorkload?: TargetWorkload;
  /** Settings of the online learner (used only without `targetWorkload`). */
  readonly online?: OnlineWorkloadOptions;
  /** @defaultValue DEFAULT_WEIGHTS */
  readonly weights?: DefaultWeights;
}

/**
 * The workload the policy scores with: `base()` weighted by scarcity over the cluster's GPU models
 * (scarcity-weights.ts), rebuilt only when the base workload or the node list changes. `epoch()`
 * grows when the node list changes (a change of the base workload moves the learner's epoch), so
 * cached scores of an older weighting are not reused.
 */
function scarcityWeighted(base: () => TargetWorkload): {
  workload(nodes: readonly NodeState[]): TargetWorkload;
  epoch(): number;
} {
  let nodesSeen: readonly NodeState[] | null = null;
  let nodeCount = -1;
  let gpusByModel = new Map<string, number>();
  let baseSeen: TargetWorkload | null = null;
  let weighted: TargetWorkload | null = null;
  let epoch = 0;
  return {
    workload(nodes) {
      const current = base();
      const nodesChanged = nodes !== nodesSeen || nodes.length !== nodeCount;
      if (nodesChanged) {
        // The first node list is no change: nothing was scored before it.
        if (nodesSeen !== null) epoch++;
        nodesSeen = nodes;
        nodeCount = nodes.length;
        gpusByModel = gpuCountByModel(nodes);
      }
      if (nodesChanged || current !== baseSeen || weighted === null) {
        baseSeen = current;
        weighted = weightByScarcity(current, gpusByModel);
      }
      return weighted;
    },
    epoch: () => epoch,
  };
}

/** Builds the `default` profile. */
export function createDefaultPolicy(options: DefaultPolicyOptions = {}): SchedulingProfile {
  const learner = options.targetWorkload ? null : new OnlineWorkload(options.online);
  const fixed = options.targetWorkload;
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const scarce = scarcityWeighted(() => (learner ? learner.workload() : fixed!));
  const workload = (ctx: CycleContext): TargetWorkload => scarce.workload(ctx.cluster.nodes);
  return {
    name: 'default',
    filters: [createNodeResourcesFit(), createGpuFit()],
    scores: [
      {
        weight: 1000,
        plugin: {
          name: NAME,
          cacheable: true,
          cacheEpoch: () => (learner?.epoch() ?? 0) + scarce.epoch(),
          preScore: (ctx) => void scarce.workload(ctx.cluster.nodes),
          score: (ctx, node) => evaluateDefault(node, ctx.pod, workload(ctx), weights).score,
        },
      },
    ],
    gpuSelect: {
      name: NAME,
      selectGpus: (ctx, node) => evaluateDefault(node, ctx.pod, workload(ctx), weights).gpuIndices,
    },
    reserve: [],
    ...(learner ? { observe: (pod: ResourceDemand) => learner.observe(pod) } : {}),
  };
}

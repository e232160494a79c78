/**
 * The extension points of one scheduling cycle, Kubernetes-style (kube-scheduler framework
 * `interface.go`), plus a GPU-level choice inside the chosen node (as KAI's gpupack/gpuspread).
 *
 * Cycle order for one pod: Filter (every node) → PreScore → Score (every feasible node) →
 * NormalizeScore → pick the highest total, ties to the lowest node rank → SelectGpus on the
 * winner → (when the caller commits) Reserve.
 */
import type { Status } from '../model/status.js';
import type { NodeState } from './node-state.js';
import type { ResourceDemand } from './resource-demand.js';
import type { Rng } from '../random/rng.js';
import type { CycleState } from './cycle-state.js';

/** The nodes a cycle chooses among, with the seeded tie-break order. */
export interface SchedulingCluster {
  readonly nodes: readonly NodeState[];
  /** Tie-break rank per node index (a permutation of 0..n-1): among equal scores the lowest rank wins. */
  readonly nodeRank: Int32Array;
}

/** What every plugin call receives. */
export interface CycleContext {
  readonly cluster: SchedulingCluster;
  readonly pod: ResourceDemand;
  /** Small integer identifying `pod`'s scheduling shape (equal shapes score equally on equal nodes). */
  readonly shapeId: number;
  readonly state: CycleState;
  readonly rng: Rng;
}

/** Filter: may the pod run on this node now? Returns null for yes, else why not (a coded Status, status.ts). */
export interface FilterPlugin {
  readonly name: string;
  filter(ctx: CycleContext, node: NodeState): Status | null;
}

/** Score: how good is this feasible node, an integer 0..100 (higher is better). */
export interface ScorePlugin {
  readonly name: string;
  /**
   * True when `score` depends only on the node's state, the pod's scoring shape (CPU, GPU count,
   * per-GPU milli and memory — see `requestShapeKey`; not host memory or allowed models, which only
   * filter) and `cacheEpoch`, so the framework may reuse it until the node's version changes.
   */
  readonly cacheable: boolean;
  /** Changes whenever something outside node and pod that the score reads changes (e.g. a learned workload). */
  cacheEpoch?(): number;
  /** Runs once per cycle before Score, with all feasible nodes. */
  preScore?(ctx: CycleContext, feasible: readonly NodeState[]): void;
  score(ctx: CycleContext, node: NodeState): number;
  /** Rewrites `scores[i]` (score of `feasible[i]`) in place, e.g. min–max normalisation. */
  normalize?(ctx: CycleContext, feasible: readonly NodeState[], scores: Float64Array): void;
}

/** SelectGpus: which GPUs (device indices) of the chosen node the pod gets. */
export interface GpuSelectPlugin {
  readonly name: string;
  /** Must return `pod.gpuCount` distinct indices that can host the pod (empty for CPU-only pods). */
  selectGpus(ctx: CycleContext, node: NodeState): number[];
}

/** Reserve: told when a placement is committed (and un-committed), to keep plugin-private state. */
export interface ReservePlugin {
  readonly name: string;
  reserve(pod: ResourceDemand, node: NodeState, gpuIndices: readonly number[]): void;
  unreserve(pod: ResourceDemand, node: NodeState, gpuIndices: readonly number[]): void;
}

/** A weighted score plugin in a profile. */
export interface WeightedScore {
  readonly plugin: ScorePlugin;
  readonly weight: number;
}

/** One scheduling policy: the plugins enabled at each extension point. */
export interface SchedulingProfile {
  readonly name: string;
  readonly filters: readonly FilterPlugin[];
  readonly scores: readonly WeightedScore[];
  readonly gpuSelect: GpuSelectPlugin;
  readonly reserve: readonly ReservePlugin[];
  /** Told about every arriving pod before it is scheduled (e.g. to learn the workload online). */
  readonly observe?: (pod: ResourceDemand) => void;
}

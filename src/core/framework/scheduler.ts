/**
 * Runs scheduling cycles for one profile over one cluster: `schedule(pod)` decides, `commit`
 * applies the decision to the node states. Deterministic given the cluster, the tie-break ranks,
 * the profile and the rng.
 */
import { allocate, release } from './allocation.js';
import type { StatusCode } from '../model/status.js';
import type { NodeState } from './node-state.js';
import { requestShapeKey, type ResourceDemand } from './resource-demand.js';
import type { Rng } from '../random/rng.js';
import { CycleState } from './cycle-state.js';
import type { CycleContext, SchedulingCluster, SchedulingProfile } from './extension-points.js';
import { ScoreCache } from './score-cache.js';

/** Outcome of one cycle: a placement, or why there is none (an expected outcome, not an error). */
export type Decision =
  | { readonly kind: 'placed'; readonly nodeIndex: number; readonly gpuIndices: readonly number[] }
  | {
      readonly kind: 'unschedulable';
      /**
       * Nodes refused, by the code of the first failing filter's Status; counted when first read, against the nodes as
       * they are then (read it before the next commit).
       */
      readonly reasons: Readonly<Partial<Record<StatusCode, number>>>;
    };

/** A stateful scheduler for one cluster and profile (holds the score cache and shape ids). */
export class Scheduler {
  /** One cache per score plugin of the profile. */
  private readonly caches: ScoreCache[];
  private readonly shapeIds = new Map<string, number>();
  private feasible: NodeState[] = [];
  private scoreBuffer = new Float64Array(0);
  private totalBuffer = new Float64Array(0);

  constructor(
    readonly cluster: SchedulingCluster,
    readonly profile: SchedulingProfile,
    private readonly rng: Rng,
  ) {
    this.caches = profile.scores.map(() => new ScoreCache(cluster.nodes.length));
  }

  /**
   * Decides where `pod` goes without changing any node.
   * @returns `placed` with the node and GPU indices, or `unschedulable` with per-reason node counts
   */
  schedule(pod: ResourceDemand): Decision {
    this.profile.observe?.(pod);
    const ctx = this.context(pod);
    const feasible = this.filter(ctx);
    if (feasible.length === 0) {
      // Counted when read: most callers only need to know that nothing fits, and counting runs
      // every filter on every node again.
      let reasons: Partial<Record<StatusCode, number>> | null = null;
      const count = (): Partial<Record<StatusCode, number>> => (reasons ??= this.countReasons(ctx));
      return {
        kind: 'unschedulable',
        get reasons() {
          return count();
        },
      };
    }
    const winner = feasible.length === 1 ? feasible[0]! : this.pickBest(ctx, feasible);
    const gpuIndices = pod.gpuCount === 0 ? [] : this.profile.gpuSelect.selectGpus(ctx, winner);
    return { kind: 'placed', nodeIndex: winner.index, gpuIndices };
  }

  /**
   * Applies a `placed` decision: allocates on the node and runs Reserve plugins. @throws InvariantViolation on
   * over-commit
   */
  commit(pod: ResourceDemand, nodeIndex: number, gpuIndices: readonly number[]): void {
    const node = this.cluster.nodes[nodeIndex]!;
    allocate(node, pod, gpuIndices);
    for (const plugin of this.profile.reserve) plugin.reserve(pod, node, gpuIndices);
  }

  /** Reverses `commit` (a departure or an eviction). */
  uncommit(pod: ResourceDemand, nodeIndex: number, gpuIndices: readonly number[]): void {
    const node = this.cluster.nodes[nodeIndex]!;
    release(node, pod, gpuIndices);
    for (const plugin of this.profile.reserve) plugin.unreserve(pod, node, gpuIndices);
  }

  private context(pod: ResourceDemand): CycleContext {
    const key = requestShapeKey(pod);
    let shapeId = this.shapeIds.get(key);
    if (shapeId === undefined) {
      shapeId = this.shapeIds.size;
      this.shapeIds.set(key, shapeId);
    }
    return { cluster: this.cluster, pod, shapeId, state: new CycleState(), rng: this.rng };
  }

  private filter(ctx: CycleContext): NodeState[] {
    const feasible = this.feasible;
    feasible.length = 0;
    const filters = this.profile.filters;
    for (const node of this.cluster.nodes) {
      let ok = true;
      for (let f = 0; f < filters.length && ok; f++) ok = filters[f]!.filter(ctx, node) === null;
      if (ok) feasible.push(node);
    }
    return feasible;
  }

  private countReasons(ctx: CycleContext): Partial<Record<StatusCode, number>> {
    const reasons: Partial<Record<StatusCode, number>> = {};
    for (const node of this.cluster.nodes) {
      for (const f of this.profile.filters) {
        const reason = f.filter(ctx, node);
        if (reason !== null) {
          reasons[reason.code] = (reasons[reason.code] ?? 0) + 1;
          break;
        }
      }
    }
    return reasons;
  }

  /**
   * `schedule` among `nodes` only (a placement restricted to one node of a large cluster, such as
   * the Kubernetes extender's bind): its cost follows their number, not the cluster's.
   * @returns `placed`, or `unschedulable` without per-reason counts
   */
  scheduleAmong(pod: ResourceDemand, nodes: readonly NodeState[]): Decision {
    this.profile.observe?.(pod);
    const ctx = this.context(pod);
    const filters = this.profile.filters;
    const feasible = nodes.filter((node) => filters.every((f) => f.filter(ctx, node) === null));
    if (feasible.length === 0) return { kind: 'unschedulable', reasons: {} };
    const winner = feasible.length === 1 ? feasible[0]! : this.pickBest(ctx, feasible);
    const gpuIndices = pod.gpuCount === 0 ? [] : this.profile.gpuSelect.selectGpus(ctx, winner);
    return { kind: 'placed', nodeIndex: winner.index, gpuIndices };
  }

  /**
   * Which of `nodes` `pod` fits on now, each with the profile's total score there (higher is
   * better), without changing any node or drawing from the rng: the ranking `schedule` picks its
   * winner from (the Kubernetes extender's filter and prioritize). Looks at `nodes` only, so its
   * cost follows their number, not the cluster's. Does not feed the profile's `observe`.
   * @returns the feasible ones among `nodes`, in the order given, with their totals
   */
  rankAmong(
    pod: ResourceDemand,
    nodes: readonly NodeState[],
  ): { readonly nodeIndex: number; readonly total: number }[] {
    const ctx = this.context(pod);
    const filters = this.profile.filters;
    const feasible = nodes.filter((node) => {
      for (const f of filters) if (f.filter(ctx, node) !== null) return false;
      return true;
    });
    if (feasible.length === 0) return [];
    const totals = this.totals(ctx, feasible);
    return feasible.map((node, i) => ({ nodeIndex: node.index, total: totals[i]! }));
  }

  private pickBest(ctx: CycleContext, feasible: readonly NodeState[]): NodeState {
    const n = feasible.length;
    const totals = this.totals(ctx, feasible);
    const rank = this.cluster.nodeRank;
    let best = 0;
    for (let i = 1; i < n; i++) {
      const d = totals[i]! - totals[best]!;
      if (d > 0 || (d === 0 && rank[feasible[i]!.index]! < rank[feasible[best]!.index]!)) best = i;
    }
    return feasible[best]!;
  }

  /** The weighted score total of each feasible node (a view of a buffer reused by the next call). */
  private totals(ctx: CycleContext, feasible: readonly NodeState[]): Float64Array {
    const n = feasible.length;
    if (this.totalBuffer.length < n) {
      this.totalBuffer = new Float64Array(this.cluster.nodes.length);
      this.scoreBuffer = new Float64Array(this.cluster.nodes.length);
    }
    const totals = this.totalBuffer;
    totals.fill(0, 0, n);
    for (let p = 0; p < this.profile.scores.length; p++) {
      const { plugin, weight } = this.profile.scores[p]!;
      const cache = this.caches[p]!;
      plugin.preScore?.(ctx, feasible);
      const scores = this.scoreBuffer.subarray(0, n);
      const epoch = plugin.cacheEpoch?.() ?? 0;
      for (let i = 0; i < n; i++) {
        const node = feasible[i]!;
        let s = plugin.cacheable ? cache.get(node, ctx.shapeId, epoch) : undefined;
        if (s === undefined) {
          s = plugin.score(ctx, node);
          if (plugin.cacheable) cache.set(node, ctx.shapeId, epoch, s);
        }
        scores[i] = s;
      }
      plugin.normalize?.(ctx, feasible, scores);
      for (let i = 0; i < n; i++) totals[i]! += weight * scores[i]!;
    }
    return totals.subarray(0, n);
  }
}

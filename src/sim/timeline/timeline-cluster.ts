/**
 * The cluster of a timeline replay behind the core's one entry point (docs/simulator.md "Timeline
 * replay"): a `SchedulingSession` holds what runs; a job is placed by a pass of that session over
 * the job alone, and a job that does not fit asks the same pass, with the preemption rules, for
 * victims (the core's preemption: src/core/pass/choose-preemption.ts). Whether a job fits the
 * empty cluster, and on which nodes, is asked of a second session that never holds anything.
 *
 * Two shortcuts keep a replay of 7,000 jobs fast without changing a decision: a job that fits no
 * node now (`ClusterState.fits`, the core's what-if) is not given a pass, unless the policy learns
 * from the requests it sees; and the preemption pass runs only when a node has a plan, and sees
 * (as `active`) only the jobs of such nodes: nodes the job fits when empty, that the memo
 * (preemption-memo.ts) does not rule out, that run a job the core would let it preempt
 * (`classifyCandidate`), and where it fits once all of those are gone (`fitsWithout`: the
 * planner's own first test, which any plan passes). One tenant and no quota: nothing else of the
 * pass's rules reads `active`.
 */
import {
  defaultPreemptible,
  SchedulingSession,
  SeededRng,
  type ActiveJob,
  type ClusterNode,
  type JobRequest,
  type PassRulesOptions,
  type PreemptionCandidate,
  type PreemptionSettings,
  type Rng,
  type ScheduleOptions,
} from '../../core/index.js';
import { addNodeWithPlan } from './node-plan.js';
import { PreemptionMemo } from './preemption-memo.js';

/** The cluster and how the core places on it. */
export interface TimelineClusterSpec {
  /** The nodes; nothing runs on them at the start. */
  readonly nodes: readonly ClusterNode[];
  /** The policy's randomness (tie-breaks); the replay's stream. */
  readonly rng: Rng;
  /** Policy, target workload and node tie-break ranks. */
  readonly scheduling: ScheduleOptions;
}

/** A running job: as the pass's rules see it, as the preemption planner sees it, and where it runs. */
interface Running {
  readonly active: ActiveJob;
  readonly candidate: PreemptionCandidate;
  readonly startSeconds: number;
  readonly nodeIndex: number;
}

/** The outcome of `TimelineCluster.attempt`. */
export type Attempt =
  | { readonly kind: 'placed'; readonly nodeIndex: number }
  | { readonly kind: 'victims'; readonly victimIds: readonly number[] }
  | { readonly kind: 'waiting' };

const WAITING: Attempt = { kind: 'waiting' };

/** A timeline replay's cluster: placements, releases and preemption plans through `SchedulingSession`. */
export class TimelineCluster {
  private readonly session: SchedulingSession;
  private readonly empty: SchedulingSession;
  private readonly running = new Map<number, Running>();
  private readonly onNode: Set<Running>[];
  /** Whether a job that fits nowhere needs its pass anyway: the policy learns from every request it sees. */
  private readonly observes: boolean;
  /** The one pending job of a pass (reused: a pass keeps no reference to it). */
  private readonly pending: JobRequest[] = [];
  private readonly preemptionRules: PassRulesOptions;
  private readonly memo: PreemptionMemo;
  /** Per request shape, the nodes it fits when they are empty. */
  private readonly emptyFit: (readonly number[])[] = [];

  /**
   * @param preemption the core's preemption settings for a job that does not fit
   * @throws InvariantViolation as `SchedulingSession` (an unknown policy, a repeated node name or GPU index)
   */
  constructor(
    spec: TimelineClusterSpec,
    private readonly preemption: PreemptionSettings,
  ) {
    const snapshot = { nodes: spec.nodes, active: [] };
    this.session = new SchedulingSession(snapshot, spec.rng, spec.scheduling);
    // Its own randomness: a pass on the empty cluster must not draw from the replay's stream.
    this.empty = new SchedulingSession(snapshot, new SeededRng(0), spec.scheduling);
    this.observes = this.session.state.groups.scheduler.profile.observe !== undefined;
    this.onNode = spec.nodes.map(() => new Set());
    // One tenant without quotas; no backfill (every queued job that fits starts, in queue order).
    // Queued jobs' sizes are kept by job id (a size depends only on the request and the GPUs).
    this.preemptionRules = { tenants: [], backfill: false, preemption, sizeCache: new Map() };
    this.memo = new PreemptionMemo(spec.nodes.length, preemption.minRunSeconds > 0);
  }

  /**
   * Whether `request` fits some node of the cluster when nothing runs: a pass of the empty
   * session, whose placement is released at once.
   */
  fitsEmpty(request: JobRequest): boolean {
    this.pending[0] = request;
    const placed = this.empty.schedule(this.pending, { nowMs: 0 }).placements.length > 0;
    if (placed) this.empty.release(request.id);
    return placed;
  }

  /**
   * One try of the queued job `request` (request shape `shapeId`: equal requests, equal ids) at
   * `nowSeconds`, preempted `preemptionCount` times so far. It starts when it fits (a pass over it
   * alone). Else, with `mayPreempt`, the core's preemption may name victims for it: a pass over it
   * alone, with the preemption rules, over the jobs of the nodes that may have a plan (see the file
   * comment). A job started at `nowSeconds` counts there as still being launched (`startedAtMs`
   * null), so it is no candidate: it was placed at this instant, maybe ahead by the queue's aging,
   * which evicting it at once would undo.
   * @param placementFails the caller knows that it fits nowhere (an equal request failed, and
   *   nothing left the cluster since): no placement is tried
   * @returns where it started, the victims to evict (ascending ids, all on one node) after which
   *   `place` starts it, or that it waits
   */
  attempt(
    request: JobRequest,
    shapeId: number,
    nowSeconds: number,
    preemptionCount: number,
    { placementFails, mayPreempt }: { readonly placementFails: boolean; readonly mayPreempt: boolean },
  ): Attempt {
    if (!placementFails && this.session.state.fits(request)) {
      const nodeIndex = this.place(request, nowSeconds, preemptionCount);
      return nodeIndex >= 0 ? { kind: 'placed', nodeIndex } : WAITING;
    }
    const active = mayPreempt ? this.plannable(request, shapeId, nowSeconds) : null;
    if (active !== null) {
      // This pass tries the placement first: it is also the try a learning policy observes.
      this.pending[0] = request;
      const plan = this.session.schedule(this.pending, {
        nowMs: nowSeconds * 1000,
        rules: this.preemptionRules,
        active,
      });
      if (plan.placements.length > 0)
        throw new Error(`timeline replay: job ${request.id} was placed by the pass that was to find victims for it`);
      if (plan.preemption !== null) return { kind: 'victims', victimIds: plan.preemption.victimIds };
      this.memo.failed(request.priority, shapeId, nowSeconds);
    } else if (!placementFails && this.observes) {
      // A policy that learns from the requests it sees sees this try too: a pass that places nothing.
      const nodeIndex = this.place(request, nowSeconds, preemptionCount);
      if (nodeIndex >= 0) return { kind: 'placed', nodeIndex };
    }
    return WAITING;
  }

  /**
   * Places `request` now if it fits (a pass over it alone) and holds it, as started at
   * `nowSeconds` and preempted `preemptionCount` times so far.
   * @returns the index of its node, or -1 when it does not fit
   */
  place(request: JobRequest, nowSeconds: number, preemptionCount: number): number {
    this.pending[0] = request;
    const placed = this.session.schedule(this.pending, { nowMs: nowSeconds * 1000 }).placements[0];
    if (placed === undefined) return -1;
    const nodeIndex = this.session.state.indexOf(placed.node);
    this.hold(request, nodeIndex, nowSeconds, preemptionCount);
    return nodeIndex;
  }

  /** Frees what job `jobId` holds (it completed or was evicted). */
  release(jobId: number): void {
    const job = this.running.get(jobId)!;
    this.session.release(jobId);
    this.running.delete(jobId);
    this.onNode[job.nodeIndex]!.delete(job);
    this.memo.released(job.nodeIndex);
  }

  /**
   * The running jobs the preemption pass needs to see for `request`, which fits no node now: those
   * of the nodes where the core's planner finds a plan, i.e. where the job fits when every job it
   * may preempt there is gone (`classifyCandidate`; its own first test, `fitsWithout`), among the
   * nodes it fits when empty that the memo does not rule out. Null when there is no such node (the
   * memo records it).
   */
  private plannable(request: JobRequest, shapeId: number, nowSeconds: number): ActiveJob[] | null {
    const { priority } = request;
    const active: ActiveJob[] = [];
    for (const n of this.emptyFitNodes(request, shapeId))
      if (!this.memo.noPlanOn(priority, shapeId, n, nowSeconds))
        addNodeWithPlan(active, this.onNode[n]!, request, this.preemption, this.session, nowSeconds);
    if (active.length > 0) return active;
    this.memo.failed(priority, shapeId, nowSeconds);
    return null;
  }

  /**
   * The nodes `request` fits when they are empty (the core's node ranking on the empty cluster),
   * by shape. A CPU-only request may also fit a node without GPUs, which the ranking of GPU
   * placements leaves out: every node counts for it.
   */
  private emptyFitNodes(request: JobRequest, shapeId: number): readonly number[] {
    let nodes = this.emptyFit[shapeId];
    if (nodes === undefined) {
      const all = this.onNode.map((_, n) => n);
      nodes = request.gpu.gpuCount === 0 ? all : [...this.empty.state.rankNodes(request, all).scores.keys()];
      nodes = [...nodes].sort((a, b) => a - b);
      this.emptyFit[shapeId] = nodes;
    }
    return nodes;
  }

  private hold(request: JobRequest, nodeIndex: number, nowSeconds: number, preemptionCount: number): void {
    const preemptible = defaultPreemptible(request.priority);
    const startedAtMs = nowSeconds * 1000;
    const job: Running = {
      active: {
        request,
        assignment: this.session.state.assignmentOf(request.id)!,
        preemptible,
        startedAtMs,
        preemptionCount,
        stopping: false,
      },
      // What the planner's rules read (its lost work is the core's to work out).
      candidate: {
        jobId: request.id,
        priority: request.priority,
        tenant: request.tenant,
        preemptible,
        startedAtMs,
        preemptionCount,
        lostWorkGpuSeconds: 0,
        overQuotaBorrower: false,
      },
      startSeconds: nowSeconds,
      nodeIndex,
    };
    this.running.set(request.id, job);
    this.onNode[nodeIndex]!.add(job);
    this.memo.started(nodeIndex, nowSeconds);
  }
}

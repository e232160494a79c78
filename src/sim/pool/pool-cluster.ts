/**
 * The cluster of the pool replay (docs/simulator.md "Pool replay"): the nodes of an autoscaled pool,
 * which come and go while the timeline replay runs, behind the core's `SchedulingSession`. It
 * places, preempts and releases as the fixed cluster of the timeline replay does (TimelineCluster,
 * src/sim/timeline/timeline-cluster.ts, whose shortcuts it keeps), and in addition:
 *
 * - nodes join (`addNodes`, once booted), are cordoned (`cordon`: their GPUs take no new job) and
 *   leave (`removeNodes`, empty); each change rebuilds the
 *   session's cluster state from the nodes that exist, the jobs they hold and each GPU's state (MIG
 *   mode, idle MIG instances), so no decision depends on nodes that do not exist;
 * - a node is known by a stable id (its number in the engine), the position of the session's node
 *   by the order of joining; ties between equally good nodes go to the oldest (tie-break rank =
 *   id), so the newest nodes empty first and the autoscaler can take them back;
 * - whether a job fits "the empty cluster" means whether it fits an empty node of some template (a
 *   second session over one node per template), which also says on which nodes a preemption can
 *   have a plan.
 */
import {
  defaultPreemptible,
  migGeometry,
  SchedulingSession,
  SeededRng,
  templateNode,
  type ActiveJob,
  type ClusterNode,
  type ClusterSnapshot,
  type GpuDevice,
  type JobRequest,
  type NodeTemplate,
  type PassRulesOptions,
  type PreemptionCandidate,
  type PreemptionSettings,
  type Rng,
  type ScheduleOptions,
} from '../../core/index.js';
import type { Attempt } from '../timeline/timeline-cluster.js';
import type { ReplayCluster } from '../timeline/timeline-engine.js';
import { addNodeWithPlan } from '../timeline/node-plan.js';
import { gpuUseOf, heldGpuMilli, type GpuUseNow } from './pool-gpu-use.js';
import { PreemptionMemo } from '../timeline/preemption-memo.js';

/** How the pool's cluster places. */
export interface PoolClusterSpec {
  /** The templates nodes are made of (one model for all with `modeViews`). */
  readonly templates: readonly NodeTemplate[];
  /** The policy's randomness (tie-breaks); the replay's stream. */
  readonly rng: Rng;
  /** Policy, target workload, sharing-mode views; the node ranks are the cluster's own (by age). */
  readonly scheduling: Omit<ScheduleOptions, 'nodeRank'>;
}

/** A node of the pool as the cluster keeps it. */
interface Member {
  /** Stable id (also its tie-break rank: lower = older). */
  readonly id: number;
  readonly name: string;
  readonly template: NodeTemplate;
  /** Index of its template in the spec (its node in the empty-template session). */
  readonly templateIndex: number;
  cordoned: boolean;
}

/** A running job: as the pass's rules see it, as the preemption planner sees it, where it runs. */
interface Running {
  readonly active: ActiveJob;
  readonly candidate: PreemptionCandidate;
  readonly startSeconds: number;
  readonly nodeId: number;
  /** Reserved milli-GPU (see `reservedMilli`). */
  readonly reservedMilli: number;
}

const WAITING: Attempt = { kind: 'waiting' };

/** Compute slices of a MIG GPU of `model` (7, or 4 on an A30). */
function slicesPerGpu(model: string): number {
  return migGeometry(model)?.computeSlices ?? 7;
}

/**
 * milli-GPU an assignment reserves: what it is accounted on each GPU (1000 per exclusive GPU, the
 * share of an MPS or time-sliced job), for a MIG instance round(1000 × its compute slices / the
 * GPU's slices).
 */
export function reservedMilli(placement: ActiveJob['assignment']['placement'], model: string): number {
  let milli = 0;
  for (const g of placement.gpus) milli += heldGpuMilli(g, slicesPerGpu(model));
  return milli;
}

/** The autoscaled pool's nodes behind one `SchedulingSession`, rebuilt whenever the nodes change. */
export class PoolCluster implements ReplayCluster {
  private readonly session: SchedulingSession;
  /** One empty node per template: what fits the pool at all, and where a preemption can have a plan. */
  private readonly empty: SchedulingSession;
  /** The nodes in the session, in joining order (= their index there). */
  private members: Member[] = [];
  private readonly indexOfId = new Map<number, number>();
  private readonly running = new Map<number, Running>();
  private readonly onNode = new Map<number, Set<Running>>();
  private readonly pending: JobRequest[] = [];
  private readonly preemptionRules: PassRulesOptions;
  private memo: PreemptionMemo;
  /** Per request shape, the templates it fits when empty. */
  private readonly templateFit: (readonly boolean[])[] = [];
  private changes = 0;
  private reserved = 0;

  /**
   * @param preemption the core's preemption settings for a job that does not fit
   * @throws InvariantViolation as `SchedulingSession` (an unknown policy)
   */
  constructor(
    private readonly spec: PoolClusterSpec,
    private readonly preemption: PreemptionSettings,
  ) {
    this.session = new SchedulingSession({ nodes: [], active: [] }, spec.rng, spec.scheduling);
    const templateNodes = spec.templates.map((t, i) => templateNode(t, `template-${i}-${t.name}`));
    this.empty = new SchedulingSession({ nodes: templateNodes, active: [] }, new SeededRng(0), spec.scheduling);
    this.preemptionRules = { tenants: [], backfill: false, preemption, sizeCache: new Map() };
    this.memo = new PreemptionMemo(0, preemption.minRunSeconds > 0);
  }

  /** Counts every change of what runs or of the nodes (a decision that saw the same count saw the same cluster). */
  get version(): number {
    return this.changes;
  }

  /** Nodes in the cluster (ready or cordoned). */
  get nodeCount(): number {
    return this.members.length;
  }

  /**
   * Whether `request` fits an empty node of some template. A CPU-only job never does: the core holds
   * no assignment without GPUs in a snapshot, which every change of the pool rebuilds from.
   */
  fitsEmpty(request: JobRequest): boolean {
    if (request.gpu.gpuCount === 0) return false;
    this.pending[0] = request;
    const placed = this.empty.schedule(this.pending, { nowMs: 0 }).placements.length > 0;
    if (placed) this.empty.release(request.id);
    return placed;
  }

  /**
   * Adds booted nodes (empty, each of its template), newest last.
   * @throws Error for an id or name already in the cluster, or a template not in the spec
   */
  addNodes(nodes: readonly { readonly id: number; readonly name: string; readonly template: NodeTemplate }[]): void {
    if (nodes.length === 0) return;
    const added = nodes.map((n) => {
      if (this.indexOfId.has(n.id) || this.members.some((m) => m.name === n.name))
        throw new Error(`pool cluster: node ${n.name} (${n.id}) is already in the cluster`);
      const templateIndex = this.spec.templates.indexOf(n.template);
      if (templateIndex < 0)
        throw new Error(`pool cluster: node ${n.name}: template ${n.template.name} is not the pool's`);
      return { ...n, templateIndex, cordoned: false };
    });
    this.rebuild([...this.members, ...added], new Set(added.map((m) => m.id)));
  }

  /** Cordons nodes: their GPUs take no new job. */
  cordon(ids: readonly number[]): void {
    const set = new Set(ids.filter((id) => this.indexOfId.has(id)));
    if (set.size === 0) return;
    for (const m of this.members) if (set.has(m.id)) m.cordoned = true;
    this.rebuild(this.members, new Set());
  }

  /**
   * Removes nodes, which must be empty.
   * @throws Error for a node that still holds a job
   */
  removeNodes(ids: readonly number[]): void {
    const set = new Set(ids.filter((id) => this.indexOfId.has(id)));
    if (set.size === 0) return;
    for (const id of set)
      if ((this.onNode.get(id)?.size ?? 0) > 0) throw new Error(`pool cluster: node ${id} is removed with jobs on it`);
    this.rebuild(
      this.members.filter((m) => !set.has(m.id)),
      new Set(),
    );
  }

  /** The jobs running on node `id`, by id. */
  jobsOn(id: number): number[] {
    return [...(this.onNode.get(id) ?? [])].map((r) => r.active.request.id);
  }

  /** Reserved milli-GPU of every running job. */
  get reservedTotal(): number {
    return this.reserved;
  }

  /** Where the nodes' GPUs are now: held, slivers, idle beside jobs, on empty nodes, cordoned (pool-gpu-use.ts). */
  gpuUse(): GpuUseNow {
    return gpuUseOf(
      this.members.map((m) => ({
        gpuCount: m.template.gpuCount,
        cordoned: m.cordoned,
        gpus: [...this.onNode.get(m.id)!].flatMap((job) => job.active.assignment.placement.gpus),
        slicesPerGpu: slicesPerGpu(m.template.gpuModel),
      })),
    );
  }

  /**
   * The cluster as the autoscaler reads it: every node that takes jobs or is cordoned (cordoned
   * nodes as they are; the autoscaler closes them itself) with its GPUs' state, and the running jobs.
   */
  snapshot(): ClusterSnapshot {
    return {
      nodes: this.members.map((m) => this.nodeAsItIs(m, false)),
      active: [...this.running.values()].map((r) => r.active),
    };
  }

  /** See TimelineCluster.attempt; node numbers are node ids. */
  attempt(
    request: JobRequest,
    shapeId: number,
    nowSeconds: number,
    preemptionCount: number,
    { placementFails, mayPreempt }: { readonly placementFails: boolean; readonly mayPreempt: boolean },
  ): Attempt {
    if (this.members.length === 0) return WAITING;
    // The core's what-if (`fits`) switches no GPU into MIG mode: with MIG on demand a `mig` job gets its pass.
    const mayFit =
      (this.spec.scheduling.migModeOnDemand === true && request.gpu.mode === 'mig') || this.session.state.fits(request);
    if (!placementFails && mayFit) {
      const nodeId = this.place(request, nowSeconds, preemptionCount);
      if (nodeId >= 0) return { kind: 'placed', nodeIndex: nodeId };
      if (request.gpu.mode !== 'mig') return WAITING;
    }
    const active = mayPreempt ? this.plannable(request, shapeId, nowSeconds) : null;
    if (active !== null) {
      this.pending[0] = request;
      const plan = this.session.schedule(this.pending, {
        nowMs: nowSeconds * 1000,
        rules: this.preemptionRules,
        active,
      });
      const placed = plan.placements[0];
      if (placed !== undefined) {
        // Only a MIG job (whose equal job's failure says nothing of it) may fit here without victims.
        if (request.gpu.mode !== 'mig')
          throw new Error(`pool replay: job ${request.id} was placed by the pass that was to find victims for it`);
        const index = this.session.state.indexOf(placed.node);
        this.hold(request, this.members[index]!, index, nowSeconds, preemptionCount);
        return { kind: 'placed', nodeIndex: this.members[index]!.id };
      }
      if (plan.preemption !== null) return { kind: 'victims', victimIds: plan.preemption.victimIds };
      this.memo.failed(request.priority, shapeId, nowSeconds);
    }
    return WAITING;
  }

  /** Places `request` now if it fits. @returns the id of its node, or -1 */
  place(request: JobRequest, nowSeconds: number, preemptionCount: number): number {
    if (this.members.length === 0) return -1;
    this.pending[0] = request;
    const placed = this.session.schedule(this.pending, { nowMs: nowSeconds * 1000 }).placements[0];
    if (placed === undefined) return -1;
    const index = this.session.state.indexOf(placed.node);
    const member = this.members[index]!;
    this.hold(request, member, index, nowSeconds, preemptionCount);
    return member.id;
  }

  /** Frees what job `jobId` holds. */
  release(jobId: number): void {
    const job = this.running.get(jobId);
    if (job === undefined) return;
    this.session.release(jobId);
    this.running.delete(jobId);
    this.onNode.get(job.nodeId)!.delete(job);
    this.reserved -= job.reservedMilli;
    this.memo.released(this.indexOfId.get(job.nodeId)!);
    this.changes++;
  }

  /**
   * The node `m` as the session holds it now: its GPUs with their MIG mode and idle instances; a
   * cordoned node (with `closed`) with its GPUs unschedulable (every job of the pool needs a GPU).
   */
  private nodeAsItIs(m: Member, closed: boolean): ClusterNode {
    const entry = this.session.state.nodes[this.indexOfId.get(m.id)!]!;
    const gpus: GpuDevice[] = [...entry.devices.values()]
      .map((s) => {
        const idle = s.device.migEnabled ? this.session.state.idleMigInstances(m.name, s.device.index) : [];
        const { migInstances: _old, ...device } = s.device;
        return {
          ...device,
          ...(idle.length > 0 ? { migInstances: idle } : {}),
          ...(closed ? { schedulable: false } : {}),
        };
      })
      .sort((a, b) => a.index - b.index);
    return { ...entry.node, gpus };
  }

  /** Rebuilds the session over `members` (`fresh`: new nodes, empty), keeping every running job where it is. */
  private rebuild(members: Member[], fresh: ReadonlySet<number>): void {
    const nodes = members.map((m) =>
      fresh.has(m.id) ? templateNode(m.template, m.name) : this.nodeAsItIs(m, m.cordoned),
    );
    const nodeRank = Int32Array.from(members, (m) => m.id);
    this.session.refresh(
      { nodes, active: [...this.running.values()].map((r) => r.active) },
      {
        ...this.spec.scheduling,
        nodeRank,
      },
    );
    this.members = members;
    this.indexOfId.clear();
    members.forEach((m, i) => this.indexOfId.set(m.id, i));
    for (const m of members) if (!this.onNode.has(m.id)) this.onNode.set(m.id, new Set());
    for (const id of [...this.onNode.keys()]) if (!this.indexOfId.has(id)) this.onNode.delete(id);
    // Indices changed: a fresh memo (it only ever saves searches that would fail).
    this.memo = new PreemptionMemo(members.length, this.preemption.minRunSeconds > 0);
    this.changes++;
  }

  /** See TimelineCluster.plannable: the running jobs of the nodes where a plan can exist, or null. */
  private plannable(request: JobRequest, shapeId: number, nowSeconds: number): ActiveJob[] | null {
    const { priority } = request;
    const active: ActiveJob[] = [];
    const fitsTemplate = this.templatesFitting(request, shapeId);
    this.members.forEach((m, n) => {
      if (m.cordoned || !fitsTemplate[m.templateIndex] || this.memo.noPlanOn(priority, shapeId, n, nowSeconds)) return;
      addNodeWithPlan(active, this.onNode.get(m.id)!, request, this.preemption, this.session, nowSeconds);
    });
    if (active.length > 0) return active;
    this.memo.failed(priority, shapeId, nowSeconds);
    return null;
  }

  /** Which templates `request` fits when empty, by shape (the core's node ranking on the empty templates). */
  private templatesFitting(request: JobRequest, shapeId: number): readonly boolean[] {
    let fits = this.templateFit[shapeId];
    if (fits === undefined) {
      const all = this.spec.templates.map((_, i) => i);
      const ranked = new Set(this.empty.state.rankNodes(request, all).scores.keys());
      fits = all.map((i) => ranked.has(i));
      this.templateFit[shapeId] = fits;
    }
    return fits;
  }

  private hold(request: JobRequest, member: Member, index: number, nowSeconds: number, preemptionCount: number): void {
    const preemptible = defaultPreemptible(request.priority);
    const startedAtMs = nowSeconds * 1000;
    const assignment = this.session.state.assignmentOf(request.id)!;
    const model = member.template.gpuModel;
    const job: Running = {
      active: { request, assignment, preemptible, startedAtMs, preemptionCount, stopping: false },
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
      nodeId: member.id,
      reservedMilli: reservedMilli(assignment.placement, model),
    };
    this.running.set(request.id, job);
    this.onNode.get(member.id)!.add(job);
    this.reserved += job.reservedMilli;
    this.memo.started(index, nowSeconds);
    this.changes++;
  }
}

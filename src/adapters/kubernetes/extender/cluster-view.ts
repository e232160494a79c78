/**
 * The extender's view of a Kubernetes cluster, kept in memory: the gpushare nodes (their published
 * GPU inventory) and the pods that hold GPU shares, as the scheduler core's `ClusterQuery`. Fed by
 * the API server's watch (`upsertNode`, `upsertPod`, `deletePod`, ...) and by the extender's own
 * binds (`reserve`, `rollback`). No I/O: the extender service does the API calls.
 *
 * A pod holds its share while it is reserved by a bind of this process (until the watch shows it
 * bound), while it is assumed on the best node of its last filter (until its bind, its next filter,
 * or 30 s), or while it is bound to the node its assignment names, until it has finished (Succeeded,
 * Failed) or is deleted (a terminating pod keeps its share through its grace period).
 * An assignment on a pod that never bound (a bind that failed half-way, or a crash) holds nothing.
 * An assignment read from a pod is accounted only when it matches the pod's request and the node's
 * GPUs and carries this extender's signature (assignment-check.ts); a refused one holds nothing and
 * blocks the GPUs it names (no new pod there) until the pod is gone or its assignment is fixed.
 * A change of the nodes (added, removed, inventory or cordon changed) rebuilds the state from the
 * nodes and the holding pods; a pod change only holds or releases that pod.
 */
import {
  CapacityCheck,
  ClusterQuery,
  findPolicy,
  InvariantViolation,
  type ActiveJob,
  type ClusterNode,
  type ClusterSnapshot,
  type JobRequest,
  waitMessage,
} from '../../../core/index.js';
import { clusterNodeOf, parseInventory, type NodeInventory } from '../schema/node-inventory.js';
import { assignmentOf, placementOf, type PodAssignment } from '../schema/pod-assignment.js';
import type { KubeNode, KubePod } from '../schema/kube-objects.js';
import type { AssignmentSigner } from '../schema/assignment-signature.js';
import { checkAssignment, type AssignmentRefusal } from './assignment-check.js';
import {
  AssignmentRefusals,
  rememberingVerifier,
  type AssignmentChecks,
  type RefusedAssignment,
} from './assignment-refusals.js';
import { answerFilter } from './filter-answers.js';
import { NodeAnswerMemo, type Failure } from './node-answer-memo.js';
import { podEntryOf, type PodEntry } from './pod-entry.js';

export type { PodEntry } from './pod-entry.js';

/** How long a filtered pod's assumed placement is held when no bind comes, ms. */
const TENTATIVE_HOLD_MS = 30_000;

/** One node of the view. */
interface NodeEntry {
  readonly inventory: NodeInventory;
  readonly cordoned: boolean;
  /** The raw values the entry came from, to tell real changes from heartbeats. */
  readonly fingerprint: string;
}

/** What `evaluate` answers for a pod over candidate nodes. */
export interface PodEvaluation {
  /** The pod's request, or why the pod cannot be placed at all. */
  readonly request: JobRequest | null;
  readonly error: string | null;
  /** Candidate nodes that can take it now, with the policy's score (higher is better). */
  readonly scores: ReadonlyMap<string, number>;
  /** Candidate nodes that cannot: a shortage that could end (resolvable) or not. */
  readonly failed: ReadonlyMap<string, { readonly reason: string; readonly resolvable: boolean }>;
}

/** The in-memory cluster of the extender. */
export class ClusterView {
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly pods = new Map<string, PodEntry>();
  /** Assignments reserved by this process's binds, until the watch shows the pod bound. */
  private readonly reserved = new Map<string, PodAssignment>();
  /**
   * Assumed placements: the best node of a pod's last filter, held until its bind, its next filter,
   * or `TENTATIVE_HOLD_MS` (the kube-scheduler assumes its choice the same way, and sends the next
   * pod to filter before the previous pod's bind arrives).
   */
  private readonly tentative = new Map<string, { assignment: PodAssignment; expiresAtMs: number }>();
  /** Pods whose share the query holds now, by UID. */
  private readonly holding = new Map<string, PodAssignment>();
  private query: ClusterQuery | null = null;
  /** The nodes' capacity (every node empty), built when first asked after a change of the nodes. */
  private capacity: CapacityCheck | null = null;
  /** Filter answers per node, request shape and tenant (node-answer-memo.ts). */
  private readonly memo = new NodeAnswerMemo();
  private nextJobId = 1;
  /** Counts every change, so a caller can tell whether an answer it cached is still current. */
  version = 0;

  /**
   * @param policy placement policy of the core (policies/registry.ts)
   * @param nowMs the clock of memo expiry
   * @param onRejected told when a pod's assignment cannot be held (the log)
   * @param checks the signer and who is told of refused assignments
   */
  constructor(
    private readonly policy = 'default',
    private readonly nowMs: () => number = Date.now,
    private readonly onRejected?: (message: string) => void,
    checks: AssignmentChecks = { signer: null },
  ) {
    if (!findPolicy(policy)) throw new InvariantViolation(`unknown policy '${policy}'`);
    this.verifier = rememberingVerifier(checks.signer);
    this.refused = new AssignmentRefusals(checks.onRefused);
  }

  /**
   * Adds or updates a node; a node without a gpushare inventory is removed from the view. @returns an error message for
   * a malformed inventory, else null
   */
  upsertNode(node: KubeNode): string | null {
    const name = node.metadata?.name;
    if (!name) return null;
    const parsed = parseInventory(node.metadata?.annotations);
    if (parsed === null || 'error' in parsed) {
      this.deleteNode(name);
      return parsed === null ? null : `node ${name}: ${parsed.error}`;
    }
    const cordoned = node.spec?.unschedulable === true;
    const fingerprint = `${cordoned}\u0000${JSON.stringify(parsed)}`;
    if (this.nodes.get(name)?.fingerprint === fingerprint) return null;
    this.nodes.set(name, { inventory: parsed, cordoned, fingerprint });
    this.invalidate();
    return null;
  }

  /** Removes a node (its pods' shares are dropped with it). */
  deleteNode(name: string): void {
    if (this.nodes.delete(name)) this.invalidate();
  }

  /** Adds or updates a pod from the watch. */
  upsertPod(pod: KubePod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    const next = podEntryOf(pod, uid, this.pods.get(uid)?.jobId ?? this.nextJobId++);
    this.pods.set(uid, next);
    // Bound where its assignment says: the reservation has become a binding.
    if (next.nodeName !== null && next.assignment?.node === next.nodeName) this.reserved.delete(uid);
    if (next.nodeName !== null || next.finished) this.tentative.delete(uid);
    this.sync(next);
  }

  /** Removes a pod (deleted): its share is freed. */
  deletePod(uid: string): void {
    const entry = this.pods.get(uid);
    if (!entry) return;
    // Release while the entry (its job id) is still known, then forget it.
    this.reserved.delete(uid);
    this.tentative.delete(uid);
    this.release(uid);
    this.pods.delete(uid);
    // Its refused assignment no longer blocks anything.
    if (this.refused.forget(uid)) this.invalidate();
  }

  /** Pods whose assignment is refused now, by UID. */
  refusedAssignments(): ReadonlyMap<string, RefusedAssignment> {
    return this.refused.all();
  }

  /** The pod with `uid`, as last seen. */
  pod(uid: string): PodEntry | undefined {
    return this.pods.get(uid);
  }

  /** Names of the gpushare nodes, sorted. */
  nodeNames(): string[] {
    return [...this.nodes.keys()].sort();
  }

  /**
   * Which of `candidates` can take the pod now and how well (the core's `ClusterQuery.rank` with
   * the policy), and why the others cannot. A pod the view has not seen yet is read from `pod`.
   */
  evaluate(pod: KubePod, candidates: readonly string[]): PodEvaluation {
    const uid = pod.metadata?.uid ?? '';
    // A pod the watch has not shown yet is ranked from the scheduler's copy, but neither kept nor
    // held: only the API server's pods hold shares (a caller cannot plant one).
    const known = this.pods.get(uid);
    const entry =
      known ?? (uid === '' ? undefined : podEntryOf({ ...pod, spec: { ...pod.spec, nodeName: '' } }, uid, 0));
    let failed = new Map<string, Failure>();
    let scores = new Map<string, number>();
    if (!entry?.request) {
      const error = entry?.requestError ?? 'the pod has no gpushare request (annotation gpushare.io/gpu-count)';
      for (const name of candidates) failed.set(name, { reason: `gpushare: ${error}`, resolvable: false });
      return { request: null, error, scores, failed };
    }
    const query = this.current();
    this.sweepTentative();
    if (known && this.tentative.delete(uid)) this.sync(known);
    // A pod that holds a share already (a retried bind) is ranked as if it held none.
    const held = known ? this.holding.get(uid) : undefined;
    if (held) this.release(uid);
    try {
      ({ scores, failed } = answerFilter(
        {
          memo: this.memo,
          query,
          isGpushareNode: (name) => this.nodes.has(name),
          capacity: () => this.capacityCheck(),
          nowMs: this.nowMs(),
        },
        entry.request,
        entry.namespace,
        candidates,
      ));
    } finally {
      if (held) this.hold(uid, held, entry.namespace);
    }
    if (known && !held) this.assume(known, candidates, scores);
    return { request: entry.request, error: null, scores, failed: this.refused.annotate(failed) };
  }

  /**
   * Places the pod on `node` with the core (device choice by the policy) and holds the share at
   * once: the first step of a bind. @returns the assignment, or why it cannot be placed there
   */
  reserve(uid: string, node: string): { assignment: PodAssignment } | { error: string } {
    const entry = this.pods.get(uid);
    if (!entry) return { error: `pod ${uid} is not in the extender's view yet` };
    if (!entry.request)
      return { error: `pod ${entry.namespace}/${entry.name}: ${entry.requestError ?? 'no gpushare request'}` };
    if (!this.nodes.has(node)) return { error: `node ${node} is not a gpushare node` };
    if (entry.nodeName !== null)
      return { error: `pod ${entry.namespace}/${entry.name} is already bound to ${entry.nodeName}` };
    if (entry.finished) return { error: `pod ${entry.namespace}/${entry.name} has finished` };
    if (this.reserved.has(uid)) return { error: `pod ${entry.namespace}/${entry.name} is being bound already` };
    const query = this.current();
    this.tentative.delete(uid);
    this.release(uid);
    const placed = this.placeOn(entry, entry.request, node, query);
    if (typeof placed === 'string') {
      this.sync(entry);
      return {
        error:
          `gpushare: pod ${entry.namespace}/${entry.name} no longer fits on node ${node} (a pod bound since ` +
          `its filter took the room): ${placed}`,
      };
    }
    const assignment = this.verifier ? this.verifier.sign(uid, placed) : placed;
    this.holding.set(uid, assignment);
    this.reserved.set(uid, assignment);
    this.touch(node);
    return { assignment };
  }

  /** Undoes `reserve` (a later step of the bind failed). */
  rollback(uid: string): void {
    this.reserved.delete(uid);
    const entry = this.pods.get(uid);
    if (entry) this.sync(entry);
    else this.release(uid);
  }

  /**
   * Every GPU of the gpushare nodes with what it holds and the pods holding it, as plain data
   * (the extender's metrics).
   */
  gpuSnapshot(): {
    node: string;
    index: number;
    uuid: string;
    model: string;
    mode: string | null;
    migEnabled: boolean;
    healthy: boolean;
    schedulable: boolean;
    gpuMemoryMiB: number;
    allocatedGpuMilli: number;
    allocatedGpuMemoryMiB: number;
    pods: {
      uid: string;
      name: string;
      namespace: string;
      priorityClassName: string;
      migProfile: string | null;
      gpuMilli: number;
      gpuMemoryMiB: number;
    }[];
  }[] {
    const byJob = new Map<number, PodEntry>();
    for (const p of this.pods.values()) byJob.set(p.jobId, p);
    return this.current()
      .usage()
      .map((u) => {
        const healthy =
          this.nodes.get(u.node)?.inventory.gpus.find((g) => g.index === u.device.index)?.healthy ?? false;
        const pods = u.jobIds.flatMap((id) => {
          const pod = byJob.get(id);
          const placed = pod && this.holding.get(pod.uid)?.gpus.find((g) => g.index === u.device.index);
          if (!pod || !placed) return [];
          return [
            {
              uid: pod.uid,
              name: pod.name,
              namespace: pod.namespace,
              priorityClassName: pod.priorityClassName,
              migProfile: placed.mig?.profileName ?? null,
              gpuMilli: placed.accountedGpuMilli,
              gpuMemoryMiB: placed.gpuMemoryMiB,
            },
          ];
        });
        return {
          node: u.node,
          index: u.device.index,
          uuid: u.device.uuid,
          model: u.device.model,
          mode: u.mode,
          migEnabled: u.device.migEnabled,
          healthy,
          schedulable: u.device.schedulable,
          gpuMemoryMiB: u.device.gpuMemoryMiB,
          allocatedGpuMilli: u.allocatedGpuMilli,
          allocatedGpuMemoryMiB: u.allocatedGpuMemoryMiB,
          pods,
        };
      });
  }

  /**
   * The view as the scheduler core's data, for the autoscaler: the gpushare nodes, the pods that hold
   * shares as active jobs (not preemptible: the autoscaler moves no pod), and the requests of the
   * pods not bound yet that have not finished.
   */
  coreSnapshot(): { snapshot: ClusterSnapshot; pending: JobRequest[] } {
    this.current();
    const active: ActiveJob[] = [];
    for (const [uid, assignment] of this.holding) {
      const entry = this.pods.get(uid);
      if (!entry?.request) continue;
      active.push({
        request: entry.request,
        assignment: {
          jobId: entry.jobId,
          node: assignment.node,
          cpuMilli: 0,
          hostMemoryMiB: 0,
          placement: placementOf(assignment),
        },
        preemptible: false,
        startedAtMs: null,
        preemptionCount: 0,
        stopping: false,
      });
    }
    const pending = [...this.pods.values()].flatMap((p) =>
      p.request !== null && p.nodeName === null && !p.finished && !this.holding.has(p.uid) ? [p.request] : [],
    );
    return { snapshot: { nodes: this.coreNodes(), active }, pending };
  }

  /** Pods holding shares now, by UID, with their assignments. */
  holdings(): ReadonlyMap<string, PodAssignment> {
    return this.holding;
  }

  /**
   * Holds `entry` on its best node of this filter (highest score, then candidate order) as the
   * kube-scheduler's assumed placement, until its bind or its next filter.
   */
  private assume(entry: PodEntry, candidates: readonly string[], scores: ReadonlyMap<string, number>): void {
    if (entry.nodeName !== null || this.reserved.has(entry.uid) || entry.request === null) return;
    let best: string | null = null;
    for (const name of candidates) {
      const score = scores.get(name);
      if (score !== undefined && (best === null || score > scores.get(best)!)) best = name;
    }
    if (best === null) return;
    const assignment = this.placeOn(entry, entry.request, best, this.current());
    if (typeof assignment === 'string') return;
    this.tentative.set(entry.uid, { assignment, expiresAtMs: this.nowMs() + TENTATIVE_HOLD_MS });
    this.holding.set(entry.uid, assignment);
    this.touch(best);
  }

  /**
   * Places `entry` on `node` with the core (the policy chooses the GPUs) and holds it in `query`.
   * @returns the assignment, or why it cannot go there (also a MIG instance the node does not have)
   */
  private placeOn(entry: PodEntry, request: JobRequest, node: string, query: ClusterQuery): PodAssignment | string {
    const outcome = query.bind(request, node);
    if ('refusal' in outcome) return waitMessage(outcome.refusal);
    const inventory = this.nodes.get(node)!.inventory;
    const migUuid = (gpuIndex: number, start: number): string | undefined =>
      inventory.gpus.find((g) => g.index === gpuIndex)?.migInstances.find((m) => m.start === start)?.uuid;
    if (
      outcome.placement.gpus.some(
        (g) =>
          (g.migChanges?.create.length ?? 0) > 0 || (g.mig !== null && migUuid(g.index, g.mig.start) === undefined),
      )
    ) {
      query.release(entry.jobId);
      return `it needs a MIG instance that does not exist on node ${node}`;
    }
    return assignmentOf(node, outcome.placement, migUuid);
  }

  /** Releases assumed placements whose bind never came. */
  private sweepTentative(): void {
    if (this.tentative.size === 0) return;
    const now = this.nowMs();
    for (const [uid, { expiresAtMs }] of this.tentative) {
      if (expiresAtMs > now) continue;
      this.tentative.delete(uid);
      const entry = this.pods.get(uid);
      if (entry) this.sync(entry);
    }
  }

  /** Whether `entry` should hold a share now (see the module comment). */
  private wanted(entry: PodEntry): PodAssignment | null {
    const reserved = this.reserved.get(entry.uid);
    if (reserved) return reserved;
    const assumed = this.tentative.get(entry.uid);
    if (assumed && entry.nodeName === null && !entry.finished) return assumed.assignment;
    if (
      entry.finished ||
      entry.nodeName === null ||
      entry.assignment === null ||
      entry.assignment.node !== entry.nodeName
    )
      return null;
    return this.nodes.has(entry.nodeName) ? this.accepted(entry, entry.assignment) : null;
  }

  /**
   * `assignment` (read from `entry`, bound to the node it names) when it passes the checks; else
   * null, with the refusal recorded, its GPUs blocked and `onRefused` told (once per assignment).
   */
  private accepted(entry: PodEntry, assignment: PodAssignment): PodAssignment | null {
    const inventory = this.nodes.get(assignment.node)!.inventory;
    const refusal: AssignmentRefusal | null =
      entry.request === null
        ? { code: 'assignment-request-mismatch', details: { field: 'gpus', expected: 'no gpushare request', found: 1 } }
        : checkAssignment(assignment, {
            podUid: entry.uid,
            request: entry.request.gpu,
            inventory,
            signer: this.verifier,
          });
    if (refusal === null) {
      this.refused.accept(entry.uid);
      return assignment;
    }
    const gpuIndexes = inventory.gpus
      .filter((g) => assignment.gpus.some((a) => a.index === g.index || a.uuid === g.uuid))
      .map((g) => g.index);
    for (const index of gpuIndexes) this.blocked.add(`${assignment.node}\u0000${index}`);
    this.refused.refuse(
      { ...refusal, uid: entry.uid, namespace: entry.namespace, name: entry.name, node: assignment.node, gpuIndexes },
      assignment,
    );
    return null;
  }

  /** Holds or releases `entry`'s share to match `wanted`. */
  private sync(entry: PodEntry): void {
    const blockedBefore = this.blocked.size;
    const wasRefused = this.refused.drop(entry.uid);
    const want = this.wanted(entry);
    // A refusal that appeared or ended changes which GPUs are blocked: rebuild at the next call.
    if (!this.rebuilding && (this.blocked.size !== blockedBefore || wasRefused !== this.refused.has(entry.uid)))
      this.invalidate();
    const have = this.holding.get(entry.uid);
    if (want === have || (want !== null && have !== undefined && JSON.stringify(want) === JSON.stringify(have))) return;
    this.release(entry.uid);
    if (want !== null) this.hold(entry.uid, want, entry.namespace);
  }

  private hold(uid: string, assignment: PodAssignment, tenant: string): void {
    const entry = this.pods.get(uid);
    if (!entry) return;
    this.holding.set(uid, assignment);
    this.touch(assignment.node);
    if (this.query === null) return;
    try {
      this.query.hold(entry.jobId, assignment.node, placementOf(assignment), tenant);
    } catch (err) {
      // An assignment the nodes cannot hold (the inventory changed under it): kept, and counted
      // again at the next rebuild; never placed over.
      this.holding.delete(uid);
      const message =
        `pod ${entry.namespace}/${entry.name} holds more than node ${assignment.node} can hold now (` +
        `${(err as Error).message}): its GPUs take no new pod until it ends`;
      this.onRejected?.(message);
      let added = false;
      for (const g of assignment.gpus) {
        const key = `${assignment.node}\u0000${g.index}`;
        if (!this.blocked.has(key)) added = true;
        this.blocked.add(key);
      }
      // Outside a rebuild: rebuild at the next call, with those GPUs blocked.
      if (added && !this.rebuilding) this.invalidate();
    }
  }

  private release(uid: string): void {
    const had = this.holding.get(uid);
    if (!had) return;
    this.holding.delete(uid);
    this.touch(had.node);
    const entry = this.pods.get(uid);
    if (this.query !== null && entry) this.query.release(entry.jobId);
  }

  /** GPUs (`node\u0000index`) named by an assignment the query or the checks refused: they take no new pod. */
  private readonly blocked = new Set<string>();
  /** The signer, remembering what verified (rememberingVerifier). */
  private readonly verifier: AssignmentSigner | null;
  /** Pods whose assignment the checks refused. */
  private readonly refused: AssignmentRefusals;
  private rebuilding = false;

  private invalidate(): void {
    this.query = null;
    this.capacity = null;
    this.memo.clear();
    this.version++;
  }

  /** Records a change of what node `name` holds: its memoised answers are stale. */
  private touch(name: string): void {
    this.memo.touch(name);
    this.version++;
  }

  /** The core's query, rebuilt from the nodes and the holding pods when the nodes changed. */
  private current(): ClusterQuery {
    if (this.query !== null) return this.query;
    // Rebuilt from scratch; a pod whose assignment the nodes cannot hold (its GPU now reports less
    // memory, say) blocks the GPUs it names: they take no new pod until it is gone.
    this.blocked.clear();
    this.refused.clear();
    for (let attempt = 0; ; attempt++) {
      const blockedBefore = this.blocked.size;
      this.query = this.build();
      this.holding.clear();
      this.rebuilding = true;
      try {
        for (const entry of this.pods.values()) {
          const want = this.wanted(entry);
          if (want !== null) this.hold(entry.uid, want, entry.namespace);
        }
      } finally {
        this.rebuilding = false;
      }
      if (this.blocked.size === blockedBefore || attempt === 2) return this.query;
    }
  }

  /** The capacity check over the gpushare nodes (its rules ignore cordons, health and blocked GPUs). */
  private capacityCheck(): CapacityCheck {
    this.capacity ??= new CapacityCheck(this.coreNodes(), { policy: this.policy, migReuseOnly: true });
    return this.capacity;
  }

  /** The gpushare nodes as the core's nodes (blocked GPUs unschedulable). */
  private coreNodes(): ClusterNode[] {
    return this.nodeNames().map((name) => {
      const entry = this.nodes.get(name)!;
      const node = clusterNodeOf(name, entry.inventory, entry.cordoned);
      return {
        ...node,
        gpus: node.gpus.map((g) => (this.blocked.has(`${name}\u0000${g.index}`) ? { ...g, schedulable: false } : g)),
      };
    });
  }

  /** The core's query over the nodes (blocked GPUs unschedulable), holding nothing. */
  private build(): ClusterQuery {
    const snapshot: ClusterSnapshot = { nodes: this.coreNodes(), active: [] };
    return new ClusterQuery(snapshot, { policy: this.policy, learnWorkloadOnline: true, migReuseOnly: true });
  }
}

/**
 * Whether a request could ever be held, judged on the nodes' capacity alone: every node as if it
 * were empty, every GPU healthy and the node not cordoned (what runs now, an unhealthy GPU or a
 * cordon can end; a node's GPUs, their models, memory, MIG mode and MIG instances change only when
 * the cluster itself changes). The Kubernetes extender's filter marks a node that could never hold
 * a request as unresolvable (`node-too-small`), and a request no node could ever hold as
 * `fits-no-node`, naming the node that comes closest; the kube-scheduler then tries no preemption.
 * The webhook warns about the latter at admission.
 *
 * The same rules as a placement: each empty node is ranked by the core's `ClusterQuery` (so every
 * mode, memory, model and MIG rule of node-ranking.ts applies), never by a second set of rules.
 */
import type { ClusterNode } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import { InvariantViolation } from '../model/errors.js';
import { NODE_CODES, status, type Status } from '../model/status.js';
import { ClusterQuery } from './cluster-query.js';

/**
 * Request shapes a `CapacityCheck` remembers answers for; past it, the least recently used shape
 * is forgotten (and ranked again when it comes back). A `CapacityCheck` lives until a node changes
 * and every distinct GPU part of a request is a shape (about 0.8 KB each with one kind of node,
 * more with more kinds): without a bound, a user sending pods with ever different GPU memory values
 * would grow the webhook and the extender until they run out of memory. 4,096 shapes hold about
 * 3.7 MB (one kind of node), far more shapes than a cluster runs at once.
 */
export const MAX_CAPACITY_SHAPES = 4_096;

/** How a `CapacityCheck` ranks the empty nodes. */
export interface CapacityCheckOptions {
  /** Placement policy by name (policies/registry.ts); its scores are not used, only its refusals. */
  readonly policy: string;
  /** Only MIG instances that exist count (agents that do not create instances on demand). */
  readonly migReuseOnly: boolean;
}

/** The node that comes closest to holding a request no node can hold, as the `fits-no-node` details name it. */
export interface LargestNode {
  readonly node: string;
  /** GPUs of the node (all of them, healthy or not). */
  readonly gpuCount: number;
  /** GPUs of the node in MIG mode. */
  readonly migGpuCount: number;
  /** The node's GPU models, sorted, each once. */
  readonly gpuModels: readonly string[];
  /** Memory of the node's largest GPU, MiB. */
  readonly largestGpuMemoryMiB: number;
}

/**
 * The nodes' capacity, for one set of nodes (build a new one when the nodes change). Nodes of one
 * kind (the same GPUs: models, memory, MIG mode and instances, host capacity) answer alike, so one
 * node of each kind is ranked: the cost follows the kinds of nodes, not their number.
 */
export class CapacityCheck {
  /** One node of each kind (the first by name), as if empty and healthy. */
  private readonly kinds: readonly ClusterNode[];
  /** The kind (its node's name) of every node, by name. */
  private readonly kindOf = new Map<string, string>();
  /** How many nodes there are. */
  private readonly nodeCount: number;
  private readonly options: CapacityCheckOptions;
  private query: ClusterQuery | null = null;
  /**
   * Verdicts by request shape (the GPU part of a request: nothing else counts here), least recently
   * used first; at most `MAX_CAPACITY_SHAPES`.
   */
  private readonly verdicts = new Map<string, Status | null>();
  /** Each kind's answer by request shape, then kind; least recently used first, at most `MAX_CAPACITY_SHAPES`. */
  private readonly answers = new Map<string, Map<string, Status | null>>();

  /**
   * @param nodes the cluster's nodes (their GPUs' schedulable flags are ignored: every GPU counts)
   * @throws InvariantViolation (on first use) for an unknown policy
   */
  constructor(nodes: readonly ClusterNode[], options: CapacityCheckOptions) {
    this.options = options;
    this.nodeCount = nodes.length;
    const byKind = new Map<string, ClusterNode>();
    for (const node of [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const gpus = node.gpus.map((g) => ({ ...g, schedulable: true }));
      const kind = JSON.stringify([
        node.hostCpuMilli,
        node.hostMemoryMiB,
        gpus.map(({ uuid: _uuid, ...rest }) => rest),
      ]);
      const first = byKind.get(kind);
      if (first === undefined) byKind.set(kind, { ...node, gpus });
      this.kindOf.set(node.name, first?.name ?? node.name);
    }
    this.kinds = [...byKind.values()];
  }

  /**
   * What each of `names` would answer for `job` if it were empty: null for a node that could hold
   * it, else that node's refusal (a Status of node-ranking.ts: `gpu-capacity` with the GPUs that
   * could hold a share, `gpu-memory-too-small`, `no-mig-profile`, `mig-reuse-only` for a MIG
   * instance no GPU of the node has, ...). Memoised per request shape and kind of node.
   * @throws InvariantViolation for a name that is not one of the nodes
   */
  emptyRefusals(job: JobRequest, names: readonly string[]): Map<string, Status | null> {
    const known = this.kindAnswers(job);
    return new Map(
      names.map((name) => {
        const kind = this.kindOf.get(name);
        if (kind === undefined) throw new InvariantViolation(`unknown node '${name}'`);
        return [name, known.get(kind)!];
      }),
    );
  }

  /**
   * Null when some node, empty, could hold `job`; else a lasting `fits-no-node` Status: `nodeCount`,
   * `largestNode` (a {@link LargestNode}: the node with the most GPUs that could hold a share of it,
   * then the largest GPU memory, then the most GPUs, then the first name) and `refusal` (what that
   * node answers when empty). Null too when there is no node at all (nothing to name; a node may
   * join). Memoised per request shape.
   */
  verdict(job: JobRequest): Status | null {
    if (this.nodeCount === 0) return null;
    const key = JSON.stringify(job.gpu);
    const memo = recall(this.verdicts, key);
    if (memo !== undefined) return memo;
    const answers = this.kindAnswers(job);
    let verdict: Status | null = null;
    if ([...answers.values()].every((r) => r !== null)) {
      let best: { node: ClusterNode; key: readonly [number, number, number] } | null = null;
      // Kinds are in name order, each named by its first node: ties go to the first name.
      for (const node of this.kinds) {
        const refusal = answers.get(node.name)!;
        const qualifying = typeof refusal.details.qualifyingGpus === 'number' ? refusal.details.qualifyingGpus : 0;
        const order = [qualifying, largestMemory(node), node.gpus.length] as const;
        if (best === null || isLarger(order, best.key)) best = { node, key: order };
      }
      const largest = best!.node;
      const largestNode: LargestNode = {
        node: largest.name,
        gpuCount: largest.gpus.length,
        migGpuCount: largest.gpus.filter((g) => g.migEnabled).length,
        gpuModels: [...new Set(largest.gpus.map((g) => g.model))].sort(),
        largestGpuMemoryMiB: largestMemory(largest),
      };
      verdict = status(NODE_CODES.fitsNoNode, true, {
        nodeCount: this.nodeCount,
        largestNode: { ...largestNode },
        refusal: answers.get(largest.name)!,
      });
    }
    remember(this.verdicts, key, verdict);
    return verdict;
  }

  /** How many request shapes the memo holds now (each at most `MAX_CAPACITY_SHAPES`). */
  memoSizes(): { verdicts: number; answers: number } {
    return { verdicts: this.verdicts.size, answers: this.answers.size };
  }

  /** Every kind's empty answer for `job`'s shape, ranked once. */
  private kindAnswers(job: JobRequest): Map<string, Status | null> {
    const key = JSON.stringify(job.gpu);
    let known = recall(this.answers, key);
    if (known === undefined) {
      const names = this.kinds.map((n) => n.name);
      const { refusals } = this.emptyQuery().rank(job, names);
      known = new Map(names.map((name) => [name, refusals.get(name) ?? null]));
      remember(this.answers, key, known);
    }
    return known;
  }

  private emptyQuery(): ClusterQuery {
    this.query ??= new ClusterQuery(
      { nodes: this.kinds, active: [] },
      { policy: this.options.policy, learnWorkloadOnline: false, migReuseOnly: this.options.migReuseOnly },
    );
    return this.query;
  }
}

/** A lasting `node-too-small` Status: `node`, empty, would still refuse the job with `refusal`. */
export function nodeTooSmall(node: string, refusal: Status): Status {
  return status(NODE_CODES.nodeTooSmall, true, { node, refusal });
}

/** The value of `key` in `memo`, moved to the most recently used end; undefined when absent. */
function recall<V>(memo: Map<string, V>, key: string): V | undefined {
  const value = memo.get(key);
  if (value !== undefined) {
    memo.delete(key);
    memo.set(key, value);
  }
  return value;
}

/** Sets `key` in `memo` (absent), first forgetting the least recently used shape when it is full. */
function remember<V>(memo: Map<string, V>, key: string, value: V): void {
  if (memo.size >= MAX_CAPACITY_SHAPES) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
}

function largestMemory(node: ClusterNode): number {
  return node.gpus.reduce((most, g) => Math.max(most, g.gpuMemoryMiB), 0);
}

/** Whether `a` comes before `b`: larger at the first figure where they differ (equal: no). */
function isLarger(a: readonly [number, number, number], b: readonly [number, number, number]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

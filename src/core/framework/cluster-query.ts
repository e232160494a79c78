/**
 * A narrow query over a cluster for a caller that places one job at a time on a node someone else
 * chose (the Kubernetes scheduler extender): built from a `ClusterSnapshot`, it ranks nodes for a
 * job (each node's score, or its refusal as a coded Status), binds a job to one node (the policy
 * chooses its GPUs; the placement is held at once), holds a placement made elsewhere, and releases
 * a job. It hides the pass's working state (`ClusterState`): no marks, units or plugins leak out.
 */
import { InvariantViolation } from '../model/errors.js';
import type { Placement } from '../model/assignment.js';
import type { ClusterSnapshot } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import { status, WAIT_CODES, type Status, type WaitReason } from '../model/status.js';
import { findPolicy } from '../policies/registry.js';
import { SeededRng } from '../random/rng.js';
import { ClusterState, type GpuUsage } from './cluster-state.js';

/** A node asked about that is neither scored nor refused by the ranking: too few GPUs with room now. */
const NO_ROOM: Status = status(WAIT_CODES.gpuCapacity, false);

/** How a `ClusterQuery` is built. */
export interface ClusterQueryOptions {
  /** Placement policy by name (policies/registry.ts), e.g. `default`. */
  readonly policy: string;
  /** Ask a policy that can learn the workload from arrivals to do so. */
  readonly learnWorkloadOnline: boolean;
  /**
   * Only idle MIG instances count when ranking (no instance created or destroyed): a cluster whose
   * agents do not reconfigure MIG. A node that would need a new instance is refused with
   * `mig-reuse-only`.
   */
  readonly migReuseOnly: boolean;
  /** Tie-break seed of the policy. @defaultValue 1 */
  readonly seed?: number;
}

/**
 * What `rank` answers: every node asked about is in exactly one of the two maps (a node name asked
 * twice, once).
 */
export interface NodeAnswers {
  /** Nodes that can take the job now, by name, with the policy's total: higher is better. */
  readonly scores: ReadonlyMap<string, number>;
  /** Nodes that cannot, by name, with why (refusalMessage() writes the line). */
  readonly refusals: ReadonlyMap<string, Status>;
}

/** What `bind` answers: the placement it holds now, or why the node cannot take the job. */
export type BindOutcome = { readonly placement: Placement } | { readonly refusal: WaitReason };

/** The cluster as a one-job-at-a-time caller sees it. */
export class ClusterQuery {
  private readonly state: ClusterState;
  private readonly migReuseOnly: boolean;

  /**
   * Builds the query over `snapshot` (its nodes; its active jobs are held, no host CPU or memory
   * counted for a job that asks for none). Time-sliced GPUs do not overcommit.
   * @throws InvariantViolation for an unknown policy, a node listed twice, or active jobs that
   *   over-commit a node
   */
  constructor(snapshot: ClusterSnapshot, options: ClusterQueryOptions) {
    const policy = findPolicy(options.policy);
    if (!policy) throw new InvariantViolation(`unknown policy '${options.policy}'`);
    this.migReuseOnly = options.migReuseOnly;
    this.state = new ClusterState(snapshot, {
      profile: (unitCount) => policy.create({ nodeCount: unitCount, learnWorkloadOnline: options.learnWorkloadOnline }),
      rng: new SeededRng(options.seed ?? 1),
      timesliceOvercommitRatio: 1,
    });
  }

  /**
   * Ranks `nodes` (names) for `job`: each node's score, or its refusal. Holds nothing and draws
   * nothing from the rng; its cost follows the number of nodes asked about.
   * @throws InvariantViolation for a name that is not a node of the snapshot
   */
  rank(job: JobRequest, nodes: readonly string[]): NodeAnswers {
    const indices = nodes.map((name) => this.state.indexOf(name));
    const ranking = this.state.rankNodes(job, indices, this.migReuseOnly);
    const scores = new Map<string, number>();
    const refusals = new Map<string, Status>();
    for (let i = 0; i < nodes.length; i++) {
      const score = ranking.scores.get(indices[i]!);
      if (score !== undefined) scores.set(nodes[i]!, score);
      else refusals.set(nodes[i]!, ranking.reasons.get(indices[i]!) ?? NO_ROOM);
    }
    return { scores, refusals };
  }

  /**
   * A number that changes when the policy's scores may change without any hold or release (a
   * policy that learns the workload rebuilt it): a `rank` answer for a node stays valid while that
   * node holds the same jobs and this number is the same.
   */
  scoreEpoch(): number {
    let epoch = 0;
    for (const { plugin } of this.state.groups.scheduler.profile.scores) epoch += plugin.cacheEpoch?.() ?? 0;
    return epoch;
  }

  /**
   * Places `job` on node `node` only (the policy chooses the GPUs, MIG instances as the placement
   * says) and holds it at once under `job.id`. Never throws for a job that does not fit there.
   * @throws InvariantViolation for an unknown node
   */
  bind(job: JobRequest, node: string): BindOutcome {
    const outcome = this.state.tryPlace(job, null, null, this.state.indexOf(node));
    return outcome.kind === 'placed' ? { placement: outcome.placement } : { refusal: outcome.reason };
  }

  /**
   * Holds `placement` of job `jobId` (of `tenant`) on `node`, a placement made elsewhere (a running
   * job), with no host CPU or memory.
   * @throws InvariantViolation when it does not fit (over-commit), names an unknown node or GPU, or
   *   the job is held already
   */
  hold(jobId: number, node: string, placement: Placement, tenant: string): void {
    this.state.hold({ jobId, node, cpuMilli: 0, hostMemoryMiB: 0, placement }, tenant);
  }

  /** Frees what job `jobId` holds; a no-op for a job that holds nothing. */
  release(jobId: number): void {
    this.state.release(jobId);
  }

  /** Per-GPU usage of every node, by node (snapshot order) then GPU index: for views and metrics. */
  usage(): GpuUsage[] {
    return this.state.usage();
  }
}

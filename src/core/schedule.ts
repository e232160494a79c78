/**
 * The scheduler core's one entry: from a cluster snapshot, the pending requests, the time and a
 * source of randomness to a `Plan` (placements, at most one preemption, MIG changes, and why every
 * other job waits). Pure: no I/O, no clock, no global state; the same input gives the same plan.
 * The standalone server calls `schedule` once per pass; the simulator keeps a `SchedulingSession`
 * (the same pass over a state it keeps between passes, because a trace replay of 10,000 arrivals
 * on 1,213 nodes cannot rebuild its cluster for each one).
 */
import type { SchedulingProfile } from './framework/extension-points.js';
import { ClusterState } from './framework/cluster-state.js';
import type { Plan, PlannedPreemption } from './framework/plan.js';
import { Statement } from './framework/statement.js';
import type { TargetWorkload } from './fragmentation/target-workload.js';
import type { TenantQuota } from './fairness/quota.js';
import type { ActiveJob, ClusterSnapshot } from './model/cluster.js';
import type { GpuDevice } from './model/gpu-device.js';
import { InvariantViolation } from './model/errors.js';
import type { JobRequest } from './model/request.js';
import { findPolicy, POLICY_NAMES } from './policies/registry.js';
import { choosePreemption, preemptionPossible, type PreemptionSettings } from './pass/choose-preemption.js';
import { buildPassRules, gpuLookupOf, type GpuLookup, type QosViolator } from './pass/pass-rules.js';
import { runPass } from './pass/run-pass.js';
import { explainWait } from './framework/explain-wait.js';
import type { WaitReason } from './model/status.js';
import { QueueIndex } from './queue/queue-index.js';
import type { Rng } from './random/rng.js';

/** The rules of a control plane's pass (docs/fair-share.md, docs/preemption.md, docs/qos.md). */
export interface PassRulesOptions {
  /** Tenants' quotas (and fair-share weights); a tenant not listed has no quota. */
  readonly tenants: readonly TenantQuota[];
  /** Running jobs that miss a QoS target: their GPUs take no newly placed job of lower priority. */
  readonly qosViolators?: readonly QosViolator[];
  /** EASY backfill against the first blocked job. @defaultValue true */
  readonly backfill?: boolean;
  /** Preemption limits; null (the default) when no preemption may start in this pass (e.g. one is in flight). */
  readonly preemption?: PreemptionSettings | null;
  /** Sizes of queued jobs kept across passes (a memo; see pass-rules.ts). */
  readonly sizeCache?: Map<number, number>;
  /**
   * With a QueueIndex: visit every job even when the rest can only wait (a benchmark's baseline). @defaultValue false
   */
  readonly visitEveryJob?: boolean;
}

/** How a pass places. */
export interface ScheduleOptions {
  /** Placement policy, a name of policies/registry.ts. @defaultValue 'default' */
  readonly policy?: string;
  /**
   * The workload the policy measures fragmentation against (`default`, `fgd`): the cluster's
   * recent request shapes. Without one, `default` learns it from the requests it sees.
   */
  readonly targetWorkload?: TargetWorkload;
  /** Learn the workload from the requests even when `targetWorkload` is given (`default`). */
  readonly learnWorkloadOnline?: boolean;
  /** How far `timeslice` GPUs may overcommit compute (≥ 1). @defaultValue 1 */
  readonly timesliceOvercommitRatio?: number;
  /** Tie-break rank per node, lower wins; default: node order. */
  readonly nodeRank?: Int32Array;
  /** Changes the policy's profile (e.g. a benchmark baseline without the score cache). */
  readonly adjustProfile?: (profile: SchedulingProfile) => SchedulingProfile;
  /** One tenant per MPS GPU (cluster-state.ts, docs/decisions/0014). @defaultValue true */
  readonly mpsOneTenantPerGpu?: boolean;
  /**
   * Choose each job's node on a view of its sharing mode, where GPUs the mode cannot use show no
   * room, and a `mig` job's node by the policy too (framework/mode-views.ts); the cluster's GPUs must
   * be of one model. The simulator's hybrid sharing sets it. @defaultValue false
   */
  readonly modeViews?: boolean;
  /**
   * With `modeViews`: switch empty GPUs into MIG mode for `mig` jobs that find no room on their
   * node's MIG GPUs (framework/mig-switching.ts; the placement's `migChanges.enableMig` marks them).
   * @defaultValue false
   */
  readonly migModeOnDemand?: boolean;
}

/** Per-pass settings. */
export interface PassInput {
  /** Now, ms since the epoch (aging, backfill, preemption guards). */
  readonly nowMs: number;
  /** The control plane's rules; absent for a plain pass (every job that fits is placed in priority order). */
  readonly rules?: PassRulesOptions;
  /** The jobs that hold resources, for the rules (quota use, fair share, backfill, preemption candidates). */
  readonly active?: readonly ActiveJob[];
}

/**
 * Jobs waiting to be placed: a list in any order, or a control plane's QueueIndex (taken lazily in queue order;
 * run-pass.ts).
 */
export type PendingJobs = readonly JobRequest[] | QueueIndex;

/** Everything `schedule` needs. */
export interface ScheduleInput extends PassInput {
  readonly snapshot: ClusterSnapshot;
  /** Jobs waiting to be placed. */
  readonly pending: PendingJobs;
  readonly rng: Rng;
  readonly options?: ScheduleOptions;
}

/**
 * Plans one scheduling pass. The plan's placements are to be applied in one transaction; its
 * preemption's victims are to be stopped with the preemption signal.
 * @throws InvariantViolation when the snapshot itself breaks a rule (over-commit, unknown GPU) or names an unknown
 * policy
 */
export function schedule(input: ScheduleInput): Plan {
  return new SchedulingSession(input.snapshot, input.rng, input.options).schedule(input.pending, {
    ...input,
    active: input.snapshot.active,
  });
}

/**
 * A cluster state kept between passes (the passes of `schedule`, over one evolving cluster), and
 * the pending jobs a control plane keeps between passes (`queue`). A control plane starts each pass
 * from a fresh snapshot (`refresh`) and runs it over its queue (`scheduleQueue`).
 */
export class SchedulingSession {
  /**
   * The pending jobs kept between passes, in queue order without sorting (QueueIndex: a pass takes
   * them lazily and may stop early). Owned by the session; its owner adds and removes jobs.
   */
  readonly queue = new QueueIndex();
  private current: ClusterState;
  private readonly rng: Rng;
  /** The GPUs and host CPU for the pass rules, worked out at the first pass with rules (until a refresh). */
  private cluster?: {
    readonly gpus: readonly { readonly node: string; readonly device: GpuDevice }[];
    readonly gpuLookup: GpuLookup;
    readonly hostCpuMilli: number;
  };

  /** @throws InvariantViolation as `schedule` */
  constructor(snapshot: ClusterSnapshot, rng: Rng, options: ScheduleOptions = {}) {
    this.rng = rng;
    this.current = clusterStateOf(snapshot, rng, options);
  }

  /** The cluster state the passes place on (replaced by `refresh`). */
  get state(): ClusterState {
    return this.current;
  }

  /**
   * Starts over from `snapshot` with `options`: the cluster state is built anew (the same
   * randomness goes on); the queue is kept.
   * @throws InvariantViolation as `schedule`
   */
  refresh(snapshot: ClusterSnapshot, options: ScheduleOptions = {}): void {
    this.current = clusterStateOf(snapshot, this.rng, options);
    this.cluster = undefined;
  }

  /** Runs one pass over the session's own `queue` (see `schedule`). */
  scheduleQueue(pass: PassInput): Plan {
    return this.schedule(this.queue, pass);
  }

  /**
   * Runs one pass over `pending`. Its placements stay held in this session's state (apply them);
   * a job leaves with `release`.
   */
  schedule(pending: PendingJobs, pass: PassInput): Plan {
    const statement = new Statement(this.state);
    const rulesOptions = pass.rules;
    const active = pass.active ?? [];
    const rules =
      rulesOptions === undefined
        ? null
        : buildPassRules({
            active,
            tenants: rulesOptions.tenants,
            ...this.clusterFacts(),
            nowMs: pass.nowMs,
            ...(rulesOptions.sizeCache ? { sizeCache: rulesOptions.sizeCache } : {}),
            ...(rulesOptions.qosViolators ? { qosViolators: rulesOptions.qosViolators } : {}),
          });
    let top = Number.NEGATIVE_INFINITY;
    if (Array.isArray(pending)) for (const j of pending as readonly JobRequest[]) top = Math.max(top, j.priority);
    else top = (pending as QueueIndex).maxPriority();
    // A preemption needs every waiting job in order: a pass that may start one visits them all.
    const mayPreempt = rules !== null && rulesOptions?.preemption != null && preemptionPossible(top, active, rules);
    const outcome = runPass(statement, pending, {
      rules,
      backfill: rulesOptions?.backfill ?? true,
      stopEarly: !mayPreempt && rulesOptions?.visitEveryJob !== true,
    });
    let preemption: PlannedPreemption | null = null;
    if (rules !== null && rulesOptions?.preemption && outcome.waiting.length > 0) {
      if (mayPreempt) {
        // A job kept off protected GPUs waits for the QoS violation to end, not for a preemption.
        const waitingIds = new Set(outcome.waiting.map((w) => w.jobId));
        const waiting = outcome.order.filter((j) => waitingIds.has(j.id) && !outcome.protectedWaiting.has(j.id));
        preemption = choosePreemption({
          waiting,
          active,
          rules,
          statement,
          nowMs: pass.nowMs,
          settings: rulesOptions.preemption,
        });
      }
    }
    statement.commit();
    return {
      placements: statement.placements(),
      preemption,
      migReconfigurations: statement.migReconfigurations(),
      waiting: outcome.waiting,
      unvisited: outcome.unvisited,
      blockedJobId: outcome.blockedJobId,
    };
  }

  /**
   * `reason` (why `job` waits, from a pass of this session) with the figures that cost a walk over
   * the GPUs, as the cluster is now: how many GPUs qualify at most (`gpu-capacity`,
   * `qualifyingGpus`), which GPUs run MPS jobs of other tenants and whose (`mps-tenant`, `gpus`).
   * Other reasons come back as they are. Reads the state; changes nothing.
   */
  explainWait(job: JobRequest, reason: WaitReason): WaitReason {
    return explainWait(this.state, job, reason);
  }

  /** Frees what job `jobId` holds (it ended or was evicted). */
  release(jobId: number): void {
    this.state.release(jobId);
  }

  /**
   * Whether `job` would fit now if the jobs `jobIds` held nothing (ids of jobs that hold nothing
   * are ignored): the preemption planner's oracle as a what-if. Changes nothing, asks no policy,
   * draws nothing.
   */
  fitsWithout(job: JobRequest, jobIds: readonly number[]): boolean {
    const statement = new Statement(this.state);
    const fits = statement.fitsWithout(job, jobIds);
    statement.commit();
    return fits;
  }

  private clusterFacts(): NonNullable<SchedulingSession['cluster']> {
    if (this.cluster === undefined) {
      const gpus = this.state.nodes.flatMap((n) =>
        [...n.devices.values()].map((d) => ({ node: n.node.name, device: d.device })),
      );
      this.cluster = {
        gpus,
        gpuLookup: gpuLookupOf(gpus),
        hostCpuMilli: this.state.nodes.reduce((sum, n) => sum + n.node.hostCpuMilli, 0),
      };
    }
    return this.cluster;
  }
}

/** The cluster state of `snapshot` for the options' policy. @throws InvariantViolation as `schedule` */
function clusterStateOf(snapshot: ClusterSnapshot, rng: Rng, options: ScheduleOptions): ClusterState {
  const name = options.policy ?? 'default';
  const policy = findPolicy(name);
  if (!policy) throw new InvariantViolation(`unknown policy '${name}'; allowed: ${POLICY_NAMES.join(', ')}`);
  const profile = (nodeCount: number): SchedulingProfile => {
    const created = policy.create({
      nodeCount,
      ...(options.targetWorkload ? { targetWorkload: options.targetWorkload } : {}),
      learnWorkloadOnline: options.learnWorkloadOnline ?? false,
    });
    return options.adjustProfile ? options.adjustProfile(created) : created;
  };
  return new ClusterState(snapshot, {
    profile,
    rng,
    timesliceOvercommitRatio: options.timesliceOvercommitRatio ?? 1,
    mpsOneTenantPerGpu: options.mpsOneTenantPerGpu ?? true,
    modeViews: options.modeViews ?? false,
    migModeOnDemand: options.migModeOnDemand ?? false,
    ...(options.nodeRank ? { nodeRank: options.nodeRank } : {}),
  });
}

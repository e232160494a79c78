/**
 * One scheduling pass of the server: builds the cluster snapshot (this node, its GPUs, the jobs
 * that hold resources, read from the store), asks the scheduler core for a `Plan`
 * (core/schedule.ts), and applies it in one store transaction: placed jobs go from `pending` (or
 * `preempted`) to `scheduled`, and each preemption victim gets its stop intent stored
 * (`preemption requested: …`, so a restart during the checkpoint still ends its attempt as
 * preempted). Launching the placed jobs and stopping the victims is the caller's business.
 */
import {
  POLICY_NAMES,
  SchedulingSession,
  findPolicy,
  JOB_EVENT_CODES,
  jobEventReason,
  type ActiveJob,
  type ClusterSnapshot,
  type ClusterState,
  type PlannedPreemption,
  type ScheduleOptions,
  type JobEventReason,
  type StatusDetails,
} from '../../core/index.js';
import { isDiskFullError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { JobChange, JobRecord, StateStore } from '../ports/state-store.js';
import type { QosTracker } from '../qos/qos-tracker.js';
import type { GpuRoster } from './gpu-roster.js';
import type { JobQueue } from './job-queue.js';
import type { ControlPlaneSettings, Logger } from './plane-deps.js';
import type { PlaneEvents } from './plane-events.js';
import type { PassStats } from './pass-stats.js';
import { PassHints, type PassCause } from './pass-hints.js';
import { describePlacement } from './placement-reason.js';
import { jobRequestOf } from './job-request.js';
import { NO_JOB_HOST_LIMITS, type JobHostLimitSettings } from './job-host-limits.js';
import type { RecentShapes } from './recent-shapes.js';
import type { RunningJobs } from './running-jobs.js';
import type { StopIntents } from './stop-intents.js';
import type { Rng } from '../../core/index.js';

/** The placement policy when the settings name none (docs/default-policy.md). */
const DEFAULT_POLICY = 'default';

/** What a pass reads and writes. */
export interface SchedulingPassDeps {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly rng: Rng;
  readonly logger: Logger;
  readonly settings: ControlPlaneSettings;
  readonly events: PlaneEvents;
  readonly stats: PassStats;
  readonly roster: GpuRoster;
  readonly queue: JobQueue;
  readonly intents: StopIntents;
  readonly running: RunningJobs;
  readonly qos: QosTracker;
  readonly recentShapes: RecentShapes;
}

/** What a pass decided, once stored. */
export interface PassOutcome {
  /** Jobs now `scheduled`, to launch. */
  readonly placedJobIds: readonly number[];
  /** The preemption started, with the reason its victims are stopped for; null for none. */
  readonly preemption: (PlannedPreemption & { readonly reason: JobEventReason }) | null;
  /**
   * When a pass is due again with nothing else happening, ms since the epoch: the first time a
   * running preemptible job passes the preemption guard's minimum run time while jobs wait (it may
   * become a victim then); null for never.
   */
  readonly wakeAtMs: number | null;
  /** True when storing the pass failed (nothing of it was applied). */
  readonly failed?: boolean;
}

/** Runs passes. */
export class SchedulingPass {
  /** What happened since the last pass (pass-hints.ts): a timer pass with nothing noted is skipped. */
  private readonly hints = new PassHints();

  /** @throws RangeError when `settings.policy` names no policy of the core's registry */
  constructor(private readonly deps: SchedulingPassDeps) {
    const policy = deps.settings.policy ?? DEFAULT_POLICY;
    if (!findPolicy(policy)) throw new RangeError(`unknown policy '${policy}'; allowed: ${POLICY_NAMES.join(', ')}`);
  }

  /** Notes that `cause` happened: the next pass runs (pass-hints.ts). */
  note(cause: PassCause): void {
    this.hints.note(cause);
  }

  /**
   * A pass when one is due (something was noted, a wake-up time came, a quota changed) or `force`;
   * null when it was skipped (counted in the stats) or nothing waits.
   */
  runIfDue(force: boolean): PassOutcome | null {
    const { clock, queue } = this.deps;
    const nowMs = clock.nowMs();
    if (queue.size === 0) {
      this.hints.ran(nowMs, null); // nothing waits: whatever happened needs no pass
      return null;
    }
    const started = clock.monotonicMs();
    if (!force && this.hints.due(nowMs, this.quotaKey()) === null) {
      this.deps.stats.recordSkipped(clock.monotonicMs() - started);
      return null;
    }
    const outcome = this.run(force);
    if (!outcome.failed) this.hints.ran(nowMs, outcome.wakeAtMs);
    return outcome;
  }

  /** The tenants' quotas as one string: a change makes a pass due. */
  private quotaKey(): string {
    return this.deps.store
      .listTenants()
      .map((t) => `${t.name}:${t.guaranteedGpuEquivalents}:${t.limitGpuEquivalents}`)
      .join(',');
  }

  /** The cluster as the core sees it now: this node and the jobs that hold resources on it. */
  snapshot(): ClusterSnapshot {
    const { store, settings, roster, running, intents } = this.deps;
    const known = new Set(roster.inventoryGpus().map((g) => g.index));
    const active: ActiveJob[] = [];
    for (const job of store.listJobs({ states: ['scheduled', 'running'] })) {
      if (!job.placement) continue;
      // A job on a GPU this server never saw (the GPUs changed across a restart) cannot be placed in the snapshot.
      if (job.placement.gpus.some((g) => !known.has(g.index))) continue;
      active.push(
        activeJob(
          job,
          settings.nodeName,
          running.preemptionCount(job.id),
          intents.has(job.id),
          settings.jobHostLimits ?? NO_JOB_HOST_LIMITS,
        ),
      );
    }
    return {
      nodes: [
        {
          name: settings.nodeName,
          hostCpuMilli: settings.hostCpuMilli,
          hostMemoryMiB: settings.hostMemoryMiB,
          gpus: roster.devices(),
        },
      ],
      active,
    };
  }

  /**
   * The cluster as a pass would start from it now (the snapshot's jobs held), built with the pass's
   * own options: the configured policy, the recent submits' target workload, the overcommit ratio.
   * What the GPUs hold (`usage`) and their idle MIG instances are read from it.
   */
  clusterState(): ClusterState {
    return new SchedulingSession(this.snapshot(), this.deps.rng, this.options()).state;
  }

  /** The core's options of a pass: the configured policy and its target workload, the overcommit ratio. */
  private options(): ScheduleOptions {
    return {
      policy: this.deps.settings.policy ?? DEFAULT_POLICY,
      targetWorkload: this.deps.recentShapes.targetWorkload(),
      timesliceOvercommitRatio: this.deps.settings.timesliceOvercommitRatio,
    };
  }

  /**
   * One pass over the queue; see the module comment. Never throws: a failed store write is logged
   * and undoes the pass.
   * @param visitEveryJob visit every queued job even when the rest can only wait (the benchmark's baseline)
   */
  run(visitEveryJob = false): PassOutcome {
    const { store, clock, settings, queue, intents, roster, logger } = this.deps;
    const started = clock.monotonicMs();
    const nowMs = clock.nowMs();
    const qosViolators =
      settings.qosProtection === 'none'
        ? []
        : this.deps.qos
            .violatingJobs()
            .map((v) => ({ jobId: v.jobId, priority: v.priority, node: settings.nodeName, gpuIndices: v.gpuIndices }));
    const snapshot = this.snapshot();
    queue.beginPass();
    // The queue's session, from the snapshot of now: its state after the pass explains the waits when read.
    const session = queue.session;
    session.refresh(snapshot, this.options());
    const plan = session.scheduleQueue({
      nowMs,
      active: snapshot.active,
      rules: {
        tenants: store.listTenants().map((t) => ({
          tenant: t.name,
          guaranteedGpuEquivalents: t.guaranteedGpuEquivalents,
          limitGpuEquivalents: t.limitGpuEquivalents,
        })),
        qosViolators,
        backfill: true,
        sizeCache: queue.sizes,
        visitEveryJob,
        // One preemption in flight at a time: none starts while victims are still checkpointing.
        preemption: intents.preempting()
          ? null
          : {
              minRunSeconds: settings.preemptionMinRunMs / 1000,
              maxPreemptionsPerJob: settings.maxPreemptionsPerJob,
              maxPreemptorsTried: 1,
            },
      },
    });
    queue.setPassReasons(plan, session);
    const preemptor = plan.preemption === null ? undefined : queue.get(plan.preemption.preemptorId);
    const preemptorDetails: StatusDetails = preemptor
      ? { preemptorJobId: preemptor.id, preemptorPriority: preemptor.priority, preemptorTenant: preemptor.tenant }
      : {};
    const reason = jobEventReason(JOB_EVENT_CODES.preempted, preemptorDetails);
    const changes: JobChange[] = plan.placements.map(({ jobId, placement }) => ({
      jobId,
      atMs: nowMs,
      expectState: queue.stateOf(jobId),
      to: 'scheduled',
      reason: describePlacement(placement, queue.get(jobId), roster),
      patch: { placement, reason: null },
    }));
    for (const victimId of plan.preemption?.victimIds ?? [])
      changes.push({
        jobId: victimId,
        atMs: nowMs,
        expectState: 'running',
        patch: { reason: jobEventReason(JOB_EVENT_CODES.preemptionRequested, preemptorDetails) },
      });
    const wakeAtMs = plan.waiting.length === 0 ? null : minRunWake(snapshot.active, nowMs, settings.preemptionMinRunMs);
    let outcome: PassOutcome = { placedJobIds: [], preemption: null, wakeAtMs };
    if (changes.length > 0) {
      try {
        store.applyJobChanges(changes);
        for (const { jobId } of plan.placements) queue.remove(jobId);
        if (plan.preemption !== null) {
          logger.info({ ...plan.preemption }, 'preempting');
          intents.addPreemptor(plan.preemption.preemptorId, plan.preemption.victimIds);
          for (const victimId of plan.preemption.victimIds) intents.set(victimId, { kind: 'preempted', reason });
          this.deps.events.emit({
            type: 'preemption',
            preemptorId: plan.preemption.preemptorId,
            victimIds: plan.preemption.victimIds,
            reason,
            atMs: nowMs,
          });
        }
        outcome = {
          placedJobIds: plan.placements.map((p) => p.jobId),
          preemption: plan.preemption && { ...plan.preemption, reason },
          wakeAtMs,
        };
      } catch (error) {
        // A full disk is logged once by the disk watch (docs/server.md), not on every pass.
        if (!isDiskFullError(error)) logger.error({ err: error }, 'storing the pass failed; nothing of it was applied');
        outcome = { ...outcome, failed: true };
      }
    }
    for (const [id, why] of intents.preemptorReasons((id) => queue.has(id))) queue.setReason(id, why);
    const durationMs = clock.monotonicMs() - started;
    this.deps.stats.record(durationMs, queue.size + outcome.placedJobIds.length);
    this.deps.events.emit({
      type: 'pass',
      durationMs,
      pendingJobs: queue.size,
      placedJobs: outcome.placedJobIds.length,
    });
    return outcome;
  }
}

/**
 * The first time after `nowMs` a running preemptible job has run `minRunMs` (it may be preempted from
 * then on); null for none.
 */
function minRunWake(active: readonly ActiveJob[], nowMs: number, minRunMs: number): number | null {
  let wake: number | null = null;
  for (const job of active) {
    if (!job.preemptible || job.stopping || job.startedAtMs === null) continue;
    const at = job.startedAtMs + minRunMs;
    if (at > nowMs && (wake === null || at < wake)) wake = at;
  }
  return wake;
}

/** A stored job that holds resources, as the core's pass rules see it (its default host memory as its request). */
function activeJob(
  job: JobRecord,
  node: string,
  preemptionCount: number,
  stopping: boolean,
  hostLimits: JobHostLimitSettings,
): ActiveJob {
  const request = jobRequestOf(job, hostLimits);
  return {
    request,
    assignment: {
      jobId: job.id,
      node,
      cpuMilli: job.cpuMilli,
      hostMemoryMiB: request.hostMemoryMiB,
      placement: job.placement!,
    },
    preemptible: job.preemptible,
    startedAtMs: job.state === 'running' ? job.startedAtMs : null,
    preemptionCount,
    stopping,
  };
}

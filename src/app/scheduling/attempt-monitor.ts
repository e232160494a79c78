/**
 * Watches the live attempts to their end and settles each end (docs/server.md "Job lifecycle"):
 * on every monitor tick, an attempt whose process left an outcome, or vanished without one
 * (`lost`), is settled in one store write — the end decided by `decideAttemptEnd` from the outcome,
 * the stop intent gpushare had and the retries left — and the job leaves the running set; a job
 * that is re-queued (retry, preemption) goes back to the queue. A running job past its time limit
 * gets the `time-limit` stop; one the kernel counted against its process or memory limit
 * (job-host-limits.ts) gets a `host-limit` stop (SIGKILL) and ends `process-limit` or
 * `host-memory-limit`.
 *
 * A full disk: the ended attempt waits (its outcome file keeps its end, exit code and times) and
 * is settled on the first tick after space returns, with the time the command really ended; the
 * write's failure is reported to the disk state, not logged per job and tick.
 */
import type { ProcessLauncher, ProcessOutcome } from '../ports/process-launcher.js';
import type { Clock } from '../ports/clock.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import { decideAttemptEnd } from './attempt-end.js';
import type { DiskState } from './disk-state.js';
import type { JobQueue } from './job-queue.js';
import type { PassCause } from './pass-hints.js';
import type { Logger } from './plane-deps.js';
import type { RunningJobs } from './running-jobs.js';
import type { RunningSet } from './running-set.js';
import type { StopIntents } from './stop-intents.js';
import { JOB_EVENT_CODES, type JobEventReason } from '../../core/index.js';
import { enforcedHostLimits, hostLimitReason, NO_JOB_HOST_LIMITS } from './job-host-limits.js';
import type { ControlPlaneSettings } from './plane-deps.js';

/**
 * How an attempt ended, as its supervisor recorded it (`endedAtMs`: when the process ended, ms
 * since the epoch; `error`: why the command never ran), or as the server settles it after a restart.
 */
export type AttemptOutcome = Pick<ProcessOutcome, 'exitCode' | 'signal' | 'signalDeliveredAtMs'> & {
  readonly endedAtMs?: number;
  readonly error?: string | null;
};

/** What watching attempts uses. */
export interface AttemptMonitorDeps {
  readonly store: StateStore;
  readonly launcher: ProcessLauncher;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly disk: DiskState;
  readonly running: RunningJobs;
  readonly intents: StopIntents;
  readonly runningSet: RunningSet;
  readonly queue: JobQueue;
  /** Notes what happened (`job-ended`, `requeued`) and asks for a pass (pass-hints.ts). */
  readonly reschedule: (cause: PassCause) => void;
  /** The default host limits of jobs (absent: none). */
  readonly settings?: Pick<ControlPlaneSettings, 'jobHostLimits'>;
}

/** Watches running attempts and settles their ends. */
export class AttemptMonitor {
  constructor(private readonly deps: AttemptMonitorDeps) {}

  /**
   * One monitor tick over every running job (by ascending id): settles the ended attempts and
   * stops the jobs past their time limit. Never throws: one job's trouble (e.g. a store conflict)
   * is logged and the others are still watched; a full disk leaves the job for a later tick.
   */
  check(): void {
    const { clock, running, disk, logger } = this.deps;
    const nowMs = clock.nowMs();
    for (const job of running.all()) {
      try {
        this.checkJob(job, nowMs);
      } catch (error) {
        // A full disk: the attempt is settled on a later tick, once there is room (its outcome
        // stays in its folder meanwhile); logged once by the disk watch, not per job and tick.
        if (disk.noteError(error)) continue;
        logger.error({ jobId: job.id, err: error }, 'watching the job failed');
      }
    }
  }

  /**
   * Settles an ended attempt of `job` (as stored now) in one store write: its end (`outcome` null:
   * the process vanished without a record, `lost`), the job's next state (failed attempts with
   * retries left and preempted attempts go back to the queue), and a pass request.
   * @throws what the store throws (a conflict, a full disk); nothing is changed then
   */
  settle(job: JobRecord, outcome: AttemptOutcome | null): void {
    const { store, clock } = this.deps;
    // The time the process really ended (recorded by its supervisor), not when the server noticed;
    // never before the job's recorded start (a command that exits at once can end before the
    // server has written `running`).
    const atMs = Math.max(outcome?.endedAtMs ?? clock.nowMs(), job.startedAtMs ?? Number.NEGATIVE_INFINITY);
    // Every earlier attempt that ended, except by preemption, was a failure (a success ends the job).
    const failuresBefore = store
      .listAttempts(job.id)
      .filter((a) => a.endReason !== null && a.endReason.code !== JOB_EVENT_CODES.preempted).length;
    // A failure at a host limit the monitor did not see yet (a process the OOM killer ended just before the job did)
    // ends for that limit.
    const intent = this.deps.intents.get(job.id) ?? (outcome?.exitCode === 0 ? undefined : this.hostLimitIntent(job));
    const end = decideAttemptEnd(outcome, intent, failuresBefore, job.retries);
    const exitCode = outcome?.exitCode ?? null;
    const signal = outcome?.signal ?? null;
    store.applyJobChanges([
      {
        jobId: job.id,
        atMs,
        expectState: job.state,
        to: end.to,
        reason: end.reason,
        patch: {
          process: null,
          exitCode,
          signal,
          reportTokenDigest: null,
          ...(end.terminal ? { endedAtMs: atMs } : {}),
        },
        endAttempt: { attempt: job.attempt, exitCode, signal, endReason: end.endReason },
      },
    ]);
    this.deps.runningSet.drop(job);
    if (!end.terminal) this.deps.queue.add(store.getJob(job.id)!);
    this.deps.reschedule(end.terminal ? 'job-ended' : 'requeued');
  }

  /** The `host-limit` stop intent of a job the kernel counted against a limit that ends jobs; undefined when none. */
  private hostLimitIntent(job: JobRecord): { kind: 'host-limit'; reason: JobEventReason } | undefined {
    const { launcher, settings } = this.deps;
    if (job.process === null || launcher.limitEvents === undefined) return undefined;
    const limits = enforcedHostLimits(job, settings?.jobHostLimits ?? NO_JOB_HOST_LIMITS, launcher.enforcement);
    const reason = hostLimitReason(launcher.limitEvents(job.process, { cpu: false }), limits);
    return reason === null ? undefined : { kind: 'host-limit', reason };
  }

  private checkJob(job: JobRecord, nowMs: number): void {
    const { launcher, disk } = this.deps;
    const handle = job.process!;
    const outcome = launcher.readOutcome(handle);
    // With the disk full, an ended attempt waits (its outcome file keeps its end, exit code and
    // times) until a write can record it: settled on the first tick after space returns.
    if (outcome) {
      if (!disk.full) this.settle(job, outcome);
      return;
    }
    if (!launcher.isAlive(handle)) {
      if (!disk.full) this.settle(job, launcher.readOutcome(handle));
      return;
    }
    const pastLimit =
      job.timeLimitSeconds !== null &&
      job.startedAtMs !== null &&
      nowMs - job.startedAtMs > job.timeLimitSeconds * 1000;
    if (pastLimit && !this.deps.intents.has(job.id)) {
      this.deps.logger.info({ jobId: job.id }, 'time limit reached');
      void this.deps.runningSet.stop(job.id, { kind: 'time-limit' });
      return;
    }
    const hostLimit = this.deps.intents.has(job.id) ? undefined : this.hostLimitIntent(job);
    if (hostLimit !== undefined) {
      this.deps.logger.info({ jobId: job.id, reason: hostLimit.reason }, 'host limit reached');
      void this.deps.runningSet.stop(job.id, hostLimit);
    }
  }
}

/**
 * What a starting server does with jobs the store says are active, so that a crash or restart
 * loses and duplicates nothing:
 * 1. `running` with a live process (same PID and start time): re-adopted, it keeps running.
 * 2. `running` whose process ended meanwhile: the outcome the supervisor recorded is collected.
 * 3. `running` whose process vanished without a record: `failed`, reason `lost` (retries apply).
 * 4. `scheduled` (the server stopped while launching): if that attempt left an outcome it is
 *    collected; if it left a running command with no record, the command is killed and the job
 *    re-queued; otherwise the job simply goes back to `pending`.
 * A cancel or preemption requested before the restart (reason code `cancel-requested` or
 * `preemption-requested`) is carried out, and decides how the attempt ends.
 */
import type { Clock } from '../ports/clock.js';
import type { JobFiles } from '../ports/job-files.js';
import type { ProcessLauncher, ProcessOutcome } from '../ports/process-launcher.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import type { Logger } from './plane-deps.js';
import type { StopIntents } from './stop-intents.js';
import { JOB_EVENT_CODES, jobEventReason } from '../../core/index.js';

/** What reconciling uses: the ports, the stop intents, and the control plane's own steps. */
export interface ReconcileDeps {
  readonly store: StateStore;
  readonly launcher: ProcessLauncher;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly files: JobFiles;
  readonly intents: StopIntents;
  /** Starts watching a running job. */
  readonly adopt: (job: JobRecord) => void;
  /** Settles an ended attempt (null: the process vanished without an outcome). */
  readonly finish: (job: JobRecord, outcome: ProcessOutcome | null) => void;
  /** Sends the stop of a restored intent again. */
  readonly resumeStop: (jobId: number) => Promise<void>;
}

/** Settles every scheduled or running job of the store; see the module comment. */
export async function reconcileJobs(deps: ReconcileDeps): Promise<void> {
  const { store, launcher, logger, intents } = deps;
  for (const job of store.listJobs({ states: ['scheduled', 'running'] })) {
    if (job.state === 'scheduled') {
      await settleScheduled(deps, job);
      continue;
    }
    const handle = job.process;
    if (handle === null) {
      deps.finish(job, null);
      continue;
    }
    // A stop gpushare had asked for before the restart decides how the attempt ends.
    // Read from the stored code and details (decision 0026): no text is read back.
    if (job.reason?.code === JOB_EVENT_CODES.preemptionRequested)
      intents.restore(job.id, {
        kind: 'preempted',
        reason: jobEventReason(JOB_EVENT_CODES.preempted, job.reason.details),
      });
    if (job.reason?.code === JOB_EVENT_CODES.cancelRequested)
      intents.restore(job.id, {
        kind: 'cancelled',
        reason: jobEventReason(JOB_EVENT_CODES.cancelled, job.reason.details),
      });
    const outcome = launcher.readOutcome(handle);
    if (outcome) {
      logger.info(
        { jobId: job.id, exitCode: outcome.exitCode },
        'collected an outcome recorded while the server was down',
      );
      deps.finish(job, outcome);
    } else if (launcher.isAlive(handle)) {
      logger.info({ jobId: job.id, pid: handle.supervisorPid }, 're-adopted a running job');
      deps.adopt(job);
      if (intents.has(job.id)) await deps.resumeStop(job.id);
    } else {
      logger.warn({ jobId: job.id, pid: handle.supervisorPid }, 'process vanished without an outcome: lost');
      deps.finish(job, null);
    }
  }
}

async function settleScheduled(deps: ReconcileDeps, job: JobRecord): Promise<void> {
  const { store, clock, files, launcher } = deps;
  const attempt = job.attempt + 1;
  // No folder recorded: the launch stopped before it (the folder is recorded before the start).
  const directory = job.folder === null ? null : files.directory(job.folder);
  const outcome = directory === null ? null : launcher.readAttemptOutcome(directory, attempt);
  if (outcome) {
    store.applyJobChanges([
      {
        jobId: job.id,
        atMs: clock.nowMs(),
        expectState: 'scheduled',
        to: 'running',
        reason: jobEventReason(JOB_EVENT_CODES.attemptRecovered, { attempt }),
        patch: { attempt },
        startAttempt: attempt,
      },
    ]);
    deps.finish(store.getJob(job.id)!, outcome);
    return;
  }
  if (directory !== null) await launcher.killUnrecordedAttempt(job.id, directory, attempt);
  store.applyJobChanges([
    {
      jobId: job.id,
      atMs: clock.nowMs(),
      expectState: 'scheduled',
      to: 'pending',
      reason: jobEventReason(JOB_EVENT_CODES.requeuedAfterStop),
      patch: { attempt, placement: null },
    },
  ]);
}

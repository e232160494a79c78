/**
 * What a starting server does with jobs the store says are active, so that a crash or restart
 * loses and duplicates nothing:
 * 1. `running` with a live process (same PID and start time): re-adopted, it keeps running.
 * 2. `running` whose process ended meanwhile: the outcome the supervisor recorded is collected.
 * 3. `running` whose process vanished without a record: `failed`, reason `lost` (retries apply).
 * 4. `scheduled` (the server stopped while launching): if that attempt left an outcome it is
 *    collected; if it left a running command with no record, the command is killed and the job
 *    re-queued; otherwise the job simply goes back to `pending`.
 * A cancel or preemption requested before the restart (reason `cancel requested …` or
 * `preemption requested: …`) is carried out, and decides how the attempt ends.
 */
import type { JobRecord } from '../ports/state-store.js';
import type { ControlPlane } from './control-plane.js';

/** Reason recorded on a running job whose cancel was requested (survives restarts). */
export const CANCEL_REQUESTED = 'cancel requested';
/** Reason prefix recorded on a running preemption victim (survives restarts): `preemption requested: preempted by job N …`. */
export const PREEMPTION_REQUESTED = 'preemption requested';

/** Settles every scheduled or running job of the store; see the module comment. */
export async function reconcileJobs(plane: ControlPlane): Promise<void> {
  const { store, launcher, logger } = plane.deps;
  for (const job of store.listJobs({ states: ['scheduled', 'running'] })) {
    if (!holdAllocation(plane, job)) continue;
    if (job.state === 'scheduled') {
      await settleScheduled(plane, job);
      continue;
    }
    const handle = job.process;
    if (handle === null) {
      plane.finish(job, null);
      continue;
    }
    // A stop gpushare had asked for before the restart decides how the attempt ends.
    if (job.reason?.startsWith(PREEMPTION_REQUESTED)) plane.restoreIntent(job.id, { kind: 'preempted', reason: job.reason.slice(PREEMPTION_REQUESTED.length + 2) });
    if (job.reason?.startsWith(CANCEL_REQUESTED)) plane.restoreIntent(job.id, { kind: 'cancelled', reason: job.reason.replace(CANCEL_REQUESTED, 'cancelled') });
    const outcome = launcher.readOutcome(handle);
    if (outcome) {
      logger.info({ jobId: job.id, exitCode: outcome.exitCode }, 'collected an outcome recorded while the server was down');
      plane.finish(job, outcome);
    } else if (launcher.isAlive(handle)) {
      logger.info({ jobId: job.id, pid: handle.supervisorPid }, 're-adopted a running job');
      plane.adoptRunning(job);
      const intent = plane.stopIntent(job.id);
      if (intent) await plane.resumeStop(job.id);
    } else {
      logger.warn({ jobId: job.id, pid: handle.supervisorPid }, 'process vanished without an outcome: lost');
      plane.finish(job, null);
    }
  }
}

function holdAllocation(plane: ControlPlane, job: JobRecord): boolean {
  if (!job.placement) return true;
  try {
    plane.scheduler.hold({ jobId: job.id, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, placement: job.placement });
    return true;
  } catch (error) {
    plane.deps.logger.error({ jobId: job.id, err: error }, 'cannot re-hold the allocation of an active job (its GPUs are gone?); the job is left as stored');
    return false;
  }
}

async function settleScheduled(plane: ControlPlane, job: JobRecord): Promise<void> {
  const { store, nowMs } = plane.deps;
  const attempt = job.attempt + 1;
  const directory = plane.jobDirectory(job.id);
  const outcome = plane.deps.readAttemptOutcome(directory, attempt);
  if (outcome) {
    store.applyJobChanges([{ jobId: job.id, atMs: nowMs(), expectState: 'scheduled', to: 'running', reason: `attempt ${attempt} had started before the restart`, patch: { attempt }, startAttempt: attempt }]);
    plane.finish(store.getJob(job.id)!, outcome);
    return;
  }
  await plane.deps.killUnrecordedAttempt(job.id, directory, attempt);
  plane.scheduler.release(job.id);
  store.applyJobChanges([{ jobId: job.id, atMs: nowMs(), expectState: 'scheduled', to: 'pending', reason: 're-queued: the server stopped while launching it', patch: { attempt, placement: null } }]);
}

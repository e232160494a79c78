/**
 * Cancelling many jobs in one call (`POST /api/v1/jobs/cancel`, `gpushare cancel --state ...`;
 * docs/server.md "Cancelling many jobs"), as the single cancel does each job, authorized per job
 * with the same policy (`job.cancel`):
 *
 * - pending and preempted jobs end `cancelled` at once, all in ONE store transaction, each with the
 *   same reason (`cancelled by <who>` or `cancelled by <who>: <reason>`); they leave the queue and
 *   one scheduling pass is asked for afterwards (a cancelled job may have held back others);
 * - scheduled and running jobs are marked `cancel requested by <who>` in that same transaction and
 *   then stopped in the background; they end `cancelled` with the same reason;
 * - a dry run selects and answers alike, and changes nothing.
 *
 * When the transaction fails (a job changed state meanwhile, a full disk) nothing is changed.
 */
import type { BulkCancel, BulkCancelResult } from '../../contract/bulk-cancel.js';
import { authorize } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import { conflict } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import { StoreConflictError, type JobChange, type StateStore } from '../ports/state-store.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import { selectJobs } from './job-selection.js';
import { JOB_EVENT_CODES, jobEventReason, statusMessage, type StatusDetails } from '../../core/index.js';

/** What a bulk cancel uses. */
export interface BulkCancelDeps {
  readonly plane: Pick<ControlPlane, 'dequeueMany' | 'stopJob'>;
  readonly store: StateStore;
  readonly clock: Clock;
}

/**
 * Who cancels, as a reason's details: `{ by: 'admin' }` or `{ by: 'tenant', tenant }`, and the
 * caller's note (null: none).
 */
export function cancellerDetails(principal: Principal, note: string | null = null): StatusDetails {
  return principal.role === 'admin'
    ? { by: 'admin', tenant: null, note }
    : { by: 'tenant', tenant: principal.tenant, note };
}

/**
 * Cancels the jobs `request` selects that `principal` may cancel (see the module comment).
 * @returns the ids cancelled, stopping and skipped (each list ascending), and the reason given
 * @throws GpushareError 403 when the caller may cancel no job at all (a viewer, a report token);
 *   409 when a job changed state during the call (nothing was changed)
 */
export function bulkCancel(deps: BulkCancelDeps, principal: Principal, request: BulkCancel): BulkCancelResult {
  // A caller who may not cancel even a job of its own is refused as a whole.
  authorize(principal, 'job.cancel', { tenant: principal.tenant, ownerTokenId: principal.tokenId ?? null });
  const { store, clock, plane } = deps;
  const { jobs, skipped } = selectJobs(store, principal, 'job.cancel', {
    ...(request.ids === undefined ? {} : { ids: request.ids }),
    ...(request.state === undefined ? {} : { states: request.state }),
    ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
    ...(request.name === undefined ? {} : { name: request.name }),
    ...(request.since === undefined ? {} : { submittedSinceMs: Date.parse(request.since) }),
  });
  const who = cancellerDetails(principal, request.reason ?? null);
  const reason = jobEventReason(JOB_EVENT_CODES.cancelled, who);
  const cancelled = jobs.filter((j) => j.state === 'pending' || j.state === 'preempted');
  const stopping = jobs.filter((j) => j.state === 'scheduled' || j.state === 'running');
  const result: BulkCancelResult = {
    dryRun: request.dryRun,
    cancelled: cancelled.map((j) => j.id),
    stopping: stopping.map((j) => j.id),
    skipped,
    reason: statusMessage(reason),
  };
  if (request.dryRun || jobs.length === 0) return result;

  const atMs = clock.nowMs();
  const changes: JobChange[] = [
    ...cancelled.map((j): JobChange => ({
      jobId: j.id,
      atMs,
      expectState: j.state,
      to: 'cancelled',
      reason,
      patch: { endedAtMs: atMs },
    })),
    ...stopping.map((j): JobChange => ({
      jobId: j.id,
      atMs,
      expectState: j.state,
      patch: { reason: jobEventReason(JOB_EVENT_CODES.cancelRequested, who) },
    })),
  ];
  try {
    store.applyJobChanges(changes);
  } catch (error) {
    if (error instanceof StoreConflictError)
      throw conflict(
        `a selected job changed state during the cancel, so nothing was cancelled; try again (${error.message})`,
      );
    throw error;
  }
  // Out of the queue, and one pass asked for (a cancelled job may have been the one backfill protected).
  plane.dequeueMany(cancelled.map((job) => job.id));
  // Answer at once: the stops (signal, grace period, kill) go on in the background.
  for (const job of stopping) void plane.stopJob(job.id, { kind: 'cancelled', reason });
  return result;
}

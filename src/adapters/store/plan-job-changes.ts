/**
 * The checks every state store runs before it writes a batch of job changes, and the rules for
 * what a change does to a job's `reason`. Shared by the SQLite and the in-memory store so both
 * accept and reject exactly the same batches.
 */
import { canTransition, type JobEventReason, type JobState } from '../../core/index.js';
import { type JobChange, StoreConflictError } from '../../app/ports/state-store.js';

/** What the checks need to know about stored jobs. */
export interface StoredJobLookup {
  /** The stored state of a job, or null when no job has that id. */
  jobState(jobId: number): JobState | null;
  /** True when the job has a stored record of that attempt number. */
  hasAttempt(jobId: number, attempt: number): boolean;
}

/** One checked change: the job's state before and after it. */
export interface PlannedJobChange {
  readonly change: JobChange;
  readonly fromState: JobState;
  readonly toState: JobState;
}

/**
 * Checks a batch before anything is written. Changes apply in order, so a later change to the same
 * job sees the state (and the attempts) the earlier ones leave.
 * @returns one planned change per change, in order
 * @throws StoreConflictError when a job does not exist, a job is not in its change's `expectState`,
 *   its `to` is not a legal transition from the state it is in (core/model/job-lifecycle.ts),
 *   `startAttempt` names an attempt already recorded, or `endAttempt` names one that is not
 */
export function planJobChanges(changes: readonly JobChange[], lookup: StoredJobLookup): PlannedJobChange[] {
  const states = new Map<number, JobState>();
  const startedInBatch = new Set<string>();
  const planned: PlannedJobChange[] = [];
  for (const change of changes) {
    const { jobId } = change;
    const fromState = states.get(jobId) ?? lookup.jobState(jobId);
    if (fromState === null) throw new StoreConflictError(`job ${jobId} does not exist`);
    if (change.expectState !== undefined && change.expectState !== fromState) {
      throw new StoreConflictError(`job ${jobId} is ${fromState}, expected ${change.expectState}`);
    }
    if (change.to !== undefined && !canTransition(fromState, change.to)) {
      throw new StoreConflictError(
        `job ${jobId}: ${fromState} → ${change.to} is not a transition of the job lifecycle`,
      );
    }
    const hasAttempt = (attempt: number): boolean =>
      startedInBatch.has(`${jobId}:${attempt}`) || lookup.hasAttempt(jobId, attempt);
    if (change.startAttempt !== undefined) {
      if (hasAttempt(change.startAttempt)) {
        throw new StoreConflictError(`job ${jobId} already has attempt ${change.startAttempt}`);
      }
      startedInBatch.add(`${jobId}:${change.startAttempt}`);
    }
    if (change.endAttempt !== undefined && !hasAttempt(change.endAttempt.attempt)) {
      throw new StoreConflictError(`job ${jobId} has no attempt ${change.endAttempt.attempt} to end`);
    }
    const toState = change.to ?? fromState;
    states.set(jobId, toState);
    planned.push({ change, fromState, toState });
  }
  return planned;
}

/**
 * What a change does to the job's `reason`: `patch.reason` when the patch has one (null clears
 * it); otherwise, on a state change (`to` given), the change's `reason` (null when absent), so a
 * job never keeps the reason of a state it left; otherwise nothing.
 * @returns `{ set: false }` to keep the stored reason, or the reason to store
 */
export function reasonUpdate(
  change: JobChange,
): { readonly set: false } | { readonly set: true; readonly reason: JobEventReason | null } {
  if (change.patch?.reason !== undefined) return { set: true, reason: change.patch.reason };
  if (change.to !== undefined) return { set: true, reason: change.reason ?? null };
  return { set: false };
}

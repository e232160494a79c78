/**
 * Which stored jobs a selector names, for a caller: the one place bulk actions select jobs
 * (docs/server.md "Cancelling many jobs"). Selectors combine with AND.
 *
 * - By filter (states, tenant, name pattern, submitted since): only jobs the caller may act on are
 *   selected, and only jobs not yet ended. Another tenant's jobs, and for a member a fellow
 *   member's, are simply not selected (nothing is said of them).
 * - By id: every id is answered: selected, or skipped with why. Another tenant's job is `not-found`,
 *   exactly like an id that does not exist; a fellow member's job is `not-allowed`; an ended job is
 *   `already-ended`; a job outside the other selectors is `not-matched`.
 */
import { isTerminal, type JobState } from '../../core/index.js';
import { compileNamePattern } from '../../lib/name-pattern.js';
import type { SkipReason } from '../../contract/bulk-cancel.js';
import { denial, type Action } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';

/** What a bulk action acts on; at least one field is set (the contract checks it). */
export interface JobSelector {
  /** Only these job ids (distinct). */
  readonly ids?: readonly number[];
  /** Only jobs in these states (non-terminal ones). */
  readonly states?: readonly JobState[];
  readonly tenant?: string;
  /** A name pattern (src/lib/name-pattern.ts). */
  readonly name?: string;
  /** Only jobs submitted at or after this time, ms since the epoch. */
  readonly submittedSinceMs?: number;
}

/** A job named by id and not selected, with why (`message` in words, for the caller). */
export interface SkippedJob {
  readonly id: number;
  readonly reason: SkipReason;
  readonly message: string;
}

/** The selected jobs by ascending id, and the ids named but not selected, ascending. */
export interface JobSelection {
  readonly jobs: JobRecord[];
  readonly skipped: SkippedJob[];
}

const ACTIVE_STATES: readonly JobState[] = ['pending', 'preempted', 'scheduled', 'running'];

/**
 * The jobs `selector` names that `principal` may do `action` to (see the module comment).
 * Reads the store only.
 */
export function selectJobs(
  store: Pick<StateStore, 'listJobs' | 'getJob'>,
  principal: Principal,
  action: Action,
  selector: JobSelector,
): JobSelection {
  const pattern = selector.name === undefined ? null : compileNamePattern(selector.name);
  const states = new Set(selector.states ?? ACTIVE_STATES);
  const matches = (job: JobRecord): boolean =>
    states.has(job.state) &&
    (selector.tenant === undefined || job.tenant === selector.tenant) &&
    (pattern === null || pattern.matches(job.name)) &&
    (selector.submittedSinceMs === undefined || job.submittedAtMs >= selector.submittedSinceMs);
  const allowed = (job: JobRecord): ReturnType<typeof denial> =>
    denial(principal, action, { jobId: job.id, tenant: job.tenant, ownerTokenId: job.submittedByTokenId });

  if (selector.ids !== undefined) {
    const jobs: JobRecord[] = [];
    const skipped: SkippedJob[] = [];
    for (const id of [...selector.ids].sort((a, b) => a - b)) {
      const job = store.getJob(id);
      const refusal = job === null ? null : allowed(job);
      if (job === null || refusal?.status === 404)
        skipped.push({ id, reason: 'not-found', message: `job ${id} not found` });
      else if (refusal !== null) skipped.push({ id, reason: 'not-allowed', message: refusal.message });
      else if (isTerminal(job.state))
        skipped.push({ id, reason: 'already-ended', message: `job ${id} already ended (${job.state})` });
      else if (!matches(job))
        skipped.push({ id, reason: 'not-matched', message: `job ${id} (${job.state}) is outside the other selectors` });
      else jobs.push(job);
    }
    return { jobs, skipped };
  }
  // Anyone but an admin selects only among its tenant's jobs.
  const tenant = principal.role === 'admin' ? selector.tenant : (principal.tenant ?? undefined);
  if (principal.role !== 'admin' && selector.tenant !== undefined && selector.tenant !== tenant)
    return { jobs: [], skipped: [] };
  // The store selects (name prefix and submit time on its indexes); `matches` is a no-op check here.
  const candidates = store.listJobs({
    ...(tenant === undefined ? {} : { tenant }),
    states: [...states],
    ...(selector.name === undefined ? {} : { namePattern: selector.name }),
    ...(selector.submittedSinceMs === undefined ? {} : { submittedSinceMs: selector.submittedSinceMs }),
  });
  return { jobs: candidates.filter((job) => matches(job) && allowed(job) === null), skipped: [] };
}

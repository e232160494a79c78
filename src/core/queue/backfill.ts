/**
 * EASY backfilling (Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; the rule of Slurm's
 * `sched/backfill` plugin): the first job in queue order that does not fit now (the blocked head)
 * gets a reservation — the earliest time it fits if running jobs end at their time limits — and a
 * later job may start ahead of it only if it is sure to end by then, so it never delays the head.
 *
 * Rules (docs/fair-share.md):
 * - the reservation: release running jobs in order of expected end (start + time limit),
 *   cumulatively, until the head fits; its start is that job's end (or now, if already past).
 *   A job without a time limit never ends for this purpose; if the head fits only once such a job
 *   ends, there is no reservation (null);
 * - a candidate may start ahead of a blocked head only if it has a time limit and
 *   nowMs + timeLimit ≤ the reservation. With no reservation (null), any candidate with a time
 *   limit may: the head's start is unknown, and once it becomes known the candidate delays it by
 *   at most its limit (Slurm treats an infinite limit the same way). A candidate without a time
 *   limit never starts ahead of a blocked head;
 * - with no blocked head, any job that fits may start.
 * The caller still checks that the candidate fits now. Only the head is protected (EASY, not
 * conservative backfilling); a candidate that would fit beside the head's reservation is not
 * recognised (that only forgoes some backfills, it never delays the head).
 */

/** A running job as the reservation sees it. */
export interface RunningJobEnd {
  readonly jobId: number;
  /** When it will have ended at the latest (start + time limit), ms since the epoch; null = no time limit. */
  readonly expectedEndMs: number | null;
}

/** Whether a blocked head exists and, if so, its reserved start. */
export type BackfillReservation =
  | { readonly blocked: false }
  | {
      readonly blocked: true;
      /** The head's reserved start, ms since the epoch ({@link reservedStartMs}); null = none possible. */
      readonly reservedStartMs: number | null;
    };

/** The reservation when no job ahead is blocked. */
export const NO_BLOCKED_JOB: BackfillReservation = { blocked: false };

/** A job that might start ahead of the blocked head. */
export interface BackfillCandidate {
  /** Wall-clock limit of one attempt, seconds (> 0); null = no limit. */
  readonly timeLimitSeconds: number | null;
}

/**
 * When a running job will have ended at the latest: `startedAtMs + timeLimitSeconds × 1000`, ms
 * since the epoch; null without a time limit.
 *
 * @throws RangeError when `startedAtMs` is not finite or `timeLimitSeconds` is not a positive finite number
 */
export function expectedEndMs(startedAtMs: number, timeLimitSeconds: number | null): number | null {
  if (!Number.isFinite(startedAtMs)) throw new RangeError(`startedAtMs must be a finite number, got ${startedAtMs}`);
  if (timeLimitSeconds === null) return null;
  checkTimeLimit(timeLimitSeconds);
  return startedAtMs + timeLimitSeconds * 1000;
}

/**
 * The earliest time, ms since the epoch, at which `blocked` fits if running jobs end at their
 * expected ends: `nowMs` if it fits now (no job released); else the running jobs with an expected
 * end are released cumulatively, in order of expected end (ties together; then by jobId), and the
 * first end after which it fits is returned (at least `nowMs`, for jobs already past their limit).
 * Null when it does not fit even with every time-limited job released.
 *
 * `fitsAfterReleasing(releasedJobIds, blocked)` answers whether `blocked` fits once those jobs'
 * resources are free (it gets a fresh array each call); it must be monotone: releasing more never
 * makes a fitting job stop fitting.
 *
 * @throws RangeError when `nowMs` or an `expectedEndMs` is not finite
 */
export function reservedStartMs<B>(
  blocked: B,
  running: readonly RunningJobEnd[],
  fitsAfterReleasing: (releasedJobIds: readonly number[], blocked: B) => boolean,
  nowMs: number,
): number | null {
  if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs must be a finite number, got ${nowMs}`);
  for (const job of running) {
    if (job.expectedEndMs !== null && !Number.isFinite(job.expectedEndMs)) {
      throw new RangeError(
        `expectedEndMs of job ${job.jobId} must be a finite number or null, got ${job.expectedEndMs}`,
      );
    }
  }
  if (fitsAfterReleasing([], blocked)) return nowMs;
  const ending = running
    .filter((job): job is RunningJobEnd & { readonly expectedEndMs: number } => job.expectedEndMs !== null)
    .sort((a, b) => a.expectedEndMs - b.expectedEndMs || a.jobId - b.jobId);
  const released: number[] = [];
  for (let i = 0; i < ending.length; i++) {
    const job = ending[i]!;
    released.push(job.jobId);
    // Jobs ending at the same moment are released together.
    if (ending[i + 1]?.expectedEndMs === job.expectedEndMs) continue;
    if (fitsAfterReleasing([...released], blocked)) return Math.max(nowMs, job.expectedEndMs);
  }
  return null;
}

/**
 * Whether `candidate`, which fits now, may start at `nowMs` under `reservation`, by the rules in
 * the file comment: always without a blocked head; otherwise only with a time limit, and then only
 * if nowMs + timeLimitSeconds × 1000 ≤ the reserved start (or there is no reservation).
 *
 * @throws RangeError when `nowMs` is not finite or `timeLimitSeconds` is not null or a positive finite number
 */
export function mayBackfill(candidate: BackfillCandidate, reservation: BackfillReservation, nowMs: number): boolean {
  if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs must be a finite number, got ${nowMs}`);
  const limit = candidate.timeLimitSeconds;
  if (limit !== null) checkTimeLimit(limit);
  if (!reservation.blocked) return true;
  if (limit === null) return false;
  if (reservation.reservedStartMs === null) return true;
  return nowMs + limit * 1000 <= reservation.reservedStartMs;
}

function checkTimeLimit(timeLimitSeconds: number): void {
  if (!Number.isFinite(timeLimitSeconds) || timeLimitSeconds <= 0) {
    throw new RangeError(`timeLimitSeconds must be a positive number or null, got ${timeLimitSeconds}`);
  }
}

/**
 * What a scheduling pass of one server can be told beyond the jobs: the queue order (priority, fair
 * share, aging), an admission rule checked before placement (quotas), and EASY backfill: once a job
 * is blocked, later jobs may start ahead of it only if they end, by their time limit, before its
 * reserved start (src/core/queue/backfill.ts).
 */
import type { RunningJobEnd } from '../queue/backfill.js';
import type { Placement } from '../model/assignment.js';
import type { JobRequest } from '../model/request.js';

/** Backfill context: now, and when each running job is expected to end (start + time limit). */
export interface BackfillContext {
  readonly nowMs: number;
  readonly running: readonly RunningJobEnd[];
  /** Time limit of a queued job, seconds; null when it has none (then it never backfills). */
  readonly timeLimitSecondsOf: (job: JobRequest) => number | null;
}

/** Options of `ServerScheduler.runPass`. */
export interface PassOptions {
  /** Queue order comparator (default: priority, submit time, id). Must be a total order. */
  readonly compare?: (a: JobRequest, b: JobRequest) => number;
  /**
   * Checked before a job is tried: a reason string keeps it waiting (and it reserves nothing, so
   * it does not block later jobs), null lets it be placed.
   */
  readonly admit?: (job: JobRequest) => string | null;
  /** Told about each placement as it is made (e.g. to count the tenant's usage for `admit`). */
  readonly onPlaced?: (job: JobRequest, placement: Placement) => void;
  /** Turns EASY backfill on; without it every job that fits is placed, in queue order. */
  readonly backfill?: BackfillContext;
  /**
   * GPUs `job` must not be placed on in this pass, by GPU index, each with why (e.g. `job 7 misses
   * its QoS target`); null or empty for none. Jobs already on those GPUs stay. A job that fits only
   * on protected GPUs waits with the reason `GPU 0 is protected: job 7 misses its QoS target` and,
   * like a job refused by `admit`, reserves nothing (it does not block later jobs).
   */
  readonly protectedGpus?: (job: JobRequest) => ReadonlyMap<number, string> | null;
}

/** Outcome of one pass. */
export interface PassResult {
  /** Placements made, already held, in the order they were made. */
  readonly placed: { jobId: number; placement: Placement }[];
  /** Why each other job waits. */
  readonly waiting: Map<number, string>;
  /** The first job that could not be placed for lack of capacity (the one backfill protects), if any. */
  readonly blockedJobId: number | null;
  /** Jobs that wait only because the GPUs they fit on are protected (see `PassOptions.protectedGpus`). */
  readonly protectedWaiting: ReadonlySet<number>;
}

/**
 * Stand-in for the core's queue order (`src/core/queue/queue-order.ts`, being written: fair share
 * and aging). Same signatures — `compareQueueEntries(a, b, ctx)` and `orderQueue(jobs, ctx)` — so
 * the timeline replay switches by changing one import in `pending-core.ts`. This stand-in orders
 * by priority (higher first), then arrival (earlier first), then job id: no fair share, no aging.
 */

/** What the queue order reads of a waiting job. */
export interface QueueEntry {
  /** Unique job id (last tie-break). */
  readonly jobId: number;
  /** Higher is more important. */
  readonly priority: number;
  /** Owner of the job (unused by this stand-in; the trace has one tenant). */
  readonly tenant: string;
  /** When the job first arrived, in ms of simulated time; a preempted job keeps it. */
  readonly submittedAtMs: number;
}

/** What the order may depend on besides the jobs themselves. */
export interface QueueOrderContext {
  /** Now, in ms of simulated time (unused by this stand-in; the core's aging reads it). */
  readonly nowMs: number;
}

/**
 * Comparator: negative when `a` goes before `b` (higher priority, then earlier arrival, then
 * lower id). A total order, so every pass is deterministic.
 */
export function compareQueueEntries(a: QueueEntry, b: QueueEntry, _ctx: QueueOrderContext): number {
  return b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.jobId - b.jobId;
}

/**
 * The jobs in the order a scheduling pass tries them.
 * @returns a new array; `jobs` is not changed
 */
export function orderQueue<T extends QueueEntry>(jobs: readonly T[], ctx: QueueOrderContext): T[] {
  return [...jobs].sort((a, b) => compareQueueEntries(a, b, ctx));
}

/**
 * The order pending jobs are considered in: higher priority first, then earlier submit time, then
 * lower id (a total order, so every pass is deterministic).
 */
import type { PendingJob } from './job.js';

/** Comparator for `Array.prototype.sort`: negative when `a` goes before `b`. */
export function compareQueueOrder(a: PendingJob, b: PendingJob): number {
  return b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.id - b.id;
}

/**
 * Queue order of successive scheduling passes, each sorted starting from the previous pass's
 * order. The order is total (ids are unique), so the result does not depend on the input's order;
 * starting from the previous order (jobs still pending, then new ones) makes the sort a
 * near-linear merge when the queue changed little, instead of n log n comparator calls (about half
 * of a pass over 10,000 jobs).
 */
import type { JobRequest } from '../model/request.js';
import { compareQueueOrder, type QueueComparator } from './queue-order.js';

/** The queue order of the last pass, reused to sort the next one. */
export class QueueOrderCache {
  private last: readonly JobRequest[] = [];

  /** `pending` sorted by `compare` (default: queue-order.ts); remembered for the next call unless a job repeats. */
  order(pending: readonly JobRequest[], compare: (a: JobRequest, b: JobRequest) => number = compareQueueOrder): JobRequest[] {
    const rest = new Set(pending);
    if (rest.size !== pending.length) return [...pending].sort(compare);
    const ordered = this.last.filter((job) => rest.delete(job));
    for (const job of rest) ordered.push(job);
    if (isQueueComparator(compare)) compare.sortInPlace(ordered);
    else ordered.sort(compare);
    this.last = ordered;
    return ordered;
  }
}

function isQueueComparator(compare: (a: JobRequest, b: JobRequest) => number): compare is QueueComparator<JobRequest> {
  return typeof (compare as Partial<QueueComparator<JobRequest>>).sortInPlace === 'function';
}

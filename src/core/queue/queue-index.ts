/**
 * A control plane's queued jobs, kept between passes so that a pass takes them one at a time in
 * queue order (queue-order.ts) and may stop early, instead of sorting the whole queue each time.
 *
 * Jobs are kept in buckets of one tenant and one base priority, each sorted by submit time, then
 * id. Within a bucket that is already the queue order: tenant (so dominant share) and base
 * priority are equal, and an older job has waited longer, so it has aged at least as much (aging
 * is capped per class, and ties fall to submit time, then id). The queue order of all jobs is
 * therefore the merge of the buckets by their heads' sort keys, which a binary heap of bucket
 * cursors yields lazily: the first k jobs cost O(k log b) for b buckets, whatever the depth. A
 * second set of buckets holds only the jobs with a time limit, the only ones that may still start
 * once a pass has a blocked job and no GPU outside that job's reach (EASY backfill, run-pass.ts).
 */
import type { JobRequest } from '../model/request.js';
import { compareSortKeys, queueSortKey, type QueueOrderContext, type SortKey } from './queue-order.js';

/** Submit time, then id: the order inside a bucket. */
function bucketOrder(a: JobRequest, b: JobRequest): number {
  return a.submittedAtMs - b.submittedAtMs || a.id - b.id;
}

/** Buckets of jobs by tenant and base priority, each sorted by {@link bucketOrder}. */
class Buckets {
  readonly byKey = new Map<string, JobRequest[]>();

  add(job: JobRequest): void {
    const key = `${job.priority}\u0000${job.tenant}`;
    let bucket = this.byKey.get(key);
    if (bucket === undefined) this.byKey.set(key, (bucket = []));
    bucket.splice(insertionPoint(bucket, job), 0, job);
  }

  remove(job: JobRequest): void {
    const key = `${job.priority}\u0000${job.tenant}`;
    const bucket = this.byKey.get(key);
    if (bucket === undefined) return;
    const at = insertionPoint(bucket, job);
    if (bucket[at]?.id !== job.id) return;
    bucket.splice(at, 1);
    if (bucket.length === 0) this.byKey.delete(key);
  }
}

/** First index of `bucket` whose job does not go before `job`. */
function insertionPoint(bucket: readonly JobRequest[], job: JobRequest): number {
  let low = 0;
  let high = bucket.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (bucketOrder(bucket[mid]!, job) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** One bucket's position in a merge, with its head's sort key. */
interface Cursor {
  readonly bucket: readonly JobRequest[];
  at: number;
  key: SortKey;
}

/** Jobs of several buckets in queue order, one at a time. */
export class QueueMerge {
  private readonly heap: Cursor[] = [];

  /** @param after when given, only jobs whose sort key comes after it */
  constructor(
    buckets: Iterable<readonly JobRequest[]>,
    private readonly ctx: QueueOrderContext,
    after: SortKey | null = null,
  ) {
    for (const bucket of buckets) {
      let at = 0;
      if (after !== null) {
        // Bucket order is queue order: binary search for the first job after `after`.
        let high = bucket.length;
        while (at < high) {
          const mid = (at + high) >>> 1;
          if (compareSortKeys(queueSortKey(bucket[mid]!, ctx), after) <= 0) at = mid + 1;
          else high = mid;
        }
      }
      if (at < bucket.length) this.push({ bucket, at, key: queueSortKey(bucket[at]!, ctx) });
    }
  }

  /** The next job in queue order and its sort key; null when none is left. */
  next(): { job: JobRequest; key: SortKey } | null {
    const top = this.heap[0];
    if (top === undefined) return null;
    const job = top.bucket[top.at]!;
    const key = top.key;
    top.at++;
    if (top.at < top.bucket.length) {
      top.key = queueSortKey(top.bucket[top.at]!, this.ctx);
      this.siftDown(0);
    } else {
      const last = this.heap.pop()!;
      if (this.heap.length > 0) {
        this.heap[0] = last;
        this.siftDown(0);
      }
    }
    return { job, key };
  }

  private push(cursor: Cursor): void {
    this.heap.push(cursor);
    let i = this.heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (compareSortKeys(this.heap[parent]!.key, this.heap[i]!.key) <= 0) break;
      [this.heap[parent], this.heap[i]] = [this.heap[i]!, this.heap[parent]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && compareSortKeys(this.heap[left]!.key, this.heap[least]!.key) < 0) least = left;
      if (right < n && compareSortKeys(this.heap[right]!.key, this.heap[least]!.key) < 0) least = right;
      if (least === i) return;
      [this.heap[least], this.heap[i]] = [this.heap[i]!, this.heap[least]!];
      i = least;
    }
  }
}

/** The queued jobs, by id and in buckets (see the file comment). */
export class QueueIndex {
  private readonly jobs = new Map<number, JobRequest>();
  private readonly all = new Buckets();
  private readonly timeLimited = new Buckets();

  /** Adds `job`, replacing a queued job of the same id. */
  add(job: JobRequest): void {
    this.remove(job.id);
    this.jobs.set(job.id, job);
    this.all.add(job);
    if (job.timeLimitSeconds != null) this.timeLimited.add(job);
  }

  /** Removes job `id`; false when it was not queued. */
  remove(id: number): boolean {
    const job = this.jobs.get(id);
    if (job === undefined) return false;
    this.jobs.delete(id);
    this.all.remove(job);
    if (job.timeLimitSeconds != null) this.timeLimited.remove(job);
    return true;
  }

  get size(): number {
    return this.jobs.size;
  }

  has(id: number): boolean {
    return this.jobs.has(id);
  }

  get(id: number): JobRequest | undefined {
    return this.jobs.get(id);
  }

  /** The highest base priority queued; −Infinity when the queue is empty. */
  maxPriority(): number {
    let top = Number.NEGATIVE_INFINITY;
    for (const bucket of this.all.byKey.values()) if (bucket[0]!.priority > top) top = bucket[0]!.priority;
    return top;
  }

  /** Every queued job in queue order for `ctx`, lazily. */
  inOrder(ctx: QueueOrderContext): QueueMerge {
    return new QueueMerge(this.all.byKey.values(), ctx);
  }

  /** The queued jobs with a time limit whose sort key comes after `after`, in queue order, lazily. */
  timeLimitedAfter(ctx: QueueOrderContext, after: SortKey): QueueMerge {
    return new QueueMerge(this.timeLimited.byKey.values(), ctx, after);
  }
}

/**
 * Token buckets, one per key (a stored token, a job's report token): each holds up to `burst`
 * requests and refills at `requestsPerSecond`; a request takes one. Memory stays bounded: a bucket
 * idle long enough to be full again is the same as no bucket and is dropped by a sweep (every
 * `SWEEP_EVERY` takes, and whenever more than `maxBuckets` are held); past `maxBuckets` even after
 * that, the least recently used buckets are dropped (those keys start full again).
 */

/** A rate limit: `requestsPerSecond` (> 0) refill, `burst` (≥ 1) requests at once. */
export interface RateLimit {
  readonly requestsPerSecond: number;
  readonly burst: number;
}

interface Bucket {
  /** Requests available at `atMs` (fractional). */
  level: number;
  atMs: number;
  /** When the bucket is full again, ms. */
  fullAtMs: number;
}

/** Takes between two sweeps of idle buckets. */
const SWEEP_EVERY = 4096;

/** One bucket per key. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private takes = 0;

  /** @param maxBuckets most buckets held at once (default 100000, about 10 MB) */
  constructor(private readonly maxBuckets = 100_000) {}

  /**
   * Takes one request from `key`'s bucket at `nowMs` (ms).
   * @returns 0 when the request may go ahead, else the seconds (> 0) until the bucket holds one
   */
  take(key: string, limit: RateLimit, nowMs: number): number {
    const { requestsPerSecond: rate, burst } = limit;
    const found = this.buckets.get(key);
    let level = burst;
    if (found !== undefined) {
      level = Math.min(burst, found.level + (Math.max(0, nowMs - found.atMs) * rate) / 1000);
      // Most recently used last: the eviction order.
      this.buckets.delete(key);
    }
    const allowed = level >= 1;
    if (allowed) level -= 1;
    this.buckets.set(key, { level, atMs: nowMs, fullAtMs: nowMs + ((burst - level) * 1000) / rate });
    if (++this.takes % SWEEP_EVERY === 0 || this.buckets.size > this.maxBuckets) this.sweep(nowMs);
    return allowed ? 0 : (1 - level) / rate;
  }

  /** Buckets held now (for tests and diagnostics). */
  get size(): number {
    return this.buckets.size;
  }

  /** Drops full buckets, then the least recently used ones beyond `maxBuckets`. */
  sweep(nowMs: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.fullAtMs <= nowMs) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxBuckets) break;
      this.buckets.delete(key);
    }
  }
}

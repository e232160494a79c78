/**
 * Durations of recent scheduling passes, for the status API and the benchmark: a bounded ring of
 * the last 4096 passes with their queue sizes.
 */
import { nearestRank } from '../../lib/statistics.js';

/** Summary of recent passes, ms. */
export interface PassSummary {
  readonly passes: number;
  readonly lastPassMs: number;
  readonly p50PassMs: number;
  readonly p99PassMs: number;
  readonly maxPassMs: number;
  /** Largest number of pending jobs one recent pass considered. */
  readonly maxPendingConsidered: number;
  /** Timer passes skipped since the start because nothing that could change their outcome happened (pass-hints.ts). */
  readonly passesSkipped: number;
  /** The longest check that skipped a pass, ms. */
  readonly maxSkippedCheckMs: number;
}

const CAPACITY = 4096;

/** Ring buffer of pass durations. */
export class PassStats {
  private readonly durations = new Float64Array(CAPACITY);
  private readonly pendingCounts = new Int32Array(CAPACITY);
  private count = 0;
  private skipped = 0;
  private maxSkippedMs = 0;

  /** Records a timer pass skipped after a check that took `durationMs`. */
  recordSkipped(durationMs: number): void {
    this.skipped++;
    if (durationMs > this.maxSkippedMs) this.maxSkippedMs = durationMs;
  }

  /** Records one pass that took `durationMs` over `pendingJobs` jobs. */
  record(durationMs: number, pendingJobs: number): void {
    this.durations[this.count % CAPACITY] = durationMs;
    this.pendingCounts[this.count % CAPACITY] = pendingJobs;
    this.count++;
  }

  /** Percentiles over the passes kept (nearest-rank). */
  summary(): PassSummary {
    const n = Math.min(this.count, CAPACITY);
    const skipped = { passesSkipped: this.skipped, maxSkippedCheckMs: this.maxSkippedMs };
    if (n === 0)
      return {
        passes: 0,
        lastPassMs: 0,
        p50PassMs: 0,
        p99PassMs: 0,
        maxPassMs: 0,
        maxPendingConsidered: 0,
        ...skipped,
      };
    const sorted = Array.from(this.durations.subarray(0, n)).sort((a, b) => a - b);
    return {
      passes: this.count,
      lastPassMs: this.durations[(this.count - 1) % CAPACITY]!,
      p50PassMs: nearestRank(sorted, 50)!,
      p99PassMs: nearestRank(sorted, 99)!,
      maxPassMs: sorted[n - 1]!,
      maxPendingConsidered: Math.max(...this.pendingCounts.subarray(0, n)),
      ...skipped,
    };
  }
}

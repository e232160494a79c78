/**
 * Weighted round robin for a time-sliced GPU: in every period each job runs alone for a slice in
 * proportion to its `gpuMilli`. Pure: the rotator in src/app runs the plan with real timers.
 */
import { apportion } from './apportion.js';

/** Shortest slice a job gets, milliseconds: below this a freeze/thaw costs more than it runs. */
export const MIN_TIMESLICE_MS = 10;

/** A job sharing a time-sliced GPU, with its share of the GPU (milli-GPU, > 0). */
export interface TimesliceDemand {
  readonly jobId: number;
  readonly gpuMilli: number;
}

/** One turn of a rotation: job `jobId` runs alone for `sliceMs` milliseconds. */
export interface Timeslice {
  readonly jobId: number;
  readonly sliceMs: number;
}

/**
 * Plans one rotation period of `periodMs` milliseconds over `jobs`: slices in ascending `jobId`
 * order (stable whatever the input order), each `periodMs × gpuMilli / Σ gpuMilli` rounded to
 * integers that sum to `periodMs` (largest remainder, ties to the lower jobId). A job whose share
 * would be below {@link MIN_TIMESLICE_MS} gets exactly that minimum and the others share the
 * rest in proportion; when `periodMs` cannot give every job the minimum, every job gets the
 * minimum and the period stretches to `jobs.length × MIN_TIMESLICE_MS`.
 * Returns [] for no jobs. Throws RangeError for a `periodMs` or `gpuMilli` that is not a positive
 * integer, or a repeated `jobId`.
 */
export function planTimeslices(jobs: readonly TimesliceDemand[], periodMs: number): Timeslice[] {
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0)
    throw new RangeError(`periodMs must be a positive integer, got ${periodMs}`);
  const sorted = [...jobs].sort((a, b) => a.jobId - b.jobId);
  for (const [i, job] of sorted.entries()) {
    if (!Number.isSafeInteger(job.gpuMilli) || job.gpuMilli <= 0) {
      throw new RangeError(`gpuMilli of job ${job.jobId} must be a positive integer, got ${job.gpuMilli}`);
    }
    if (i > 0 && sorted[i - 1]?.jobId === job.jobId) throw new RangeError(`job ${job.jobId} appears twice`);
  }
  if (sorted.length === 0) return [];
  if (periodMs <= sorted.length * MIN_TIMESLICE_MS)
    return sorted.map((j) => ({ jobId: j.jobId, sliceMs: MIN_TIMESLICE_MS }));
  // Jobs pinned to the minimum; grows until every other job's proportional share is above it.
  const pinned = new Set<number>();
  for (;;) {
    const free = sorted.filter((j) => !pinned.has(j.jobId));
    const parts = apportion(
      periodMs - pinned.size * MIN_TIMESLICE_MS,
      free.map((j) => j.gpuMilli),
    );
    const tooSmall = free.filter((_, i) => (parts[i] ?? 0) < MIN_TIMESLICE_MS);
    if (tooSmall.length === 0) {
      const byJob = new Map(free.map((j, i) => [j.jobId, parts[i] ?? 0]));
      return sorted.map((j) => ({ jobId: j.jobId, sliceMs: byJob.get(j.jobId) ?? MIN_TIMESLICE_MS }));
    }
    for (const j of tooSmall) pinned.add(j.jobId);
  }
}

/**
 * When a job's usage peak rises: the one rule the peak tracker (usage-peaks.ts) and both state
 * stores follow, so that a peak is written only when one of its values goes up.
 */
import type { JobUsagePeak, UsagePeakUpdate } from '../ports/state-store.js';

/** True when `seen` is a value and `stored` is none or lower. */
function rises(stored: number | null, seen: number | null): boolean {
  return seen !== null && (stored === null || seen > stored);
}

/**
 * The peak after `update`: each value the larger of the stored and the seen one.
 * @param current the stored peak, null when none
 * @param atMs the time of the update, ms since the epoch (the new `updatedAtMs`)
 * @returns the new peak, or null when no value of `update` rises above `current` (nothing to write)
 */
export function raisedPeak(current: JobUsagePeak | null, update: UsagePeakUpdate, atMs: number): JobUsagePeak | null {
  const memory = rises(current?.gpuMemoryMiB ?? null, update.gpuMemoryMiB);
  const utilization = rises(current?.gpuUtilizationPct ?? null, update.gpuUtilizationPct);
  if (!memory && !utilization) return null;
  return {
    jobId: update.jobId,
    gpuMemoryMiB: memory ? update.gpuMemoryMiB : (current?.gpuMemoryMiB ?? null),
    gpuUtilizationPct: utilization ? update.gpuUtilizationPct : (current?.gpuUtilizationPct ?? null),
    updatedAtMs: atMs,
  };
}

/**
 * Keeps per-job memory measurements consistent with their GPU's: the jobs sharing one GPU never
 * sum to more than the memory the GPU itself reports as used. Per-process figures of nvidia-smi
 * and the GPU's `memory.used` are read by two commands at slightly different times, so they can
 * disagree by a little; the jobs' figures are then scaled down in proportion.
 */

/** One job's measured memory on one GPU, MiB. */
export interface JobMemoryEntry {
  readonly jobId: number;
  readonly memoryUsedMiB: number;
}

/**
 * Returns `entries` with every value made finite and ≥ 0 and, when the GPU's `memoryUsedMiB` is
 * known and their sum exceeds it, each value scaled by gpuMiB / sum and rounded down (MiB), so
 * that the sum is ≤ gpuMiB. Order and job ids are kept. A negative or non-finite GPU value counts
 * as 0. Pure.
 * @param gpuMiB the GPU's measured `memoryUsedMiB`; null when unknown (then only the ≥ 0 rule applies)
 */
export function clampJobMemory(gpuMiB: number | null, entries: readonly JobMemoryEntry[]): JobMemoryEntry[] {
  const clean = entries.map((e) => ({
    jobId: e.jobId,
    memoryUsedMiB: Number.isFinite(e.memoryUsedMiB) && e.memoryUsedMiB > 0 ? e.memoryUsedMiB : 0,
  }));
  if (gpuMiB === null) return clean;
  const cap = Number.isFinite(gpuMiB) && gpuMiB > 0 ? gpuMiB : 0;
  const sum = clean.reduce((s, e) => s + e.memoryUsedMiB, 0);
  if (sum <= cap) return clean;
  return clean.map((e) => ({ jobId: e.jobId, memoryUsedMiB: Math.floor((e.memoryUsedMiB * cap) / sum) }));
}

/**
 * Each job's peak GPU usage (docs/server.md, "Measured peaks"), kept from the usage poller's samples
 * and the job's own reports and stored through `StateStore.raiseUsagePeaks`:
 *
 * - memory: the most device memory the job's processes used on any one of its GPUs, MiB;
 * - utilization: a GPU's utilization counts for a job only while that job is the only one placed on
 *   the GPU (otherwise it cannot be told apart), percent.
 *
 * Samples of simulated GPUs measure nothing and are never recorded. A report keeps the larger of
 * the reported and the measured value. The store is written only when a peak rises: the peaks of
 * running jobs are kept here, read from the store at first sight and forgotten when the job no
 * longer runs (the stored peak stays).
 */
import type { GpuUsageSample, UsageInput } from '../ports/gpu-usage.js';
import type { JobUsagePeak, StateStore, UsagePeakUpdate } from '../ports/state-store.js';
import type { Logger } from '../scheduling/plane-deps.js';
import { raisedPeak } from './raised-peak.js';

/** Utilization ratio 0..1 as percent with one decimal, as the API shows a GPU's. */
const percent = (ratio: number): number => Math.round(ratio * 1000) / 10;

/**
 * What one sample measured per job: the largest memory of its (job, GPU) entries, and the
 * utilization of each GPU it holds alone (the highest when several). Jobs without either are left
 * out, and so are entries of jobs `input` does not name. A simulated sample gives nothing. Pure.
 * @param input what the sample measured: the GPUs and the running jobs with their placed GPUs
 */
export function measuredPeaks(input: UsageInput, sample: GpuUsageSample): UsagePeakUpdate[] {
  if (sample.source === 'simulated') return [];
  const running = new Set(input.jobs.map((j) => j.jobId));
  const memory = new Map<number, number>();
  for (const entry of sample.jobs)
    if (running.has(entry.jobId))
      memory.set(entry.jobId, Math.max(memory.get(entry.jobId) ?? 0, Math.round(entry.memoryUsedMiB)));
  const jobsOnGpu = new Map<number, number[]>();
  for (const job of input.jobs)
    for (const gpu of new Set(job.gpus.map((g) => g.index)))
      jobsOnGpu.set(gpu, [...(jobsOnGpu.get(gpu) ?? []), job.jobId]);
  const utilization = new Map<number, number>();
  for (const gpu of sample.gpus) {
    const alone = jobsOnGpu.get(gpu.index);
    if (gpu.utilizationRatio === null || alone?.length !== 1) continue;
    const jobId = alone[0]!;
    utilization.set(jobId, Math.max(utilization.get(jobId) ?? 0, percent(gpu.utilizationRatio)));
  }
  return [...new Set([...memory.keys(), ...utilization.keys()])]
    .sort((a, b) => a - b)
    .map((jobId) => ({
      jobId,
      gpuMemoryMiB: memory.get(jobId) ?? null,
      gpuUtilizationPct: utilization.get(jobId) ?? null,
    }));
}

/** The peaks of running jobs, raised from samples and reports. */
export class UsagePeaks {
  /** Peaks of the jobs seen lately (null: none stored), as stored. */
  private readonly known = new Map<number, JobUsagePeak | null>();
  private failing = false;

  constructor(
    private readonly store: StateStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Raises the peaks one poll measured (see {@link measuredPeaks}) and forgets the jobs no longer
   * running. Never throws: a store failure is logged once until a write works again, and the same
   * values are tried again at the next sample.
   * @param input the GPUs and running jobs the sample was asked to measure
   */
  observe(input: UsageInput, sample: GpuUsageSample): void {
    const running = new Set(input.jobs.map((j) => j.jobId));
    for (const jobId of this.known.keys()) if (!running.has(jobId)) this.known.delete(jobId);
    try {
      this.raise(measuredPeaks(input, sample), sample.atMs);
      if (this.failing) this.logger.info({}, 'storing measured GPU usage peaks works again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn({ err: error }, 'storing measured GPU usage peaks failed');
      this.failing = true;
    }
  }

  /**
   * A job's own report of its usage: the stored peak keeps the larger values.
   * @returns the job's peak after the report, and whether it rose
   * @throws what the store throws (StoreConflictError for an unknown job, a full disk)
   */
  report(update: UsagePeakUpdate, atMs: number): { peak: JobUsagePeak | null; raised: boolean } {
    const raised = this.raise([update], atMs).length > 0;
    return { peak: this.current(update.jobId), raised };
  }

  private current(jobId: number): JobUsagePeak | null {
    if (!this.known.has(jobId)) this.known.set(jobId, this.store.getUsagePeak(jobId));
    return this.known.get(jobId)!;
  }

  /** Writes the updates that raise a peak, in one store transaction; returns the peaks that rose. */
  private raise(updates: readonly UsagePeakUpdate[], atMs: number): JobUsagePeak[] {
    const rising = updates.flatMap((update) => {
      const next = raisedPeak(this.current(update.jobId), update, atMs);
      return next === null ? [] : [{ update, next }];
    });
    if (rising.length === 0) return [];
    this.store.raiseUsagePeaks(
      rising.map((r) => r.update),
      atMs,
    );
    for (const { next } of rising) this.known.set(next.jobId, next);
    return rising.map((r) => r.next);
  }
}

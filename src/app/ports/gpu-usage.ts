/**
 * Port: measured GPU usage (utilization and memory used) of this server's GPUs and of the jobs
 * running on them, for `/metrics` and `GET /api/v1/gpus`. One sample covers every GPU at one
 * time. Adapters: src/adapters/gpu/nvidia-smi-usage.ts (real GPUs: `nvidia-smi --query-gpu` and
 * `--query-compute-apps`, per-process memory mapped to jobs through their session / process group)
 * and src/app/usage/simulated-usage.ts (simulated GPUs: values derived from the allocations,
 * labelled `simulated`). See docs/metrics.md "How usage is measured".
 */

/** Where measured values come from: the real `nvidia-smi`, or values derived from allocations. */
export type UsageSource = 'nvidia-smi' | 'simulated';

/** One GPU of the server as the sampler needs it. */
export interface UsageGpuInput {
  readonly index: number;
  /** `GPU-…` UUID (nvidia-smi reports the parent GPU's UUID for processes on MIG devices). */
  readonly uuid: string;
  /** Allocated milli-GPU now (MIG GPUs: their instances' compute slices in milli, as the API shows). */
  readonly allocatedGpuMilli: number;
}

/** One running job as the sampler needs it. */
export interface UsageJobInput {
  readonly jobId: number;
  /**
   * Pid of the job's command (`ProcessHandle.jobPid`). The command leads its own session and
   * process group, so every process it starts (unless it leaves them with setsid/setpgid) has
   * this pid as session id or process group id. null while unknown: the job's processes are then
   * not attributed to it.
   */
  readonly jobPid: number | null;
  /** The job's share of each GPU it runs on: device index and allocated device memory, MiB. */
  readonly gpus: readonly { readonly index: number; readonly gpuMemoryMiB: number }[];
}

/** What the sampler is asked to measure. */
export interface UsageInput {
  readonly gpus: readonly UsageGpuInput[];
  readonly jobs: readonly UsageJobInput[];
}

/** Measured usage of one GPU. */
export interface GpuUsageMeasurement {
  readonly index: number;
  readonly uuid: string;
  /** Utilization, 0..1; null when not available (e.g. nvidia-smi prints `[N/A]` with MIG enabled). */
  readonly utilizationRatio: number | null;
  /** Device memory used, MiB; null when not available. */
  readonly memoryUsedMiB: number | null;
}

/** Memory one job uses on one GPU, MiB: the sum over its processes on that GPU. */
export interface JobGpuUsageMeasurement {
  readonly jobId: number;
  readonly index: number;
  readonly uuid: string;
  /**
   * Device memory used by the job's processes on this GPU, MiB, ≥ 0. Clamped so that the jobs of
   * one GPU never sum to more than the GPU's `memoryUsedMiB` (when that is known).
   */
  readonly memoryUsedMiB: number;
}

/** One measurement of every GPU and job. */
export interface GpuUsageSample {
  /** When it was taken, ms since the epoch. */
  readonly atMs: number;
  readonly source: UsageSource;
  /** GPUs by index (GPUs the source did not report are absent). */
  readonly gpus: readonly GpuUsageMeasurement[];
  /** One entry per (job, GPU) that has at least one process of the job on it (simulated: per placed GPU). */
  readonly jobs: readonly JobGpuUsageMeasurement[];
}

/** Measures GPU usage. */
export interface GpuUsageSampler {
  readonly source: UsageSource;
  /**
   * Measures the GPUs and jobs of `input` now. Rejects when the source cannot be read at all (for
   * nvidia-smi: not found, non-zero exit, timeout, unparseable output); the caller keeps its
   * previous sample then.
   */
  sample(input: UsageInput): Promise<GpuUsageSample>;
}

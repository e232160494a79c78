/**
 * GpuUsageSampler on the real nvidia-smi: runs
 * `nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used --format=csv,noheader,nounits` and
 * `nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits`, maps
 * each process to its job through the job's session / process group (nvidia-smi-usage-pids.ts),
 * sums the jobs' processes per GPU, and clamps those sums so that the jobs of one GPU never exceed
 * the GPU's `memory.used`. On a MIG GPU, compute-apps reports the parent GPU's UUID, so a job's
 * memory is attributed to the physical GPU (the one its placement names). Processes in another
 * pid namespace (nvidia-smi run in a container) do not match and are ignored.
 */
import { clampJobMemory } from '../../app/usage/job-memory-clamp.js';
import type { GpuUsageSample, GpuUsageSampler, JobGpuUsageMeasurement, UsageInput } from '../../app/ports/gpu-usage.js';
import { readProcStat } from '../../host/proc-identity.js';
import { DEFAULT_NVIDIA_SMI_TIMEOUT_MS, NvidiaSmiUnavailableError } from './nvidia-smi-inventory.js';
import { execFileOrThrow, type ExecFileFn } from './run-command.js';
import { USAGE_APP_FIELDS, USAGE_GPU_FIELDS, parseComputeAppsCsv, parseUsageGpuCsv } from './nvidia-smi-usage-parse.js';
import { jobsOfPids, type ProcessIds } from './nvidia-smi-usage-pids.js';

/** Arguments of the GPU query. */
export const USAGE_GPU_ARGS = [`--query-gpu=${USAGE_GPU_FIELDS.join(',')}`, '--format=csv,noheader,nounits'] as const;
/** Arguments of the compute-apps query. */
export const USAGE_APP_ARGS = [
  `--query-compute-apps=${USAGE_APP_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
] as const;

/** Options of {@link createNvidiaSmiUsageSampler}. */
export interface NvidiaSmiUsageOptions {
  /** Program to run; `nvidia-smi` (looked up on PATH) by default. */
  readonly nvidiaSmiPath?: string;
  /** Limit per command, ms; {@link DEFAULT_NVIDIA_SMI_TIMEOUT_MS} by default. */
  readonly timeoutMs?: number;
  /** Process runner; execFileOrThrow by default. */
  readonly execFile?: ExecFileFn;
  /** Reads a process's ids; `/proc/<pid>/stat` by default. */
  readonly readIds?: (pid: number) => ProcessIds | null;
  /** Clock, ms since the epoch; Date.now by default. */
  readonly nowMs?: () => number;
}

/**
 * The sample for the two queries' outputs (pure but for `readIds`). GPUs are those of the GPU
 * query; per-job entries are one per (job, GPU) with a process of the job, plus a 0 for each GPU a
 * job is placed on where none of its processes shows (only for jobs whose pid is known).
 * @throws NvidiaSmiParseError for malformed output
 */
export function buildNvidiaSmiUsageSample(
  gpuText: string,
  appsText: string,
  input: UsageInput,
  readIds: (pid: number) => ProcessIds | null,
  atMs: number,
): GpuUsageSample {
  const gpus = parseUsageGpuCsv(gpuText);
  const apps = parseComputeAppsCsv(appsText);
  const byUuid = new Map(gpus.map((g) => [g.uuid, g]));
  const jobOf = jobsOfPids(
    apps.map((a) => a.pid),
    input.jobs,
    readIds,
  );
  // Σ memory per GPU and job, in the order first seen.
  const perGpu = new Map<string, Map<number, number>>();
  const add = (uuid: string, jobId: number, mib: number): void => {
    const jobs = perGpu.get(uuid) ?? new Map<number, number>();
    jobs.set(jobId, (jobs.get(jobId) ?? 0) + mib);
    perGpu.set(uuid, jobs);
  };
  for (const app of apps) {
    const jobId = jobOf.get(app.pid);
    if (jobId !== undefined && byUuid.has(app.gpuUuid)) add(app.gpuUuid, jobId, app.memoryUsedMiB ?? 0);
  }
  const uuidOfIndex = new Map(gpus.map((g) => [g.index, g.uuid]));
  for (const job of input.jobs) {
    if (job.jobPid === null) continue;
    for (const placed of job.gpus) {
      const uuid = uuidOfIndex.get(placed.index);
      if (uuid !== undefined) add(uuid, job.jobId, 0);
    }
  }
  const jobs: JobGpuUsageMeasurement[] = [];
  for (const [uuid, entries] of perGpu) {
    const gpu = byUuid.get(uuid)!;
    for (const e of clampJobMemory(
      gpu.memoryUsedMiB,
      [...entries].map(([jobId, memoryUsedMiB]) => ({ jobId, memoryUsedMiB })),
    )) {
      jobs.push({ jobId: e.jobId, index: gpu.index, uuid, memoryUsedMiB: e.memoryUsedMiB });
    }
  }
  jobs.sort((a, b) => a.index - b.index || a.jobId - b.jobId);
  return {
    atMs,
    source: 'nvidia-smi',
    gpus: gpus.map((g) => ({
      index: g.index,
      uuid: g.uuid,
      utilizationRatio: g.utilizationRatio,
      memoryUsedMiB: g.memoryUsedMiB,
    })),
    jobs,
  };
}

/**
 * A sampler that runs nvidia-smi at each `sample()`. Rejects with NvidiaSmiUnavailableError when a
 * command fails (absent, non-zero exit, timeout) or prints output that does not parse.
 */
export function createNvidiaSmiUsageSampler(options: NvidiaSmiUsageOptions = {}): GpuUsageSampler {
  const path = options.nvidiaSmiPath ?? 'nvidia-smi';
  const timeoutMs = options.timeoutMs ?? DEFAULT_NVIDIA_SMI_TIMEOUT_MS;
  const execFile = options.execFile ?? execFileOrThrow;
  const readIds = options.readIds ?? readProcStat;
  const nowMs = options.nowMs ?? Date.now;
  const run = async (args: readonly string[]): Promise<string> => {
    try {
      return (await execFile(path, args, { timeoutMs })).stdout;
    } catch (error) {
      throw new NvidiaSmiUnavailableError(`${path} ${args.join(' ')}: ${(error as Error).message}`, { cause: error });
    }
  };
  return {
    source: 'nvidia-smi',
    async sample(input) {
      const [gpuText, appsText] = await Promise.all([run(USAGE_GPU_ARGS), run(USAGE_APP_ARGS)]);
      try {
        return buildNvidiaSmiUsageSample(gpuText, appsText, input, readIds, nowMs());
      } catch (error) {
        throw new NvidiaSmiUnavailableError(`${path}: unrecognised usage output: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
  };
}

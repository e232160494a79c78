/**
 * Usage of simulated GPUs (`--simulate-gpus`), which have no hardware to measure. The values are
 * derived from the allocations and always labelled `simulated`:
 * - a GPU's utilization = min(1, allocated milli-GPU / 1000);
 * - a job's memory used on a GPU = the device memory allocated to it there;
 * - a GPU's memory used = the sum over its jobs (so it equals the GPU's allocated memory).
 * See docs/metrics.md "How usage is measured".
 */
import type { GpuUsageSample, GpuUsageSampler, UsageInput } from '../ports/gpu-usage.js';

/** The sample of simulated GPUs for `input` at `atMs` (pure). */
export function simulatedUsageSample(input: UsageInput, atMs: number): GpuUsageSample {
  const known = new Map(input.gpus.map((g) => [g.index, g]));
  const jobs = input.jobs.flatMap((job) =>
    job.gpus.flatMap((g) => {
      const gpu = known.get(g.index);
      return gpu
        ? [{ jobId: job.jobId, index: g.index, uuid: gpu.uuid, memoryUsedMiB: Math.max(0, g.gpuMemoryMiB) }]
        : [];
    }),
  );
  const usedByGpu = new Map<number, number>();
  for (const j of jobs) usedByGpu.set(j.index, (usedByGpu.get(j.index) ?? 0) + j.memoryUsedMiB);
  return {
    atMs,
    source: 'simulated',
    gpus: input.gpus.map((g) => ({
      index: g.index,
      uuid: g.uuid,
      utilizationRatio: Math.min(1, Math.max(0, g.allocatedGpuMilli) / 1000),
      memoryUsedMiB: usedByGpu.get(g.index) ?? 0,
    })),
    jobs,
  };
}

/** A sampler of simulated GPUs; `nowMs` is the clock. */
export function createSimulatedUsageSampler(nowMs: () => number): GpuUsageSampler {
  return { source: 'simulated', sample: async (input) => simulatedUsageSample(input, nowMs()) };
}

/**
 * What the usage sampler measures, read from a control plane: every GPU with its allocated
 * milli-GPU (as `GET /api/v1/gpus` shows it) and every running job with its pid and shares.
 */
import type { UsageInput } from '../ports/gpu-usage.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import { toGpuViews } from '../services/views.js';
import type { StateStore } from '../ports/state-store.js';

/** The sampler input of `plane` now. */
export function usageInputOf(plane: ControlPlane, store: StateStore): UsageInput {
  const gpus = toGpuViews(plane, (id) => store.getJob(id)).map((g) => ({
    index: g.index,
    uuid: g.uuid,
    allocatedGpuMilli: g.allocatedGpuMilli,
  }));
  const jobs = plane.runningJobs().map((job) => ({
    jobId: job.id,
    jobPid: job.process?.jobPid ?? null,
    gpus: (job.placement?.gpus ?? []).map((g) => ({ index: g.index, gpuMemoryMiB: g.gpuMemoryMiB })),
  }));
  return { gpus, jobs };
}

/**
 * How a job's GPU request turns into what is reserved on a GPU: the effective sharing mode, the
 * milli-GPU counted against the GPU's 1000, and the device memory. One place, so the scheduler, the
 * submit-time check and the views agree.
 */
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { EffectiveMode, GpuRequest } from './job.js';

/**
 * The mode a request runs in. `auto` picks `exclusive` for whole GPUs (`gpuMilli` 1000) and `mps`
 * (a driver-enforced memory limit and thread share) for fractions; other modes are kept as asked.
 */
export function resolveMode(gpu: GpuRequest): EffectiveMode {
  if (gpu.mode !== 'auto') return gpu.mode;
  return gpu.gpuMilli === GPU_MILLI_PER_GPU ? 'exclusive' : 'mps';
}

/**
 * milli-GPU counted against a GPU's 1000 for one share: the whole GPU for `exclusive`,
 * ceil(gpuMilli / ratio) for `timeslice` (compute may be overcommitted up to `ratio` ≥ 1), the
 * request itself for `mps`, and 0 for `mig` (MIG GPUs are accounted in slices, not milli).
 */
export function accountedGpuMilli(mode: EffectiveMode, gpuMilli: number, timesliceOvercommitRatio: number): number {
  switch (mode) {
    case 'exclusive': return GPU_MILLI_PER_GPU;
    case 'timeslice': return Math.ceil(gpuMilli / timesliceOvercommitRatio);
    case 'mps': return gpuMilli;
    case 'mig': return 0;
  }
}

/**
 * Device memory reserved per GPU, MiB: the whole GPU for `exclusive`, the request's
 * `gpuMemoryMiB` when given, else the share of the GPU's memory in proportion to `gpuMilli`
 * (floor(gpuMilli × gpuMemoryMiB of the model / 1000)).
 */
export function reservedGpuMemoryMiB(mode: EffectiveMode, gpu: GpuRequest, modelMemoryMiB: number): number {
  if (mode === 'exclusive') return modelMemoryMiB;
  if (gpu.gpuMemoryMiB !== null) return gpu.gpuMemoryMiB;
  return Math.floor((gpu.gpuMilli * modelMemoryMiB) / GPU_MILLI_PER_GPU);
}

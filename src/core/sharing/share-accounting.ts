/**
 * How a job's GPU request turns into what is reserved on a GPU: the effective sharing mode, the
 * milli-GPU counted against the GPU's 1000, and the device memory. One place, so the scheduler, the
 * submit-time check and the views agree.
 */
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { EffectiveMode, GpuRequest } from '../model/request.js';

/**
 * The first mode a request is tried in. `auto` follows the isolation (select-mode.ts): whole GPUs
 * (`gpuMilli` 1000) → `exclusive`; `strict` → `mig` (the scheduler falls back to whole GPUs when no
 * MIG instance can hold it: see `fallbackMode`); `standard` or none given → `mps`; `none` →
 * `timeslice`. Other modes are kept as asked.
 */
export function resolveMode(gpu: GpuRequest): EffectiveMode {
  if (gpu.mode !== 'auto') return gpu.mode;
  if (gpu.gpuMilli === GPU_MILLI_PER_GPU) return 'exclusive';
  if (gpu.isolation === 'strict') return 'mig';
  return gpu.isolation === 'none' ? 'timeslice' : 'mps';
}

/**
 * The mode tried when the first one cannot hold the request: a `strict` `auto` job that no MIG
 * instance can hold (no MIG GPU, or none free) may take whole GPUs instead; null otherwise.
 */
export function fallbackMode(gpu: GpuRequest): EffectiveMode | null {
  return gpu.mode === 'auto' && gpu.isolation === 'strict' && gpu.gpuMilli < GPU_MILLI_PER_GPU ? 'exclusive' : null;
}

/**
 * milli-GPU counted against a GPU's 1000 for one share: the whole GPU for `exclusive`,
 * ceil(gpuMilli / ratio) for `timeslice` (compute may be overcommitted up to `ratio` ≥ 1), the
 * request itself for `mps`, and 0 for `mig` (MIG GPUs are accounted in slices, not milli).
 */
export function accountedGpuMilli(mode: EffectiveMode, gpuMilli: number, timesliceOvercommitRatio: number): number {
  switch (mode) {
    case 'exclusive':
      return GPU_MILLI_PER_GPU;
    case 'timeslice':
      return Math.ceil(gpuMilli / timesliceOvercommitRatio);
    case 'mps':
      return gpuMilli;
    case 'mig':
      return 0;
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

/**
 * GPU-equivalents: the one measure of "how much GPU" a request is, used by quotas, fair share,
 * preemption, metrics and autoscaling, so that they all agree. One GPU-equivalent is one whole GPU.
 *
 * Rule (docs/fair-share.md):
 * - shared GPU (mps, timeslice, auto fractions): `gpuCount × max(gpuMilli / 1000, gpuMemoryMiB / model memory)`,
 *   where a null `gpuMemoryMiB` (memory in proportion to compute) counts as `gpuMilli / 1000`;
 * - MIG instance: `gpuCount × computeSlices / the GPU's computeSlices` (7, or 4 on A30);
 * - exclusive (whole GPUs): `gpuCount`.
 * Each GPU counts at most 1 (a request whose memory exceeds the model's cannot be placed on it).
 * Values are exact floats; compare sums with {@link GPU_EQUIVALENT_EPSILON}.
 */
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { SharingMode } from '../model/request.js';

/**
 * Absolute tolerance, in GPU-equivalents, for comparing sums of GPU-equivalents (quota checks):
 * `a ≤ b` is tested as `a ≤ b + 1e-9`, so 0.1 + 0.2 fits a limit of 0.3.
 */
export const GPU_EQUIVALENT_EPSILON = 1e-9;

/** Compute slices of a MIG GPU when the caller does not say (A100, H100, H200; A30 has 4). */
export const DEFAULT_GPU_COMPUTE_SLICES = 7;

/** The part of a request that determines its size in GPU-equivalents. `JobRequest['gpu']` fits. */
export interface GpuEquivalentRequest {
  /** Number of distinct GPUs, a non-negative integer (0 = CPU-only, size 0). */
  readonly gpuCount: number;
  /** Compute share of each GPU in milli-GPU, 0..1000. */
  readonly gpuMilli: number;
  /** Device memory of each GPU in MiB, or null for "in proportion to `gpuMilli`". */
  readonly gpuMemoryMiB: number | null;
  /** Sharing mode; `exclusive` counts whole GPUs whatever `gpuMilli` says. Omitted = not exclusive. */
  readonly mode?: SharingMode;
  /** Compute slices of the MIG instance held (or chosen) on each GPU; null/omitted = not MIG. */
  readonly migComputeSlices?: number | null;
  /** Compute slices of the whole MIG GPU: 7, or 4 on A30 (`migGeometry(model).computeSlices`). Default 7. */
  readonly gpuComputeSlices?: number;
}

/**
 * Size of `request` in GPU-equivalents (1 = one whole GPU), by the rule in the file comment.
 * `modelMemoryMiB` is the device memory of the GPU model the request is measured against: the
 * model it runs on, or for a pending job the smallest eligible model
 * ({@link smallestModelMemoryMiB}); it is read only for a shared request with a `gpuMemoryMiB` > 0
 * (a request of 0 MiB, like the trace pods of the simulator, is its compute share alone).
 * Examples: 600 milli × 2 GPUs → 1.2; 100 milli with 40 GiB on an 80 GiB GPU → 0.5; a 3-slice MIG
 * instance on an A100 → 3/7; a 2-slice instance on an A30 → 0.5.
 *
 * @throws RangeError naming the field when `gpuCount` is not a non-negative integer, `gpuMilli` is
 * outside 0..1000, `gpuMemoryMiB` is negative or not finite, `migComputeSlices` is not an integer
 * in 1..`gpuComputeSlices`, `gpuComputeSlices` is not a positive integer, or (when it is read)
 * `modelMemoryMiB` is not a positive finite number.
 */
export function gpuEquivalents(request: GpuEquivalentRequest, modelMemoryMiB: number): number {
  const { gpuCount, gpuMilli, gpuMemoryMiB } = request;
  if (!Number.isSafeInteger(gpuCount) || gpuCount < 0)
    throw new RangeError(`gpuCount must be a non-negative integer, got ${gpuCount}`);
  if (!Number.isFinite(gpuMilli) || gpuMilli < 0 || gpuMilli > GPU_MILLI_PER_GPU) {
    throw new RangeError(`gpuMilli must be within 0..${GPU_MILLI_PER_GPU}, got ${gpuMilli}`);
  }
  if (gpuMemoryMiB !== null && (!Number.isFinite(gpuMemoryMiB) || gpuMemoryMiB < 0)) {
    throw new RangeError(`gpuMemoryMiB must be a non-negative number or null, got ${gpuMemoryMiB}`);
  }
  const migSlices = request.migComputeSlices ?? null;
  if (migSlices !== null)
    return gpuCount * migFraction(migSlices, request.gpuComputeSlices ?? DEFAULT_GPU_COMPUTE_SLICES);
  if (request.mode === 'exclusive') return gpuCount;
  const computeFraction = gpuMilli / GPU_MILLI_PER_GPU;
  // No memory named (null: in proportion to compute; 0: none reserved): the compute share alone.
  if (gpuMemoryMiB === null || gpuMemoryMiB === 0) return gpuCount * computeFraction;
  if (!Number.isFinite(modelMemoryMiB) || modelMemoryMiB <= 0) {
    throw new RangeError(`modelMemoryMiB must be a positive number, got ${modelMemoryMiB}`);
  }
  return gpuCount * Math.min(1, Math.max(computeFraction, gpuMemoryMiB / modelMemoryMiB));
}

/** Share of one MIG GPU held by an instance of `slices` compute slices. */
function migFraction(slices: number, gpuSlices: number): number {
  if (!Number.isSafeInteger(gpuSlices) || gpuSlices <= 0)
    throw new RangeError(`gpuComputeSlices must be a positive integer, got ${gpuSlices}`);
  if (!Number.isSafeInteger(slices) || slices < 1 || slices > gpuSlices) {
    throw new RangeError(`migComputeSlices must be an integer within 1..${gpuSlices}, got ${slices}`);
  }
  return slices / gpuSlices;
}

/**
 * The device memory, MiB, to measure a pending job against: the smallest of the memories of the
 * GPU models it is eligible for (the cheapest place it could run, so a job is never charged more
 * than the least it could occupy).
 *
 * @throws RangeError when `modelMemoriesMiB` is empty or holds a value that is not a positive finite number
 */
export function smallestModelMemoryMiB(modelMemoriesMiB: readonly number[]): number {
  if (modelMemoriesMiB.length === 0) throw new RangeError('modelMemoriesMiB must list at least one eligible GPU model');
  for (const memory of modelMemoriesMiB) {
    if (!Number.isFinite(memory) || memory <= 0)
      throw new RangeError(`modelMemoriesMiB must hold positive numbers, got ${memory}`);
  }
  return Math.min(...modelMemoriesMiB);
}

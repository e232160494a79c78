/**
 * Units used across gpushare. Capacity is always an integer in a named unit:
 * - `gpuMilli`: share of one GPU's compute, 1000 = one whole GPU;
 * - `gpuMemoryMiB`: GPU (device) memory in MiB;
 * - `cpuMilli`: host CPU in milli-cores (1000 = one vCPU);
 * - `hostMemoryMiB`: host (main) memory in MiB — never GPU memory.
 */

/** milli-GPU in one whole GPU. */
export const GPU_MILLI_PER_GPU = 1000;

/** MiB in one GiB. */
export const MIB_PER_GIB = 1024;

/** True when `value` is a safe non-negative integer (the shape every capacity must have). */
export function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

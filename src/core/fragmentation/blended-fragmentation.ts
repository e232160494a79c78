/**
 * The `default` policy's blended fragmentation (docs/default-policy.md "How it decides"):
 * F = (1 − α)·F_FGD + α·F_capacity, both over the same target workload M, in one pass over M and
 * the node's GPUs. The result is bit-for-bit (1 − α)·nodeFragmentationMilli(…) +
 * α·nodeCapacityFragmentationMilli(…) (node-fragmentation.ts, capacity-fragmentation.ts): every
 * sum is accumulated in the same order as there; only the walk over the GPUs is shared.
 */
import type { TargetWorkload } from './target-workload.js';

/**
 * (1 − α)·F_FGD + α·F_capacity in milli-GPU (F_FGD alone when α = 0). Allocation-free; called on
 * the scheduling hot path for real and hypothetical node states.
 * @param freeCpuMilli the node's free CPU
 * @param gpuModel the node's GPU model (null: no GPU)
 * @param gpuFreeMilli free milli-GPU per GPU
 * @param alpha share α of the capacity-aware measure, 0..1
 */
export function blendedFragmentationMilli(
  freeCpuMilli: number,
  gpuModel: string | null,
  gpuFreeMilli: ArrayLike<number>,
  workload: TargetWorkload,
  alpha: number,
): number {
  const gpus = gpuFreeMilli.length;
  let idle = 0;
  for (let j = 0; j < gpus; j++) idle += gpuFreeMilli[j]!;
  if (idle === 0) return 0;
  // F_FGD's buckets in the authors' order (node-fragmentation.ts) and F_capacity's running sum.
  let lackBoth = 0,
    lackGpu = 0,
    lackCpu = 0,
    cpuOnlyFits = 0,
    cpuOnlyLacks = 0,
    noAccess = 0,
    capacity = 0;
  const types = workload.types;
  for (let m = 0; m < types.length; m++) {
    const t = types[m]!;
    const cpuFits = freeCpuMilli >= t.cpuMilli;
    if (t.gpuMilli === 0) {
      if (cpuFits) cpuOnlyFits += t.weight * idle;
      else cpuOnlyLacks += t.weight * idle;
      capacity += t.weight * idle;
      continue;
    }
    if (t.allowedSet !== null && (gpuModel === null || !t.allowedSet.has(gpuModel))) {
      noAccess += t.weight * idle;
      capacity += t.weight * idle;
      continue;
    }
    const d = t.gpuMilli;
    let hosting = 0;
    let partial = 0;
    let slots = 0;
    for (let j = 0; j < gpus; j++) {
      const g = gpuFreeMilli[j]!;
      if (g >= d) {
        hosting++;
        slots += Math.floor(g / d);
      } else partial += g;
    }
    const gpuFits = hosting >= t.gpuCount;
    if (cpuFits && gpuFits) lackGpu += t.weight * partial;
    else if (!cpuFits && !gpuFits) lackBoth += t.weight * idle;
    else if (!gpuFits) lackGpu += t.weight * idle;
    else lackCpu += t.weight * idle;
    if (t.gpuCount > 1) {
      capacity += t.weight * (gpuFits ? partial : idle);
      continue;
    }
    const copies = t.cpuMilli > 0 ? Math.min(slots, Math.floor(freeCpuMilli / t.cpuMilli)) : slots;
    capacity += t.weight * (idle - Math.min(idle, copies * d));
  }
  const fgd = lackBoth + lackGpu + lackCpu + cpuOnlyFits + cpuOnlyLacks + noAccess;
  return alpha === 0 ? fgd : (1 - alpha) * fgd + alpha * capacity;
}

/**
 * A capacity-aware variant of the FGD fragmentation measure: for each task type m of M, the part
 * of a node's idle milli-GPU that copies of m could NOT absorb, given both the node's GPU slots
 * and its free CPU. FGD's one-step measure (node-fragmentation.ts) asks only whether one more
 * task of type m fits; this asks how many do, so idle GPU that will be stranded by a lack of CPU
 * after the next few placements, or by slot sizes, counts as fragment already.
 *
 * For a GPU type (per-GPU milli d, count k, CPU c): copies = min(⌊Σ_j ⌊g_j/d⌋ / k⌋, ⌊cpu/c⌋),
 * usable = min(idle, copies·k·d), fragment = idle − usable. CPU-only types and types not allowed
 * on the node's model: fragment = idle (as in FGD).
 */
import type { TargetWorkload } from './target-workload.js';

/**
 * Σ_m p_m · (idle − usable_m) in milli-GPU. Allocation-free.
 * @param freeCpuMilli the node's free CPU
 * @param gpuModel the node's GPU model (null: no GPU)
 * @param gpuFreeMilli free milli-GPU per GPU
 */
export function nodeCapacityFragmentationMilli(
  freeCpuMilli: number,
  gpuModel: string | null,
  gpuFreeMilli: ArrayLike<number>,
  workload: TargetWorkload,
): number {
  let idle = 0;
  for (let j = 0; j < gpuFreeMilli.length; j++) idle += gpuFreeMilli[j]!;
  if (idle === 0) return 0;
  let fragment = 0;
  for (const t of workload.types) {
    if (t.gpuMilli === 0 || (t.allowedSet !== null && (gpuModel === null || !t.allowedSet.has(gpuModel)))) {
      fragment += t.weight * idle;
      continue;
    }
    let slots = 0;
    for (let j = 0; j < gpuFreeMilli.length; j++) slots += Math.floor(gpuFreeMilli[j]! / t.gpuMilli);
    const byGpu = Math.floor(slots / t.gpuCount);
    const copies = t.cpuMilli > 0 ? Math.min(byGpu, Math.floor(freeCpuMilli / t.cpuMilli)) : byGpu;
    fragment += t.weight * (idle - Math.min(idle, copies * t.gpuCount * t.gpuMilli));
  }
  return fragment;
}

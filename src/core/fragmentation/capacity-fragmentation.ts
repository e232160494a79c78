/**
 * A capacity-aware variant of the FGD fragmentation measure: for each task type m of M, the part
 * of a node's idle milli-GPU that copies of m could NOT absorb, given both the node's GPU slots
 * and its free CPU. FGD's one-step measure (node-fragmentation.ts) asks only whether one more
 * task of type m fits; this asks how many do, so idle GPU that will be stranded by a lack of CPU
 * after the next few placements, or by slot sizes, counts as fragment already.
 *
 * For a single-GPU type (per-GPU milli d, CPU c): copies = min(Σ_j ⌊g_j/d⌋, ⌊cpu/c⌋),
 * usable = min(idle, copies·d), fragment = idle − usable. A multi-GPU type (k > 1 whole GPUs)
 * counts by GPUs alone: when k GPUs can host it, the GPUs that cannot (partly used ones) are
 * fragment, otherwise all idle GPU is. Counting copies of k-GPU types charged a node for idle
 * whole GPUs that are not a multiple of k — GPUs that smaller types use — and made `default` break
 * more empty 8-GPU nodes on multi-GPU-heavy mixes (docs/default-policy.md, "Multi-GPU types").
 * CPU-only types and types not allowed on the node's model: fragment = idle (as in FGD).
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
    if (t.gpuCount > 1) {
      let hosting = 0;
      let partial = 0;
      for (let j = 0; j < gpuFreeMilli.length; j++) {
        const g = gpuFreeMilli[j]!;
        if (g >= t.gpuMilli) hosting++;
        else partial += g;
      }
      fragment += t.weight * (hosting >= t.gpuCount ? partial : idle);
      continue;
    }
    let slots = 0;
    for (let j = 0; j < gpuFreeMilli.length; j++) slots += Math.floor(gpuFreeMilli[j]! / t.gpuMilli);
    const copies = t.cpuMilli > 0 ? Math.min(slots, Math.floor(freeCpuMilli / t.cpuMilli)) : slots;
    fragment += t.weight * (idle - Math.min(idle, copies * t.gpuMilli));
  }
  return fragment;
}

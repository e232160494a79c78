/**
 * The FGD fragmentation of one node, F_n(M): the expected idle milli-GPU of the node that a task
 * drawn from M could not use. Weng et al., USENIX ATC'23 §3.2; numerics follow the authors'
 * `pkg/utils/frag.go` (six buckets summed in a fixed order) so that scores truncate bit-for-bit
 * like theirs (docs/simulator.md "Fragmentation").
 */
import type { TargetWorkload } from './target-workload.js';

/**
 * F_n(M) in milli-GPU for a node with the given free amounts.
 * Allocation-free; called on the scheduling hot path for real and hypothetical node states.
 * @param freeCpuMilli the node's free CPU
 * @param gpuModel the node's GPU model (null: no GPU)
 * @param gpuFreeMilli free milli-GPU per GPU
 */
export function nodeFragmentationMilli(
  freeCpuMilli: number,
  gpuModel: string | null,
  gpuFreeMilli: ArrayLike<number>,
  workload: TargetWorkload,
): number {
  const gpus = gpuFreeMilli.length;
  let idle = 0;
  for (let j = 0; j < gpus; j++) idle += gpuFreeMilli[j]!;
  if (idle === 0) return 0;
  // Buckets in the authors' order: lack-both, lack-GPU, lack-CPU, CPU-only fits, CPU-only lacks CPU, no access.
  let lackBoth = 0,
    lackGpu = 0,
    lackCpu = 0,
    cpuOnlyFits = 0,
    cpuOnlyLacks = 0,
    noAccess = 0;
  const types = workload.types;
  for (let m = 0; m < types.length; m++) {
    const t = types[m]!;
    const cpuFits = freeCpuMilli >= t.cpuMilli;
    if (t.gpuMilli === 0) {
      if (cpuFits) cpuOnlyFits += t.weight * idle;
      else cpuOnlyLacks += t.weight * idle;
      continue;
    }
    if (t.allowedSet !== null && (gpuModel === null || !t.allowedSet.has(gpuModel))) {
      noAccess += t.weight * idle;
      continue;
    }
    let hosting = 0;
    let partial = 0;
    for (let j = 0; j < gpus; j++) {
      const g = gpuFreeMilli[j]!;
      if (g >= t.gpuMilli) hosting++;
      else partial += g;
    }
    const gpuFits = hosting >= t.gpuCount;
    if (cpuFits && gpuFits) lackGpu += t.weight * partial;
    else if (!cpuFits && !gpuFits) lackBoth += t.weight * idle;
    else if (!gpuFits) lackGpu += t.weight * idle;
    else lackCpu += t.weight * idle;
  }
  return lackBoth + lackGpu + lackCpu + cpuOnlyFits + cpuOnlyLacks + noAccess;
}

/** The idle milli-GPU of a node weighted by M (the denominator of the fragment ratio): G_n · Σ p_m. */
export function nodeWeightedIdleMilli(gpuFreeMilli: ArrayLike<number>, workload: TargetWorkload): number {
  let idle = 0;
  for (let j = 0; j < gpuFreeMilli.length; j++) idle += gpuFreeMilli[j]!;
  return idle * workload.weightSum;
}

/**
 * The measured utilization and memory used of one GPU, merged from the two places that carry them:
 * the GPU inventory (nvidia-smi's `utilization.gpu` / `memory.used`, read by the health poll; null
 * for simulated GPUs, whose stand-in figures are ignored) and the latest usage sample (usage-poller.ts).
 */
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { GpuUsageSample, UsageSource } from '../ports/gpu-usage.js';

/** One GPU's measured values. */
export interface MeasuredGpu {
  /** Utilization, 0..1; null when neither place has one. */
  readonly utilizationRatio: number | null;
  /** Device memory used, MiB; null when neither place has it. */
  readonly memoryUsedMiB: number | null;
  /** Where the values come from; null when there are none. */
  readonly source: UsageSource | null;
}

/**
 * Merges the inventory's and the sample's values of `gpu`, each field from the first place that
 * has it in the order `prefer` gives (`inventory`: the API's GPU views, which keep nvidia-smi's
 * own figures; `sample`: `/metrics`, whose per-job memory must come from the same measurement as
 * the GPU's). `source` is that of the memory value, else of the utilization. Pure.
 */
export function measuredGpu(
  gpu: InventoryGpu,
  sample: GpuUsageSample | null,
  prefer: 'inventory' | 'sample',
): MeasuredGpu {
  const sampled = sample?.gpus.find((g) => g.index === gpu.index && g.uuid === gpu.uuid) ?? null;
  // A simulated GPU's inventory figures come from the stand-in nvidia-smi (MIG GPUs) and measure
  // nothing: the simulated sample, which follows the allocations, is the only source for them.
  const fromInventory = gpu.simulated
    ? { utilization: null, memory: null }
    : {
        utilization:
          gpu.utilizationGpuPct === null
            ? null
            : { value: gpu.utilizationGpuPct / 100, source: 'nvidia-smi' as UsageSource },
        memory: gpu.memoryUsedMiB === null ? null : { value: gpu.memoryUsedMiB, source: 'nvidia-smi' as UsageSource },
      };
  const fromSample = {
    utilization: sampled?.utilizationRatio == null ? null : { value: sampled.utilizationRatio, source: sample!.source },
    memory: sampled?.memoryUsedMiB == null ? null : { value: sampled.memoryUsedMiB, source: sample!.source },
  };
  const [first, second] = prefer === 'inventory' ? [fromInventory, fromSample] : [fromSample, fromInventory];
  const utilization = first.utilization ?? second.utilization;
  const memory = first.memory ?? second.memory;
  return {
    utilizationRatio: utilization?.value ?? null,
    memoryUsedMiB: memory?.value ?? null,
    source: memory?.source ?? utilization?.source ?? null,
  };
}

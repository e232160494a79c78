/**
 * What the node agent publishes on its Node, as JSON merge patches (RFC 7386): the integer extended
 * resources in `status.capacity` / `status.allocatable` (PATCH nodes/{name}/status: the kubelet owns
 * the rest of the status and keeps resources it does not manage), and the labels and inventory
 * annotation in `metadata` (PATCH nodes/{name}). Pure.
 *
 * Capacity counts every GPU; allocatable only healthy ones (as the kubelet does for Unhealthy
 * devices). gpushare.io/gpu-slot is not here: the kubelet publishes it from ListAndWatch.
 */
import { GPU_MILLI_PER_GPU } from '../../../core/index.js';
import { NODE_ANNOTATIONS, NODE_LABELS, RESOURCES } from '../schema/names.js';
import { formatInventory, type InventoryGpu } from '../schema/node-inventory.js';

/** Quantities of `gpushare.io/gpu`, `gpu-milli` and `gpu-memory-mib` as Kubernetes quantity strings. */
export type GpuResourceQuantities = Record<string, string>;

/** `gpushare.io/gpu` = count, `gpu-milli` = count × 1000, `gpu-memory-mib` = sum of MiB, over `gpus`. */
export function gpuResourceQuantities(gpus: readonly InventoryGpu[]): GpuResourceQuantities {
  return {
    [RESOURCES.gpu]: String(gpus.length),
    [RESOURCES.gpuMilli]: String(gpus.length * GPU_MILLI_PER_GPU),
    [RESOURCES.gpuMemoryMiB]: String(gpus.reduce((sum, g) => sum + g.gpuMemoryMiB, 0)),
  };
}

/** The status patch: capacity over all GPUs, allocatable over the healthy ones. */
export function nodeStatusPatch(gpus: readonly InventoryGpu[]): {
  status: { capacity: GpuResourceQuantities; allocatable: GpuResourceQuantities };
} {
  return {
    status: {
      capacity: gpuResourceQuantities(gpus),
      allocatable: gpuResourceQuantities(gpus.filter((g) => g.healthy)),
    },
  };
}

const LABEL_VALUE_MAX = 63;

/**
 * A valid label value for `raw` (at most 63 characters of `[A-Za-z0-9_.-]`, starting and ending
 * alphanumeric; Kubernetes label value syntax): other characters become `-`, e.g.
 * `NVIDIA A100-SXM4-80GB` → `NVIDIA-A100-SXM4-80GB`.
 */
export function labelValue(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_.-]/g, '-')
    .slice(0, LABEL_VALUE_MAX)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
}

/**
 * The metadata patch: labels `gpushare.io/managed=true`, `gpu-model` (the first GPU's model),
 * `gpu-memory-mib` (the largest GPU's MiB), `gpu-count`; annotation `gpushare.io/gpus` (the
 * inventory JSON). With no GPU, model and memory labels are removed (null).
 */
export function nodeMetadataPatch(gpus: readonly InventoryGpu[]): {
  metadata: { labels: Record<string, string | null>; annotations: Record<string, string> };
} {
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const first = sorted[0];
  return {
    metadata: {
      labels: {
        [NODE_LABELS.managed]: 'true',
        [NODE_LABELS.gpuModel]: first ? labelValue(first.model) : null,
        [NODE_LABELS.gpuMemoryMiB]: first ? String(Math.max(...sorted.map((g) => g.gpuMemoryMiB))) : null,
        [NODE_LABELS.gpuCount]: String(sorted.length),
      },
      annotations: { [NODE_ANNOTATIONS.gpus]: formatInventory(sorted) },
    },
  };
}

// Port: how the server learns which GPUs a machine has and whether they are usable.
// Adapters: src/adapters/gpu/nvidia-smi-inventory.ts (real GPUs) and simulated-gpus.ts
// (`--simulate-gpus`). See docs/gpus.md.

/** One MIG device (a GPU instance / compute instance pair) on a MIG-enabled GPU. */
export interface InventoryMigDevice {
  /** `MIG-<uuid>` (R470+) or the legacy R450 form `MIG-GPU-<gpu-uuid>/<gi>/<ci>`, from `nvidia-smi -L`. */
  uuid: string;
  /** Profile name from `nvidia-smi -L`, e.g. `1g.10gb`, or a compute-instance profile such as `1c.3g.71gb`. */
  profile: string;
  /** GPU instance ID from `nvidia-smi -q -x`; null when that output had no entry for this device. */
  gpuInstanceId: number | null;
  /** Compute instance ID from `nvidia-smi -q -x`; null when that output had no entry for this device. */
  computeInstanceId: number | null;
  /** MIG device index on its GPU (`Device N` in `-L`, `<index>` in `-q -x`). */
  deviceIndex: number;
}

/**
 * One physical GPU as the server sees it now. Memory in MiB, utilisation in percent.
 * Facts come from nvidia-smi (see docs/gpus.md) or, when `simulated` is true, from the
 * `--simulate-gpus` spec and the GPU model catalog (src/core/model/gpu-models.ts).
 */
export interface InventoryGpu {
  /** nvidia-smi GPU index (0-based); for simulated GPUs the position in the spec. */
  index: number;
  /** `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`; the stable identity of the GPU. */
  uuid: string;
  /**
   * N of the GPU's device node `/dev/nvidiaN` (`<minor_number>` of `nvidia-smi -q -x`; it need not
   * equal `index`); the index for simulated GPUs; absent or null when unknown (the index is used).
   */
  deviceMinor?: number | null;
  /** Name as reported, e.g. `NVIDIA A100-SXM4-80GB`; `Simulated <model>` for simulated GPUs. */
  name: string;
  /** Catalog model name (findGpuModel), e.g. `A100-80GB`, or the reported name when not in the catalog. */
  model: string;
  /** Total device memory in MiB (`memory.total`; the catalog value for simulated GPUs). */
  gpuMemoryMiB: number;
  /** Whether MIG mode is currently enabled. */
  migEnabled: boolean;
  /** MIG devices now configured (empty when MIG is off, unsupported, or enabled with no instances). */
  migDevices: readonly InventoryMigDevice[];
  /** True for GPUs made up by `--simulate-gpus`: no hardware behind them. */
  simulated: boolean;
  /** False when the GPU must not be given work (see healthReason). */
  healthy: boolean;
  /**
   * Why the GPU is unhealthy, e.g. `vanished`, `nvidia-smi reports [GPU requires reset]`,
   * `GPU reset required (gpu_reset_status)`, `row remapping pending`; null when healthy.
   */
  healthReason: string | null;
  /**
   * GPU utilisation in percent as measured by nvidia-smi; null when nvidia-smi prints N/A
   * (always the case with MIG enabled) and for simulated GPUs unless simulated values are given.
   */
  utilizationGpuPct: number | null;
  /** Used device memory in MiB as measured; null when unavailable and for simulated GPUs unless given. */
  memoryUsedMiB: number | null;
}

/** Source of GPU facts for one node. */
export interface GpuInventory {
  /** Where the facts come from: the real `nvidia-smi`, or `--simulate-gpus`. */
  readonly source: 'nvidia-smi' | 'simulated';
  /**
   * Lists the GPUs now, ordered by index. Never throws for an unhealthy GPU: it is reported with
   * healthy=false. A GPU present before and absent now is the caller's business (the caller
   * compares uuids; see src/adapters/gpu/gpu-health-poller.ts). Rejects only when the source
   * itself cannot be read (for nvidia-smi: `NvidiaSmiUnavailableError`); the caller then treats
   * every GPU it knew as unhealthy.
   */
  list(): Promise<InventoryGpu[]>;
}

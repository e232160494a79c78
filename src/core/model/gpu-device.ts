/**
 * A GPU as gpushare schedules it, and the MIG GPU instances that exist on it. Plain data, shared
 * by the scheduler core, the store and the API.
 */

/** One physical GPU of a node. */
export interface GpuDevice {
  /** Device index on its node, as nvidia-smi numbers it (0-based). */
  readonly index: number;
  /** `GPU-…` UUID (simulated GPUs get stable made-up UUIDs). */
  readonly uuid: string;
  /** Catalog model name, e.g. `A100-80GB`. */
  readonly model: string;
  /**
   * Total device memory in MiB; 0 when unknown (a trace's undisclosed model: requests naming memory never land on it).
   */
  readonly gpuMemoryMiB: number;
  /** True when the GPU is in MIG mode (it then hosts only `mig` jobs). */
  readonly migEnabled: boolean;
  /** False when the GPU is unhealthy, vanished or cordoned: it gets no new jobs. */
  readonly schedulable: boolean;
  /**
   * The GPU instances that exist on a MIG GPU, held or idle (read from the GPU); absent for none.
   * Instances held by jobs need not be listed: their assignments say where they are.
   */
  readonly migInstances?: readonly MigInstance[];
}

/** A MIG GPU instance. Placement `start`/`size` are in memory slices. */
export interface MigInstance {
  /** GI profile ID as `nvidia-smi mig -cgi` takes it. */
  readonly profileId: number;
  /** Display name, e.g. `3g.40gb`. */
  readonly profileName: string;
  readonly start: number;
  readonly size: number;
  /** Compute slices of the profile. */
  readonly computeSlices: number;
}

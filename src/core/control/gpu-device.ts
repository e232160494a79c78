/**
 * The GPUs of one server as the control plane schedules them, and what a placement gives a job on
 * each GPU. Plain data, shared by the scheduler core, the store and the API.
 */
import type { EffectiveMode } from './job.js';

/** One physical GPU of the server. */
export interface GpuDevice {
  /** Device index as nvidia-smi numbers it (0-based). */
  readonly index: number;
  /** `GPU-…` UUID (simulated GPUs get stable made-up UUIDs). */
  readonly uuid: string;
  /** Catalog model name, e.g. `A100-80GB`. */
  readonly model: string;
  /** Total device memory in MiB. */
  readonly gpuMemoryMiB: number;
  /** True when the GPU is in MIG mode (it then hosts only `mig` jobs). */
  readonly migEnabled: boolean;
  /** False when the GPU is unhealthy, vanished or cordoned: it gets no new jobs. */
  readonly schedulable: boolean;
}

/** A MIG GPU instance given to a job. Placement `start`/`size` are in memory slices. */
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

/**
 * MIG layout changes a placement needs before its job can start: idle GIs to destroy, then GIs to
 * create (the job's own when it is new). Empty lists when the job reuses an idle GI.
 */
export interface MigChanges {
  readonly destroy: readonly { readonly start: number; readonly profileId: number }[];
  readonly create: readonly { readonly start: number; readonly profileId: number }[];
}

/** What a job holds on one GPU. */
export interface PlacedGpu {
  readonly index: number;
  readonly uuid: string;
  /** The job's share of compute in milli-GPU as requested (its weight when time-sliced). */
  readonly gpuMilli: number;
  /**
   * milli-GPU counted against the GPU's 1000: equal to `gpuMilli` except for `exclusive` (1000),
   * `timeslice` with an overcommit ratio r > 1 (ceil(gpuMilli / r)) and `mig` (0: MIG GPUs are
   * accounted in slices).
   */
  readonly accountedGpuMilli: number;
  /** Device memory reserved for the job on this GPU, MiB. */
  readonly gpuMemoryMiB: number;
  /** The MIG instance, for `mig` placements; null otherwise. */
  readonly mig: MigInstance | null;
  /** For `mig`: the layout changes made for this placement (absent: none). */
  readonly migChanges?: MigChanges;
  /** For `mig`: the MIG device UUID, once the agent has created or found the instance. */
  readonly migDeviceUuid?: string | null;
  /** For `mps`: true when the job was started as a client of the GPU's MPS daemon. */
  readonly mpsClient?: boolean;
}

/** Where and how a job runs. */
export interface Placement {
  readonly mode: EffectiveMode;
  readonly gpus: readonly PlacedGpu[];
}

/** A job that holds resources now (scheduled or running). */
export interface HeldAllocation {
  readonly jobId: number;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly placement: Placement;
}

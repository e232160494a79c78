/**
 * What a placement gives a job: the GPUs (and on each its share, memory, MIG instance) in one
 * sharing mode, and the assignment of a job that holds resources on a node. Plain data, shared by
 * the scheduler core, the store and the API.
 */
import type { MigInstance } from './gpu-device.js';
import type { EffectiveMode } from './request.js';

/**
 * MIG layout changes a placement needs before its job can start: the GPU switched into MIG mode
 * (`enableMig`), idle GIs to destroy, then GIs to create (the job's own when it is new). Empty lists
 * when the job reuses an idle GI.
 */
export interface MigChanges {
  /**
   * True when the GPU, empty and not in MIG mode, is to be switched into MIG mode first (only under the core's
   * `migModeOnDemand`, framework/mig-switching.ts); absent otherwise.
   */
  readonly enableMig?: boolean;
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

/** A job that holds resources now (scheduled or running): what it holds, where. */
export interface Assignment {
  readonly jobId: number;
  /** Name of the node it holds resources on (model/cluster.ts). */
  readonly node: string;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly placement: Placement;
}

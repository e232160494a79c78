/**
 * The public data types of the MIG layout planner (src/core/mig/plan-reconfiguration.ts): its input
 * (GPUs, queue), its plan (destroys, creates, assignments, unplaced requests) and a GPU's part of a plan.
 */
import type { MigGpuInstance } from './mig-allocator.js';
import type { MigProfile } from './mig-profiles.js';

/** One GPU in MIG mode, as the planner sees it. */
export interface MigPlanGpu {
  readonly gpuIndex: number;
  /** GPU model, canonical catalog name or alias. */
  readonly model: string;
  /** Its GIs now, idle ones (`inUse: false`) included. */
  readonly gis: readonly MigGpuInstance[];
  /** False: the planner neither changes nor assigns anything on this GPU (drained, faulty, …). */
  readonly schedulable: boolean;
}

/**
 * The profile a request accepts: one profile (it applies only to GPUs of that profile's model), or a
 * per-model choice returning a profile of that model, or undefined when the model cannot serve it.
 */
export type MigProfileChoice = MigProfile | ((model: string) => MigProfile | undefined);

/** A request for one GI, in queue order. */
export interface MigPlanRequest {
  readonly jobId: number;
  readonly profile: MigProfileChoice;
  /** Its size in GPU-equivalents (src/core/fairness/gpu-equivalents.ts); positive and finite. */
  readonly gpuEquivalents: number;
}

/** What `planMigReconfiguration` (plan-reconfiguration.ts) plans for: the server's MIG GPUs and the queue. */
export interface MigReconfigurationInput {
  readonly gpus: readonly MigPlanGpu[];
  /** Requests in queue order (earlier = served first). */
  readonly queue: readonly MigPlanRequest[];
}

/** An idle GI to destroy. */
export interface MigPlanDestroy {
  readonly gpuIndex: number;
  readonly start: number;
  readonly profileId: number;
}

/** A GI to create at an explicit placement (`nvidia-smi mig -cgi <profileId>:<start>`). */
export interface MigPlanCreate {
  readonly gpuIndex: number;
  readonly profileId: number;
  readonly start: number;
  /** Memory slices of the profile, so the resulting layout can be computed without the model. */
  readonly size: number;
}

/** The GI a request gets. */
export interface MigPlanAssignment {
  readonly jobId: number;
  readonly gpuIndex: number;
  readonly start: number;
  readonly profileId: number;
  /** True when the GI is an existing idle one; false when the plan creates it. */
  readonly reused: boolean;
}

/** A request the plan does not place, and why. */
export interface MigPlanUnplaced {
  readonly jobId: number;
  readonly reason: string;
}

/** A plan: data only. Apply per GPU: `destroy` in order, then `create` in order. */
export interface MigReconfigurationPlan {
  /** Idle GIs to destroy, by GPU index then start. */
  readonly destroy: MigPlanDestroy[];
  /** GIs to create, by GPU index, then largest profile first (memory, then compute slices), then start. */
  readonly create: MigPlanCreate[];
  /** In queue order. */
  readonly assignments: MigPlanAssignment[];
  /** In queue order. */
  readonly unplaced: MigPlanUnplaced[];
  /** What the plan does and why, one line each, for logs and `show`. */
  readonly explanation: string[];
  /** Sum of the assigned requests' GPU-equivalents. */
  readonly placedGpuEquivalents: number;
}

/**
 * The part of a plan for one GPU, as `migPlanForGpu` (plan-apply.ts) returns it: assignable to the server's
 * `MigPlan` (src/app/ports/mig-manager.ts), whose create items ignore `size`.
 */
export interface MigGpuPlanPart {
  destroy: { start: number; profileId: number }[];
  create: { profileId: number; start: number; size: number }[];
}

/** What `applyMigPlan` (plan-apply.ts) reads of a GPU's part of a plan. */
export interface MigGpuPlanPartView {
  readonly destroy: readonly { readonly start: number; readonly profileId: number }[];
  readonly create: readonly { readonly profileId: number; readonly start: number; readonly size: number }[];
}

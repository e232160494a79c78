/**
 * A pod's assignment: the GPUs (or MIG instances) the extender chose and the share on each,
 * written as the JSON value of the pod annotation `gpushare.io/assignment` before the pod is bound,
 * and read by the node agent (what the container gets) and by the extender when it rebuilds its
 * view. Schema `v1`.
 */
import { z } from 'zod';
import type { Placement } from '../../../core/index.js';
import { parseJsonAnnotation } from './json-annotation.js';
import { migInstanceSchema } from './node-inventory.js';
import { POD_ANNOTATIONS, SCHEMA_VERSION } from './names.js';

const assignedGpuSchema = z.object({
  index: z.number().int().nonnegative(),
  /** The physical GPU's UUID. */
  uuid: z.string().min(1),
  /** Share asked for, milli-GPU. */
  gpuMilli: z.number().int().min(0).max(1000),
  /** milli-GPU counted against the GPU's 1000 (1000 for exclusive, 0 for MIG). */
  accountedGpuMilli: z.number().int().min(0).max(1000),
  /** Memory reserved on the GPU, MiB. */
  gpuMemoryMiB: z.number().int().nonnegative(),
  /** The MIG instance for `mig` (placement in memory slices, device UUID), else null. */
  mig: migInstanceSchema.nullable(),
});

const assignmentSchema = z.object({
  schema: z.literal(SCHEMA_VERSION),
  node: z.string().min(1),
  mode: z.enum(['exclusive', 'mig', 'mps', 'timeslice']),
  gpus: z.array(assignedGpuSchema).min(1),
  /**
   * The extender's signature over the pod's UID and the rest of the assignment
   * (assignment-signature.ts); absent when the extender runs without an assignment key.
   */
  signature: z.string().min(1).optional(),
});

/** A pod's assignment. */
export type PodAssignment = z.infer<typeof assignmentSchema>;
/** One GPU of an assignment. */
export type AssignedGpu = z.infer<typeof assignedGpuSchema>;

/**
 * The assignment of a core placement on `node`.
 * @param migUuidOf the device UUID of a MIG instance (node, GPU index, start), from the inventory
 * @throws Error when a MIG placement names an instance whose UUID is unknown
 */
export function assignmentOf(
  node: string,
  placement: Placement,
  migUuidOf: (gpuIndex: number, start: number) => string | undefined,
): PodAssignment {
  return {
    schema: SCHEMA_VERSION,
    node,
    mode: placement.mode,
    gpus: placement.gpus.map((g) => {
      let mig: AssignedGpu['mig'] = null;
      if (g.mig !== null) {
        const uuid = migUuidOf(g.index, g.mig.start);
        if (uuid === undefined)
          throw new Error(`no MIG device UUID for GPU ${g.index} instance at slice ${g.mig.start} of node ${node}`);
        mig = {
          uuid,
          profileId: g.mig.profileId,
          profileName: g.mig.profileName,
          start: g.mig.start,
          size: g.mig.size,
          computeSlices: g.mig.computeSlices,
        };
      }
      return {
        index: g.index,
        uuid: g.uuid,
        gpuMilli: g.gpuMilli,
        accountedGpuMilli: g.accountedGpuMilli,
        gpuMemoryMiB: g.gpuMemoryMiB,
        mig,
      };
    }),
  };
}

/** The core placement an assignment describes (for rebuilding the extender's view). */
export function placementOf(assignment: PodAssignment): Placement {
  return {
    mode: assignment.mode,
    gpus: assignment.gpus.map((g) => ({
      index: g.index,
      uuid: g.uuid,
      gpuMilli: g.gpuMilli,
      accountedGpuMilli: g.accountedGpuMilli,
      gpuMemoryMiB: g.gpuMemoryMiB,
      mig:
        g.mig === null
          ? null
          : {
              profileId: g.mig.profileId,
              profileName: g.mig.profileName,
              start: g.mig.start,
              size: g.mig.size,
              computeSlices: g.mig.computeSlices,
            },
    })),
  };
}

/** The annotations that record `assignment` (the JSON and the readable UUID list). */
export function assignmentAnnotations(assignment: PodAssignment): Record<string, string> {
  return {
    [POD_ANNOTATIONS.assignment]: JSON.stringify(assignment),
    [POD_ANNOTATIONS.assignedGpus]: assignedDeviceIds(assignment).join(','),
  };
}

/** The device UUIDs a container gets: MIG device UUIDs for MIG, GPU UUIDs otherwise, in GPU order. */
export function assignedDeviceIds(assignment: PodAssignment): string[] {
  return [...assignment.gpus].sort((a, b) => a.index - b.index).map((g) => g.mig?.uuid ?? g.uuid);
}

/** Reads a pod's assignment: null when it has none, an error message naming the annotation when malformed. */
export function parseAssignment(
  annotations: Readonly<Record<string, string>> | undefined,
): PodAssignment | null | { error: string } {
  return parseJsonAnnotation(annotations, POD_ANNOTATIONS.assignment, assignmentSchema);
}

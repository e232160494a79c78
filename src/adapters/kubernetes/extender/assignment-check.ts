/**
 * Whether the extender accounts an assignment it reads from a pod: the assignment must match the
 * pod's request, name GPUs (and MIG instances) the node has without asking more than they hold, and
 * carry the extender's own signature for this pod (when the extender has a key). An assignment that
 * fails is refused with a code and structured details; the extender then holds nothing for the pod
 * and blocks the GPUs it names (cluster-view.ts).
 */
import { GPU_MILLI_PER_GPU, resolveMode, type EffectiveMode, type GpuRequest } from '../../../core/index.js';
import type { AssignmentSigner } from '../schema/assignment-signature.js';
import type { NodeInventory } from '../schema/node-inventory.js';
import type { PodAssignment } from '../schema/pod-assignment.js';

/** Why an assignment is not accounted (the Event's reason, the log's and the metric's `code`). */
export const ASSIGNMENT_REFUSAL_CODES = {
  /** A GPU index or UUID, or a MIG instance, the node does not have. */
  unknownGpu: 'assignment-unknown-gpu',
  /** More memory than the GPU (or its MIG instance) has. */
  overCapacity: 'assignment-over-capacity',
  /** GPU count, share, mode or memory other than the pod's request gives. */
  requestMismatch: 'assignment-request-mismatch',
  /** No signature, while the extender signs its assignments. */
  unsigned: 'assignment-unsigned',
  /** A signature that is not the extender's for this pod and this content. */
  badSignature: 'assignment-bad-signature',
} as const;

/** One of {@link ASSIGNMENT_REFUSAL_CODES}. */
export type AssignmentRefusalCode = (typeof ASSIGNMENT_REFUSAL_CODES)[keyof typeof ASSIGNMENT_REFUSAL_CODES];

/** A refused assignment: the code, the GPU indices concerned, and details naming the field. */
export interface AssignmentRefusal {
  readonly code: AssignmentRefusalCode;
  /** Details as data: `field` (in the assignment JSON), `expected`, `found`, … */
  readonly details: Readonly<Record<string, string | number | null>>;
}

/** What the check compares an assignment with. */
export interface AssignmentContext {
  readonly podUid: string;
  readonly request: GpuRequest;
  readonly inventory: NodeInventory;
  /** null: signatures are not checked (the extender has no key). */
  readonly signer: AssignmentSigner | null;
}

/** The modes a request may be placed in (`auto` resolved as the core does, with its fallback). */
function modesFor(request: GpuRequest): readonly EffectiveMode[] {
  const first = resolveMode(request);
  const strictAuto = request.mode === 'auto' && request.isolation === 'strict' && request.gpuMilli < GPU_MILLI_PER_GPU;
  return strictAuto ? [first, 'exclusive'] : [first];
}

/** Checks `assignment` (see the module comment). @returns null when it may be accounted, else why not */
export function checkAssignment(assignment: PodAssignment, ctx: AssignmentContext): AssignmentRefusal | null {
  const { request, inventory } = ctx;
  const refuse = (code: AssignmentRefusalCode, details: AssignmentRefusal['details']): AssignmentRefusal => ({
    code,
    details,
  });
  // An assignment with this extender's signature for this pod is its own: it matched the node when
  // it was written, and a node whose inventory changed since is the hold's business (the GPU is
  // blocked while the pod runs, cluster-view.ts). Any other must match the node now.
  const own = ctx.signer !== null && ctx.signer.verify(ctx.podUid, assignment);
  const seen = new Set<number>();
  for (const [i, g] of own ? [] : assignment.gpus.entries()) {
    const field = `gpus[${i}]`;
    const gpu = inventory.gpus.find((x) => x.index === g.index);
    if (gpu === undefined || gpu.uuid !== g.uuid || seen.has(g.index))
      return refuse(ASSIGNMENT_REFUSAL_CODES.unknownGpu, {
        field,
        index: g.index,
        uuid: g.uuid,
        found: gpu === undefined ? null : seen.has(g.index) ? 'named twice' : gpu.uuid,
      });
    seen.add(g.index);
    if (g.mig !== null) {
      const instance = gpu.migInstances.find((m) => m.uuid === g.mig!.uuid);
      if (instance === undefined || instance.start !== g.mig.start || instance.size !== g.mig.size)
        return refuse(ASSIGNMENT_REFUSAL_CODES.unknownGpu, {
          field: `${field}.mig`,
          index: g.index,
          uuid: g.mig.uuid,
          found: instance === undefined ? null : `start ${instance.start}, size ${instance.size}`,
        });
    }
    if (g.gpuMemoryMiB > gpu.gpuMemoryMiB)
      return refuse(ASSIGNMENT_REFUSAL_CODES.overCapacity, {
        field: `${field}.gpuMemoryMiB`,
        index: g.index,
        found: g.gpuMemoryMiB,
        expected: gpu.gpuMemoryMiB,
      });
  }
  const mismatch = requestMismatch(assignment, request, inventory, own);
  if (mismatch !== null) return refuse(ASSIGNMENT_REFUSAL_CODES.requestMismatch, mismatch);
  if (ctx.signer !== null && !own)
    return assignment.signature === undefined
      ? refuse(ASSIGNMENT_REFUSAL_CODES.unsigned, { field: 'signature', found: null })
      : refuse(ASSIGNMENT_REFUSAL_CODES.badSignature, { field: 'signature', found: 'not the extender’s' });
  return null;
}

/** The first difference between `assignment` and what `request` gives, as details; null when none. */
function requestMismatch(
  assignment: PodAssignment,
  request: GpuRequest,
  inventory: NodeInventory,
  own: boolean,
): AssignmentRefusal['details'] | null {
  if (assignment.gpus.length !== request.gpuCount)
    return { field: 'gpus', expected: request.gpuCount, found: assignment.gpus.length };
  const modes = modesFor(request);
  if (!modes.includes(assignment.mode)) return { field: 'mode', expected: modes.join(' or '), found: assignment.mode };
  for (const [i, g] of assignment.gpus.entries()) {
    const field = `gpus[${i}]`;
    if (g.gpuMilli !== request.gpuMilli)
      return { field: `${field}.gpuMilli`, expected: request.gpuMilli, found: g.gpuMilli };
    const accounted = expectedAccounting(assignment.mode, g.gpuMilli);
    if (g.accountedGpuMilli < accounted.min || g.accountedGpuMilli > accounted.max)
      return {
        field: `${field}.accountedGpuMilli`,
        expected: accounted.min === accounted.max ? accounted.min : `${accounted.min}..${accounted.max}`,
        found: g.accountedGpuMilli,
      };
    if ((assignment.mode === 'mig') !== (g.mig !== null))
      return { field: `${field}.mig`, expected: assignment.mode === 'mig' ? 'an instance' : null, found: null };
    // Whole-GPU and proportional memory follow the GPU's memory now; not for the extender's own
    // assignment, whose GPU may have changed since (the hold's business).
    const gpuMemoryMiB = own ? undefined : inventory.gpus.find((x) => x.index === g.index)?.gpuMemoryMiB;
    let memory = 0;
    if (assignment.mode === 'mig') memory = request.gpuMemoryMiB ?? 1;
    else if (assignment.mode !== 'exclusive' && request.gpuMemoryMiB !== null) memory = request.gpuMemoryMiB;
    else if (gpuMemoryMiB !== undefined)
      memory =
        assignment.mode === 'exclusive'
          ? gpuMemoryMiB
          : Math.floor((request.gpuMilli * gpuMemoryMiB) / GPU_MILLI_PER_GPU);
    if (g.gpuMemoryMiB < memory)
      return { field: `${field}.gpuMemoryMiB`, expected: `at least ${memory}`, found: g.gpuMemoryMiB };
  }
  return null;
}

/** The milli-GPU a share of `gpuMilli` is counted for in `mode` (share-accounting.ts; timeslice by any ratio ≥ 1). */
function expectedAccounting(mode: EffectiveMode, gpuMilli: number): { min: number; max: number } {
  switch (mode) {
    case 'exclusive':
      return { min: GPU_MILLI_PER_GPU, max: GPU_MILLI_PER_GPU };
    case 'mps':
      return { min: gpuMilli, max: gpuMilli };
    case 'timeslice':
      return { min: 1, max: gpuMilli };
    case 'mig':
      return { min: 0, max: 0 };
  }
}

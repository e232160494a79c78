/**
 * Feasibility, allocation and release of a request on a node. `allocate` and `release` are the
 * only mutators of `NodeState`; they throw `InvariantViolation` rather than over-commit a GPU's
 * compute or memory, a node's CPU or its host memory.
 */
import { InvariantViolation } from '../model/errors.js';
import type { NodeState } from './node-state.js';
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { ResourceDemand } from './resource-demand.js';
import { NODE_CODES, status, WAIT_CODES, type Status } from '../model/status.js';

/**
 * Why a node cannot take a request, as the filters answer (status.ts): constant Statuses, so that
 * filtering every node allocates nothing; the figures are the request's and the node's.
 */
export const FIT_REFUSALS = {
  /** Less free host CPU than `cpuMilli`. */
  insufficientCpu: status(WAIT_CODES.hostCpu, false),
  /** Less free host memory than `hostMemoryMiB`. */
  insufficientHostMemory: status(WAIT_CODES.hostMemory, false),
  /** A GPU request on a node without GPUs. */
  noGpu: status(NODE_CODES.noGpu, true),
  /** The node's GPU model is not in `allowedGpuModels`. */
  gpuModelNotAllowed: status(NODE_CODES.gpuModelNotAllowed, true),
  /** Fewer than `gpuCount` GPUs with the free `gpuMilli` and `gpuMemoryMiB`. */
  insufficientGpu: status(WAIT_CODES.gpuCapacity, false),
} as const satisfies Readonly<Record<string, Status>>;

/** True when GPU `j` of `node` is not masked out and can take `request`'s per-GPU share (compute and memory). */
export function gpuCanHost(node: NodeState, j: number, request: ResourceDemand): boolean {
  if (node.gpuEligible[j] === 0) return false;
  if (node.gpuFreeMilli[j]! < request.gpuMilli) return false;
  if (request.gpuMemoryMiB === 0) return true;
  const freeMemory = node.gpuFreeMemoryMiB[j]!;
  return freeMemory >= 0 && freeMemory >= request.gpuMemoryMiB;
}

/** True when at least `request.gpuCount` GPUs of `node` can each take the per-GPU share (stops counting there). */
export function hasHostingGpus(node: NodeState, request: ResourceDemand): boolean {
  const needed = request.gpuCount;
  let n = 0;
  for (let j = 0; j < node.gpuFreeMilli.length && n < needed; j++) if (gpuCanHost(node, j, request)) n++;
  return n >= needed;
}

/** True when the node's GPU model is allowed by the request (empty list = any model). */
export function isGpuModelAllowed(node: NodeState, request: ResourceDemand): boolean {
  const allowed = request.allowedGpuModels;
  return allowed.length === 0 || (node.spec.gpuModel !== null && allowed.includes(node.spec.gpuModel));
}

/**
 * The node-resources-fit filter's test: whether the node's free host CPU and memory cover
 * `request` (`cpuMilli`, `hostMemoryMiB`).
 * @returns null when they do, else `insufficientCpu` (checked first) or `insufficientHostMemory`
 */
export function hostRefusal(node: NodeState, request: ResourceDemand): Status | null {
  if (request.cpuMilli > node.freeCpuMilli) return FIT_REFUSALS.insufficientCpu;
  if (request.hostMemoryMiB > node.freeHostMemoryMiB) return FIT_REFUSALS.insufficientHostMemory;
  return null;
}

/**
 * The gpu-fit filter's test: for a GPU request, the node's GPU model is allowed and `gpuCount`
 * distinct GPUs each have the per-GPU milli and memory free; a CPU-only request passes everywhere.
 * @returns null when it fits, else `noGpu`, `gpuModelNotAllowed` or `insufficientGpu` (in that order)
 */
export function gpuRefusal(node: NodeState, request: ResourceDemand): Status | null {
  if (request.gpuCount === 0) return null;
  if (node.spec.gpuCount === 0) return FIT_REFUSALS.noGpu;
  if (!isGpuModelAllowed(node, request)) return FIT_REFUSALS.gpuModelNotAllowed;
  if (!hasHostingGpus(node, request)) return FIT_REFUSALS.insufficientGpu;
  return null;
}

/**
 * Binds `request` to `node` on the given GPUs (distinct device indices, exactly `gpuCount` of them).
 * Mutates the node and bumps its version.
 * @throws InvariantViolation when anything would be over-committed or the GPU list is wrong
 */
export function allocate(node: NodeState, request: ResourceDemand, gpuIndices: readonly number[]): void {
  const problem = hostRefusal(node, request) ?? gpuRefusal(node, request);
  if (problem !== null) {
    throw new InvariantViolation(`allocate on ${node.spec.name}: ${problem}`);
  }
  checkGpuList(node, request, gpuIndices);
  for (const j of gpuIndices) {
    if (!gpuCanHost(node, j, request))
      throw new InvariantViolation(`allocate on ${node.spec.name}: GPU ${j} cannot host the request`);
  }
  node.freeCpuMilli -= request.cpuMilli;
  node.freeHostMemoryMiB -= request.hostMemoryMiB;
  for (const j of gpuIndices) {
    node.gpuFreeMilli[j]! -= request.gpuMilli;
    if (request.gpuMemoryMiB > 0) node.gpuFreeMemoryMiB[j]! -= request.gpuMemoryMiB;
  }
  node.podCount++;
  node.version++;
}

/**
 * Returns what `allocate(node, request, gpuIndices)` took.
 * @throws InvariantViolation when the release would exceed the node's capacity (a double release)
 */
export function release(node: NodeState, request: ResourceDemand, gpuIndices: readonly number[]): void {
  checkGpuList(node, request, gpuIndices);
  const spec = node.spec;
  if (
    node.freeCpuMilli + request.cpuMilli > spec.cpuMilli ||
    node.freeHostMemoryMiB + request.hostMemoryMiB > spec.hostMemoryMiB ||
    node.podCount === 0
  ) {
    throw new InvariantViolation(`release on ${spec.name}: more than was allocated`);
  }
  for (const j of gpuIndices) {
    if (node.gpuFreeMilli[j]! + request.gpuMilli > GPU_MILLI_PER_GPU)
      throw new InvariantViolation(`release on ${spec.name}: GPU ${j} over 1000 milli`);
    if (request.gpuMemoryMiB > 0) {
      const freeMemory = node.gpuFreeMemoryMiB[j]!;
      if (freeMemory < 0 || spec.gpuMemoryMiB === null || freeMemory + request.gpuMemoryMiB > spec.gpuMemoryMiB) {
        throw new InvariantViolation(`release on ${spec.name}: GPU ${j} gpuMemoryMiB over capacity`);
      }
    }
  }
  node.freeCpuMilli += request.cpuMilli;
  node.freeHostMemoryMiB += request.hostMemoryMiB;
  for (const j of gpuIndices) {
    node.gpuFreeMilli[j]! += request.gpuMilli;
    if (request.gpuMemoryMiB > 0) node.gpuFreeMemoryMiB[j]! += request.gpuMemoryMiB;
  }
  node.podCount--;
  node.version++;
}

function checkGpuList(node: NodeState, request: ResourceDemand, gpuIndices: readonly number[]): void {
  if (gpuIndices.length !== request.gpuCount) {
    throw new InvariantViolation(`${node.spec.name}: ${gpuIndices.length} GPUs given for gpuCount ${request.gpuCount}`);
  }
  for (let i = 0; i < gpuIndices.length; i++) {
    const j = gpuIndices[i]!;
    if (!Number.isInteger(j) || j < 0 || j >= node.gpuFreeMilli.length)
      throw new InvariantViolation(`${node.spec.name}: no GPU ${j}`);
    if (gpuIndices.indexOf(j) !== i) throw new InvariantViolation(`${node.spec.name}: GPU ${j} listed twice`);
  }
}

/**
 * Sets the free host CPU and memory of `node` (a scheduling unit) to those of the cluster node it
 * belongs to: the units of one cluster node (one per GPU model) share its host resources, so after
 * a placement on one of them the others are told what is left. Bumps `version` when they change.
 * @throws InvariantViolation when a value is negative or above the unit's capacity
 */
export function syncFreeHost(node: NodeState, freeCpuMilli: number, freeHostMemoryMiB: number): void {
  if (freeCpuMilli === node.freeCpuMilli && freeHostMemoryMiB === node.freeHostMemoryMiB) return;
  if (
    freeCpuMilli < 0 ||
    freeHostMemoryMiB < 0 ||
    freeCpuMilli > node.spec.cpuMilli ||
    freeHostMemoryMiB > node.spec.hostMemoryMiB
  ) {
    throw new InvariantViolation(
      `${node.spec.name}: free host ${freeCpuMilli} cpuMilli / ${freeHostMemoryMiB} MiB outside its capacity`,
    );
  }
  node.freeCpuMilli = freeCpuMilli;
  node.freeHostMemoryMiB = freeHostMemoryMiB;
  node.version++;
}

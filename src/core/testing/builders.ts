/**
 * Tiny builders for tests of the scheduler core (excluded from the build). Every builder returns a
 * plain value with sensible defaults; pass only the fields a test cares about. `aNode`, `aPod` and
 * `aCluster` build the framework's node states and demands (plugins, the cycle); `aGpuDevice`,
 * `aClusterNode`, `aJob` and `anExclusiveJob` build the values `schedule` takes.
 */
import { allocate } from '../framework/allocation.js';
import { createNodeStates, type NodeSpec, type NodeState } from '../framework/node-state.js';
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { ResourceDemand } from '../framework/resource-demand.js';
import { CycleState } from '../framework/cycle-state.js';
import type { CycleContext, SchedulingCluster } from '../framework/extension-points.js';
import { SeededRng, type Rng } from '../random/rng.js';
import type { ActiveJob, ClusterNode } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../model/request.js';

/** GPU model of `aNode()` when none is given (its memory is known: 32 GiB). */
export const DEFAULT_GPU_MODEL = 'V100M32';
/** GPU memory of `aNode()` when none is given, in MiB. */
export const DEFAULT_GPU_MEMORY_MIB = 32 * 1024;

let nodeCounter = 0;

/** Fields of `aNode`; every one optional. */
export interface NodeOverrides {
  name?: string;
  cpuMilli?: number;
  hostMemoryMiB?: number;
  gpuCount?: number;
  gpuModel?: string | null;
  gpuMemoryMiB?: number | null;
}

/**
 * A node spec: 64 vCPU, 256 GiB host memory, 2 × V100M32 (32 GiB each) unless overridden. A node
 * with `gpuCount: 0` gets model and GPU memory null unless given. Names are unique (`node-<n>`).
 */
export function aNode(overrides: NodeOverrides = {}): NodeSpec {
  const gpuCount = overrides.gpuCount ?? 2;
  const hasGpu = gpuCount > 0;
  return {
    name: overrides.name ?? `node-${nodeCounter++}`,
    cpuMilli: overrides.cpuMilli ?? 64000,
    hostMemoryMiB: overrides.hostMemoryMiB ?? 256 * 1024,
    gpuCount,
    gpuModel: overrides.gpuModel !== undefined ? overrides.gpuModel : hasGpu ? DEFAULT_GPU_MODEL : null,
    gpuMemoryMiB:
      overrides.gpuMemoryMiB !== undefined ? overrides.gpuMemoryMiB : hasGpu ? DEFAULT_GPU_MEMORY_MIB : null,
  };
}

/** Fields of `aPod`; every one optional. */
export interface PodOverrides {
  cpuMilli?: number;
  hostMemoryMiB?: number;
  gpuCount?: number;
  gpuMilli?: number;
  gpuMemoryMiB?: number;
  allowedGpuModels?: readonly string[];
}

/**
 * A request: 1 vCPU, 1 GiB host memory, one whole GPU, no GPU memory, any model. A pod with
 * `gpuCount: 0` gets `gpuMilli` 0 unless given.
 */
export function aPod(overrides: PodOverrides = {}): ResourceDemand {
  const gpuCount = overrides.gpuCount ?? 1;
  return {
    cpuMilli: overrides.cpuMilli ?? 1000,
    hostMemoryMiB: overrides.hostMemoryMiB ?? 1024,
    gpuCount,
    gpuMilli: overrides.gpuMilli ?? (gpuCount === 0 ? 0 : GPU_MILLI_PER_GPU),
    gpuMemoryMiB: overrides.gpuMemoryMiB ?? 0,
    allowedGpuModels: overrides.allowedGpuModels ?? [],
  };
}

/** A CPU-only request (`aPod` with no GPU). */
export function aCpuPod(cpuMilli = 1000, hostMemoryMiB = 1024): ResourceDemand {
  return aPod({ cpuMilli, hostMemoryMiB, gpuCount: 0, gpuMilli: 0 });
}

/** A cluster of live node states with tie-break ranks (default: rank = index). */
export interface TestCluster extends SchedulingCluster {
  readonly nodes: NodeState[];
  readonly nodeRank: Int32Array;
}

/**
 * Live states of `specs` with their tie-break ranks.
 * @param ranks rank per node index (a permutation of 0..n-1); default rank = index
 */
export function aCluster(specs: readonly NodeSpec[], ranks?: readonly number[]): TestCluster {
  const nodes = createNodeStates(specs);
  const nodeRank = ranks === undefined ? Int32Array.from(nodes, (_n, i) => i) : Int32Array.from(ranks);
  if (nodeRank.length !== nodes.length) throw new Error(`aCluster: ${nodeRank.length} ranks for ${nodes.length} nodes`);
  return { nodes, nodeRank };
}

/**
 * Brings each GPU of `node` to the given free milli by allocating CPU-less, memory-less filler pods
 * through `allocate` (so the node's version and pod count change as in real use).
 * @param freeMilli free milli-GPU wanted per device index (1000 leaves the GPU untouched)
 */
export function occupyGpus(node: NodeState, freeMilli: readonly number[]): void {
  if (freeMilli.length !== node.gpuFreeMilli.length)
    throw new Error(`occupyGpus: ${freeMilli.length} values for ${node.gpuFreeMilli.length} GPUs`);
  freeMilli.forEach((free, j) => {
    const used = node.gpuFreeMilli[j]! - free;
    if (used === 0) return;
    if (used < 0)
      throw new Error(`occupyGpus: GPU ${j} has only ${node.gpuFreeMilli[j]} free, cannot raise it to ${free}`);
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: used }), [j]);
  });
}

/** A cycle context for calling one plugin directly. */
export function aCycleContext(
  cluster: SchedulingCluster,
  pod: ResourceDemand,
  rng: Rng = new SeededRng(42),
  shapeId = 0,
): CycleContext {
  return { cluster, pod, shapeId, state: new CycleState(), rng };
}

/** Fields of `aGpuDevice`; every one optional. */
export type GpuDeviceOverrides = Partial<GpuDevice>;

/** A schedulable A100-80GB GPU, not in MIG mode, with UUID `GPU-<index>`, unless overridden. */
export function aGpuDevice(index: number, overrides: GpuDeviceOverrides = {}): GpuDevice {
  return {
    index,
    uuid: `GPU-${index}`,
    model: 'A100-80GB',
    gpuMemoryMiB: 81920,
    migEnabled: false,
    schedulable: true,
    ...overrides,
  };
}

/** A snapshot node: 64 vCPU and 256 GiB host memory unless overridden. */
export function aClusterNode(
  name: string,
  gpus: readonly GpuDevice[],
  overrides: Partial<ClusterNode> = {},
): ClusterNode {
  return { name, hostCpuMilli: 64000, hostMemoryMiB: 256 * 1024, gpus, ...overrides };
}

/** Fields of `aJob`; every one optional (`gpu` is merged into the default request). */
export type JobOverrides = Partial<Omit<JobRequest, 'gpu'>> & { readonly gpu?: Partial<GpuRequest> };

/**
 * A pending job of tenant `team`, priority 500, submitted at `1000 + id` ms, 1 vCPU and 1 GiB host
 * memory, asking for one whole GPU (`exclusive`, memory in proportion), unless overridden.
 */
export function aJob(id: number, overrides: JobOverrides = {}): JobRequest {
  const { gpu, ...rest } = overrides;
  return {
    id,
    tenant: 'team',
    priority: 500,
    submittedAtMs: 1000 + id,
    cpuMilli: 1000,
    hostMemoryMiB: 1024,
    ...rest,
    gpu: { gpuCount: 1, gpuMilli: GPU_MILLI_PER_GPU, gpuMemoryMiB: null, mode: 'exclusive', ...gpu },
  };
}

/**
 * A job that holds whole GPUs `gpuIndices` of `node` exclusively (UUIDs `GPU-<index>`, 81920 MiB
 * each), started at `startedAtMs`, preemptible unless overridden.
 */
export function anExclusiveJob(
  request: JobRequest,
  node: string,
  gpuIndices: readonly number[],
  overrides: Partial<Omit<ActiveJob, 'request' | 'assignment'>> = {},
): ActiveJob {
  return {
    request,
    assignment: {
      jobId: request.id,
      node,
      cpuMilli: request.cpuMilli,
      hostMemoryMiB: request.hostMemoryMiB,
      placement: {
        mode: 'exclusive',
        gpus: gpuIndices.map((index) => ({
          index,
          uuid: `GPU-${index}`,
          gpuMilli: GPU_MILLI_PER_GPU,
          accountedGpuMilli: GPU_MILLI_PER_GPU,
          gpuMemoryMiB: 81920,
          mig: null,
        })),
      },
    },
    preemptible: true,
    startedAtMs: 0,
    preemptionCount: 0,
    stopping: false,
    ...overrides,
  };
}

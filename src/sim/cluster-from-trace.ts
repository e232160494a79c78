/**
 * Converts trace rows into the core's domain model: a trace node is a `ClusterNode` whose GPUs are
 * all of its model, a trace pod a `JobRequest` (sharing a GPU's compute by accounting, as the FGD
 * paper's simulator does: mode `mps`, no GPU memory named), or the framework cycle's node spec
 * and demand (`nodeSpecOf`, `podRequestOf`: the timeline's jobs keep their demand in that form).
 */
import {
  findGpuModel,
  type ClusterNode,
  type GpuDevice,
  type JobRequest,
  type NodeSpec,
  type ResourceDemand,
  type TaskShape,
} from '../core/index.js';
import type { TraceNode, TracePod } from './traces/trace-types.js';

/** GPU memory of a trace GPU model, MiB: the catalog's, 0 for undisclosed codes (unknown). */
function traceGpuMemoryMiB(model: string | null): number {
  return model === null ? 0 : (findGpuModel(model)?.gpuMemoryMiB ?? 0);
}

/** The node of a trace row (`n`: its position in the node list, for stable GPU UUIDs). */
export function clusterNodeOf(node: TraceNode, n: number): ClusterNode {
  const gpus: GpuDevice[] =
    node.gpuModel === null
      ? []
      : Array.from({ length: node.gpuCount }, (_, index) => ({
          index,
          uuid: `GPU-trace-${n}-${index}`,
          model: node.gpuModel!,
          gpuMemoryMiB: traceGpuMemoryMiB(node.gpuModel),
          migEnabled: false,
          schedulable: true,
        }));
  return { name: node.name, hostCpuMilli: node.cpuMilli, hostMemoryMiB: node.hostMemoryMiB, gpus };
}

/**
 * The request of a trace pod, with id `id`. The trace names no GPU memory, so `gpuMemoryMiB` is 0;
 * every pod shares by accounting (`mps`), and a whole-GPU pod takes all 1000 milli-GPU of each GPU.
 */
export function jobRequestOf(pod: TracePod, id: number): JobRequest {
  return {
    id,
    tenant: 'trace',
    priority: 0,
    submittedAtMs: 0,
    cpuMilli: pod.cpuMilli,
    hostMemoryMiB: pod.hostMemoryMiB,
    gpu: {
      gpuCount: pod.gpuCount,
      gpuMilli: pod.gpuCount === 0 ? 0 : pod.gpuMilli,
      gpuMemoryMiB: 0,
      mode: 'mps',
      allowedGpuModels: pod.gpuCount === 0 ? [] : pod.allowedGpuModels,
    },
  };
}

/** Node spec of a trace node for the framework's cycle (GPU memory null for undisclosed codes). */
export function nodeSpecOf(node: TraceNode): NodeSpec {
  const memory = traceGpuMemoryMiB(node.gpuModel);
  return {
    name: node.name,
    cpuMilli: node.cpuMilli,
    hostMemoryMiB: node.hostMemoryMiB,
    gpuCount: node.gpuCount,
    gpuModel: node.gpuModel,
    gpuMemoryMiB: memory > 0 ? memory : null,
  };
}

/** Resource demand of a trace pod for the framework's cycle (the same numbers `jobRequestOf` places). */
export function podRequestOf(pod: TracePod): ResourceDemand {
  return {
    cpuMilli: pod.cpuMilli,
    hostMemoryMiB: pod.hostMemoryMiB,
    gpuCount: pod.gpuCount,
    gpuMilli: pod.gpuCount === 0 ? 0 : pod.gpuMilli,
    gpuMemoryMiB: 0,
    allowedGpuModels: pod.gpuCount === 0 ? [] : pod.allowedGpuModels,
  };
}

/** Task shape of a trace pod for the FGD target workload (type key uses gpu_spec as written). */
export function taskShapeOf(pod: TracePod): TaskShape {
  return podRequestOf(pod);
}

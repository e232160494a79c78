/**
 * Converts trace rows into the core's node specs and requests.
 */
import { findGpuModel, type NodeSpec, type ResourceDemand, type TaskShape } from '../core/index.js';
import type { TraceNode, TracePod } from './traces/trace-types.js';

/** Node spec of a trace node; GPU memory from the model catalog (null for undisclosed codes). */
export function nodeSpecOf(node: TraceNode): NodeSpec {
  return {
    name: node.name,
    cpuMilli: node.cpuMilli,
    hostMemoryMiB: node.hostMemoryMiB,
    gpuCount: node.gpuCount,
    gpuModel: node.gpuModel,
    gpuMemoryMiB: node.gpuModel === null ? null : (findGpuModel(node.gpuModel)?.gpuMemoryMiB ?? null),
  };
}

/** Request of a trace pod. The trace names no GPU memory, so `gpuMemoryMiB` is 0. */
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

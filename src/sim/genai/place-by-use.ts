/**
 * Places each pod once, through the core: one `SchedulingSession` over a cluster of single-GPU
 * nodes of one model (as many as pods, so that each pod can have its own), the pods as MPS jobs
 * asking their use request (pod-request.ts), one pass per pod in decreasing order of memory
 * (best fit decreasing), with the profile of use-profile.ts.
 */
import { SchedulingSession, SeededRng, type ClusterNode, type JobRequest } from '../../core/index.js';
import { GpuTimeline } from './gpu-timeline.js';
import type { PodLoad } from './pod-load.js';
import type { UseRequest } from './pod-request.js';
import type { TimeWindow } from './time-windows.js';
import { useProfile, type OverloadContext } from './use-profile.js';

/** A pod to place: its load (for the rule) and its request. */
export interface PodToPlace {
  readonly load: PodLoad;
  readonly request: UseRequest;
}

/** A GPU model as the placement needs it. */
export interface PackGpuModel {
  readonly name: string;
  readonly gpuMemoryMiB: number;
}

/** Where each pod went. */
export interface UsePlacement {
  /** Per GPU used (in the order they were first used), the indices of its pods in the input. */
  readonly gpus: readonly (readonly number[])[];
}

/** The order of placement: decreasing memory, then decreasing milli-GPU, then pod name. */
function placementOrder(pods: readonly PodToPlace[]): number[] {
  return pods
    .map((_, i) => i)
    .sort((a, b) => {
      const [p, q] = [pods[a]!, pods[b]!];
      const byName = p.load.pod < q.load.pod ? -1 : p.load.pod > q.load.pod ? 1 : 0;
      return q.request.gpuMemoryMiB - p.request.gpuMemoryMiB || q.request.gpuMilli - p.request.gpuMilli || byName;
    });
}

/**
 * Places `pods` on GPUs of `model`, keeping the interference rule over `fit` (at most
 * `maxOverloadPct` % of a GPU's occupied minutes overloaded). A request over the GPU's memory is
 * cut to the GPU's memory: such a pod gets a GPU of its own.
 * @throws InvariantViolation (from the core) only on a broken invariant; RangeError if a pod fits no
 *   GPU, which cannot happen with a GPU per pod
 */
export function placeByUse(
  pods: readonly PodToPlace[],
  model: PackGpuModel,
  fit: TimeWindow,
  maxOverloadPct: number,
): UsePlacement {
  const nodes: ClusterNode[] = pods.map((_, n) => ({
    name: `gpu-${n}`,
    hostCpuMilli: 0,
    hostMemoryMiB: 0,
    gpus: [
      {
        index: 0,
        uuid: `GPU-pack-${n}`,
        model: model.name,
        gpuMemoryMiB: model.gpuMemoryMiB,
        migEnabled: false,
        schedulable: true,
      },
    ],
  }));
  const context: OverloadContext = {
    timelines: pods.map(() => new GpuTimeline(fit)),
    current: null,
    maxOverloadPct,
  };
  const session = new SchedulingSession({ nodes, active: [] }, new SeededRng(1), {
    policy: 'best-fit',
    adjustProfile: (base) => useProfile(base, context),
  });
  const podsOfNode = new Map<number, number[]>();
  for (const [rank, i] of placementOrder(pods).entries()) {
    const { load, request } = pods[i]!;
    const job: JobRequest = {
      id: i + 1,
      tenant: 'genai',
      priority: 0,
      submittedAtMs: rank,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: {
        gpuCount: 1,
        gpuMilli: request.gpuMilli,
        gpuMemoryMiB: Math.min(request.gpuMemoryMiB, model.gpuMemoryMiB),
        mode: 'mps',
      },
    };
    context.current = load;
    const placed = session.schedule([job], { nowMs: 0 }).placements[0];
    if (placed === undefined) throw new RangeError(`pod ${load.pod} fits no GPU of ${model.name}`);
    const node = session.state.indexOf(placed.node);
    context.timelines[node]!.add(load);
    podsOfNode.set(node, [...(podsOfNode.get(node) ?? []), i]);
  }
  return { gpus: [...podsOfNode.values()] };
}

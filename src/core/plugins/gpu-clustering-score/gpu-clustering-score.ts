/**
 * Score of the GpuClustering baseline (docs/simulator.md "Policies"): nodes are tiered by the set of GPU-task
 * kinds already on them ("share", or "k-GPU" for whole-GPU tasks). With b = ⌊25·(8000 − G_n)/8000⌋:
 * only the pod's kind → 75 + b; the pod's kind and others → 50 + b; no GPU task → 25 + b; other
 * kinds only → b. CPU-only pods score 0 everywhere (first fit in rank order).
 */
import type { NodeState } from '../../framework/node-state.js';
import { isSharingRequest, type ResourceDemand } from '../../framework/resource-demand.js';
import type { ReservePlugin, ScorePlugin } from '../../framework/extension-points.js';
import { MAX_NODE_GPU_MILLI } from '../dot-product-score/dot-product-score.js';

/** Plugin name. */
export const NAME = 'gpu-clustering-score';

/** The kind of a GPU pod: 'share' or '<k>-gpu'; null for a CPU-only pod. */
export function gpuTaskKind(pod: ResourceDemand): string | null {
  if (pod.gpuCount === 0) return null;
  return isSharingRequest(pod) ? 'share' : `${pod.gpuCount}-gpu`;
}

/** Creates the plugin; it is both a score and a reserve plugin (it tracks each node's kinds). */
export function createGpuClusteringScore(nodeCount: number): ScorePlugin & ReservePlugin {
  const kindsOnNode: Map<string, number>[] = Array.from({ length: nodeCount }, () => new Map());
  const track = (pod: ResourceDemand, node: NodeState, delta: number): void => {
    const kind = gpuTaskKind(pod);
    if (kind === null) return;
    const kinds = kindsOnNode[node.index]!;
    const count = (kinds.get(kind) ?? 0) + delta;
    if (count === 0) kinds.delete(kind);
    else kinds.set(kind, count);
  };
  return {
    name: NAME,
    cacheable: true,
    score({ pod }, node) {
      const kind = gpuTaskKind(pod);
      if (kind === null) return 0;
      const b = Math.floor((25 * (MAX_NODE_GPU_MILLI - node.idleGpuMilli())) / MAX_NODE_GPU_MILLI);
      const kinds = kindsOnNode[node.index]!;
      if (kinds.size === 0) return 25 + b;
      if (!kinds.has(kind)) return b;
      return kinds.size === 1 ? 75 + b : 50 + b;
    },
    reserve: (pod, node) => track(pod, node, +1),
    unreserve: (pod, node) => track(pod, node, -1),
  };
}

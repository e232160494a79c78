/**
 * The workload of the placement comparison (docs/kubernetes/dra-placement.md): a fixed fraction of
 * the shipped Alibaba trace (data/alibaba-gpu-v2023), the same nodes and the same stream of GPU
 * pods for the gpushare extender and for DRA's stock allocator. Pure apart from reading the two
 * CSV files.
 *
 * Sampling: every `nodeStride`-th row of the node list (the list is grouped by model, so a stride
 * keeps the mix of models and GPU counts) and every `podStride`-th GPU pod of a pod list in
 * creation order (CPU-only pods are left out: neither placement decides anything for them). With
 * strides 24 and 20 that is 51 nodes with 250 GPUs and 354 pods: from `default` asking for 301.68
 * GPUs (121 % of the GPUs; 145 pods share a GPU), from `gpushare40` for 276.93 (111 %; 198 share),
 * so the end state shows which placement leaves fewer pods out.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findGpuModel } from '../core/index.js';
import { parseNodeListCsv, parsePodListCsv } from '../sim/traces/alibaba-csv.js';

const shipped = (name: string): string =>
  fileURLToPath(new URL(`../../data/alibaba-gpu-v2023/${name}`, import.meta.url));

/** The trace's node list as shipped. */
export const PLACEMENT_NODE_FILE = shipped('openb_node_list_gpu_node.csv');

/**
 * The pod lists a comparison can take: the production sample (`default`) and its variant in which
 * GPU-sharing pods ask for 40 % of the GPUs (`gpushare40`).
 */
export const PLACEMENT_POD_FILES = {
  default: shipped('openb_pod_list_default.csv'),
  gpushare40: shipped('openb_pod_list_gpushare40.csv'),
} as const;

/** A pod list's name. */
export type PlacementPodList = keyof typeof PLACEMENT_POD_FILES;

/**
 * GPU memory given to the trace's undisclosed model codes (G1, G2, G3), MiB. Neither placement is
 * asked for GPU memory (the trace states none), so the figure only has to be positive.
 */
export const UNDISCLOSED_GPU_MEMORY_MIB = 32_768;

/** A node of the comparison: host resources and its GPUs (all of one model). */
export interface PlacementNode {
  /** Kubernetes node name, `trace-<row>` with the trace row (0-based, 4 digits). */
  readonly name: string;
  /** Allocatable CPU in milli-cores. */
  readonly cpuMilli: number;
  /** Allocatable host memory in MiB. */
  readonly hostMemoryMiB: number;
  readonly gpuCount: number;
  /** Trace model code, e.g. `T4`, `G2`. */
  readonly gpuModel: string;
  /** Device memory per GPU, MiB (the catalog's, or {@link UNDISCLOSED_GPU_MEMORY_MIB}). */
  readonly gpuMemoryMiB: number;
}

/** A pod of the stream, in arrival order. */
export interface PlacementPod {
  /** Kubernetes pod name, `p-<arrival>` (0-based, 3 digits). */
  readonly name: string;
  /** The trace pod it comes from. */
  readonly traceName: string;
  /** CPU request in milli-cores. */
  readonly cpuMilli: number;
  /** Host memory request in MiB. */
  readonly hostMemoryMiB: number;
  /** GPUs, >= 1. */
  readonly gpuCount: number;
  /** Share of each GPU in milli-GPU, 1..1000 (1000: whole GPUs). */
  readonly gpuMilli: number;
  /** Allowed models (empty: any). */
  readonly allowedGpuModels: readonly string[];
}

/** Which pod list and how much of the trace to take. */
export interface PlacementSampling {
  readonly podList: PlacementPodList;
  /** Take every n-th node row (>= 1). */
  readonly nodeStride: number;
  /** Take every n-th GPU pod (>= 1). */
  readonly podStride: number;
}

/** The sampling of the published comparison. */
export const DEFAULT_PLACEMENT_SAMPLING: PlacementSampling = { podList: 'default', nodeStride: 24, podStride: 20 };

/** The nodes and the pod stream. */
export interface PlacementWorkload {
  readonly nodes: readonly PlacementNode[];
  readonly pods: readonly PlacementPod[];
  readonly sampling: PlacementSampling;
}

function checkStride(field: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be an integer >= 1, got ${value}`);
}

/**
 * Samples the shipped trace.
 * @throws RangeError naming the field when a stride is not an integer >= 1; TraceFormatError for a
 *   malformed file
 */
export function placementWorkload(
  sampling: PlacementSampling = DEFAULT_PLACEMENT_SAMPLING,
  files: { readonly nodes: string; readonly pods: string } = {
    nodes: PLACEMENT_NODE_FILE,
    pods: PLACEMENT_POD_FILES[sampling.podList],
  },
): PlacementWorkload {
  checkStride('nodeStride', sampling.nodeStride);
  checkStride('podStride', sampling.podStride);
  const traceNodes = parseNodeListCsv(readFileSync(files.nodes, 'utf8'), files.nodes);
  const nodes: PlacementNode[] = [];
  traceNodes.forEach((n, row) => {
    if (row % sampling.nodeStride !== 0 || n.gpuModel === null || n.gpuCount === 0) return;
    nodes.push({
      name: `trace-${String(row).padStart(4, '0')}`,
      cpuMilli: n.cpuMilli,
      hostMemoryMiB: n.hostMemoryMiB,
      gpuCount: n.gpuCount,
      gpuModel: n.gpuModel,
      gpuMemoryMiB: findGpuModel(n.gpuModel)?.gpuMemoryMiB ?? UNDISCLOSED_GPU_MEMORY_MIB,
    });
  });
  const gpuPods = parsePodListCsv(readFileSync(files.pods, 'utf8'), files.pods)
    .filter((p) => p.gpuCount > 0)
    .map((p, order) => ({ p, order }))
    .sort((a, b) => (a.p.creationTimeSeconds ?? 0) - (b.p.creationTimeSeconds ?? 0) || a.order - b.order)
    .map(({ p }) => p);
  const pods = gpuPods
    .filter((_, i) => i % sampling.podStride === 0)
    .map((p, i): PlacementPod => ({
      name: `p-${String(i).padStart(3, '0')}`,
      traceName: p.name,
      cpuMilli: p.cpuMilli,
      hostMemoryMiB: p.hostMemoryMiB,
      gpuCount: p.gpuCount,
      gpuMilli: p.gpuMilli,
      allowedGpuModels: p.allowedGpuModels,
    }));
  return { nodes, pods, sampling };
}

/** GPUs of the nodes. */
export function totalGpus(nodes: readonly PlacementNode[]): number {
  return nodes.reduce((sum, n) => sum + n.gpuCount, 0);
}

/** GPU demand of the pods in milli-GPU (count × share). */
export function demandGpuMilli(pods: readonly PlacementPod[]): number {
  return pods.reduce((sum, p) => sum + p.gpuCount * p.gpuMilli, 0);
}

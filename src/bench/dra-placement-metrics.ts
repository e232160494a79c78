/**
 * The figures of one placement of the comparison (docs/kubernetes/dra-placement.md), from the
 * shares it gave: GPUs used, milli-GPU left unallocated on them and on all GPUs, pods that never
 * fit, pods bound per second, and the GPUs it over-committed (which must be none). Pure.
 *
 * Where the shares come from: for the extender, each bound pod's `gpushare.io/assignment`
 * (`accountedGpuMilli` per GPU: 1000 for a whole GPU); for DRA, each allocated claim's
 * `status.allocation.devices.results[]` (a `gpu-<i>-shared` device's `consumedCapacity.gpuMilli`,
 * 1000 for a whole `gpu-<i>` device).
 */
import type { PlacementNode, PlacementPod } from './dra-placement-workload.js';

/** One GPU share a pod was given. */
export interface GpuShare {
  readonly pod: string;
  readonly node: string;
  /** nvidia-smi index of the GPU on `node`. */
  readonly gpuIndex: number;
  /** milli-GPU counted against the GPU's 1000. */
  readonly gpuMilli: number;
}

/** What one placement did with the stream. */
export interface PlacementOutcome {
  /** Pods created. */
  readonly pods: number;
  /** Pods bound to a node at the end. */
  readonly boundPods: number;
  /** Seconds from the first create to the last bind seen. */
  readonly seconds: number;
  readonly shares: readonly GpuShare[];
  /** The pods never bound, with the scheduler's message (PodScheduled condition). */
  readonly unbound: readonly { readonly pod: string; readonly message: string }[];
}

/** A GPU given more than 1000 milli-GPU. */
export interface OvercommittedGpu {
  readonly node: string;
  readonly gpuIndex: number;
  readonly gpuMilli: number;
  readonly pods: readonly string[];
}

/** The figures of one placement. */
export interface PlacementFigures {
  readonly pods: number;
  readonly boundPods: number;
  /** Pods never bound (the scheduler reported them unschedulable). */
  readonly podsNeverFit: number;
  /** GPUs with at least one pod. */
  readonly gpusUsed: number;
  readonly totalGpus: number;
  /** milli-GPU given to pods, all GPUs together. */
  readonly allocatedGpuMilli: number;
  /** Unallocated milli-GPU of the used GPUs ÷ their 1000 each, percent. */
  readonly unallocatedOfUsedPct: number;
  /** Unallocated milli-GPU of all GPUs ÷ their 1000 each, percent. */
  readonly unallocatedOfAllPct: number;
  readonly seconds: number;
  /** Bound pods ÷ seconds from the first create to the last bind. */
  readonly bindsPerSecond: number;
  readonly overcommitted: readonly OvercommittedGpu[];
  /** Where the unallocated milli-GPU was left (see {@link freeGpuMilliByHost}). */
  readonly freeGpuMilli: FreeGpuMilli;
}

/**
 * The unallocated milli-GPU at the end, split by the node's host room: on nodes whose free CPU and
 * memory would still take some pod that never fit (so its GPU pieces were too small: GPU
 * fragmentation), and on nodes whose free CPU or memory takes none of them (the GPUs are stranded
 * behind the host resources).
 */
export interface FreeGpuMilli {
  readonly whereHostFits: number;
  readonly whereHostFull: number;
}

/** milli-GPU of one whole GPU. */
const GPU_MILLI = 1000;

/**
 * The GPUs over 1000 milli-GPU, in node and index order.
 */
export function overcommittedGpus(shares: readonly GpuShare[]): OvercommittedGpu[] {
  const perGpu = new Map<string, { node: string; gpuIndex: number; gpuMilli: number; pods: string[] }>();
  for (const s of shares) {
    const key = `${s.node}/${s.gpuIndex}`;
    const g = perGpu.get(key) ?? { node: s.node, gpuIndex: s.gpuIndex, gpuMilli: 0, pods: [] };
    g.gpuMilli += s.gpuMilli;
    g.pods.push(s.pod);
    perGpu.set(key, g);
  }
  return [...perGpu.values()]
    .filter((g) => g.gpuMilli > GPU_MILLI)
    .sort((a, b) => a.node.localeCompare(b.node) || a.gpuIndex - b.gpuIndex);
}

/** The unallocated milli-GPU of `outcome` on `nodes`, split by host room ({@link FreeGpuMilli}). */
export function freeGpuMilliByHost(
  nodes: readonly PlacementNode[],
  pods: readonly PlacementPod[],
  outcome: PlacementOutcome,
): FreeGpuMilli {
  const byName = new Map(pods.map((p) => [p.name, p]));
  const nodeOf = new Map(outcome.shares.map((s) => [s.pod, s.node]));
  const used = new Map<string, { cpuMilli: number; hostMemoryMiB: number; gpuMilli: number }>();
  for (const n of nodes) used.set(n.name, { cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 0 });
  for (const s of outcome.shares) {
    const u = used.get(s.node);
    if (u !== undefined) u.gpuMilli += s.gpuMilli;
  }
  for (const [pod, node] of nodeOf) {
    const u = used.get(node);
    const p = byName.get(pod);
    if (u === undefined || p === undefined) continue;
    u.cpuMilli += p.cpuMilli;
    u.hostMemoryMiB += p.hostMemoryMiB;
  }
  const waiting = outcome.unbound.flatMap((u) => byName.get(u.pod) ?? []);
  let whereHostFits = 0;
  let whereHostFull = 0;
  for (const n of nodes) {
    const u = used.get(n.name)!;
    const free = n.gpuCount * GPU_MILLI - u.gpuMilli;
    const fits = waiting.some(
      (p) => p.cpuMilli <= n.cpuMilli - u.cpuMilli && p.hostMemoryMiB <= n.hostMemoryMiB - u.hostMemoryMiB,
    );
    if (fits) whereHostFits += free;
    else whereHostFull += free;
  }
  return { whereHostFits, whereHostFull };
}

/**
 * The figures of `outcome` on `nodes` for the stream `pods`.
 * @throws RangeError when the nodes have no GPU
 */
export function placementFigures(
  outcome: PlacementOutcome,
  nodes: readonly PlacementNode[],
  pods: readonly PlacementPod[],
): PlacementFigures {
  const totalGpus = nodes.reduce((sum, n) => sum + n.gpuCount, 0);
  if (totalGpus < 1) throw new RangeError(`nodes must have GPUs, got ${totalGpus}`);
  const used = new Set(outcome.shares.map((s) => `${s.node}/${s.gpuIndex}`));
  const allocated = outcome.shares.reduce((sum, s) => sum + s.gpuMilli, 0);
  const percentFree = (gpus: number): number =>
    gpus === 0 ? 0 : (100 * (gpus * GPU_MILLI - allocated)) / (gpus * GPU_MILLI);
  return {
    pods: outcome.pods,
    boundPods: outcome.boundPods,
    podsNeverFit: outcome.pods - outcome.boundPods,
    gpusUsed: used.size,
    totalGpus,
    allocatedGpuMilli: allocated,
    unallocatedOfUsedPct: percentFree(used.size),
    unallocatedOfAllPct: percentFree(totalGpus),
    seconds: outcome.seconds,
    bindsPerSecond: outcome.seconds > 0 ? outcome.boundPods / outcome.seconds : 0,
    overcommitted: overcommittedGpus(outcome.shares),
    freeGpuMilli: freeGpuMilliByHost(nodes, pods, outcome),
  };
}

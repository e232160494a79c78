/**
 * Where the GPUs of the pool replay's nodes are at one instant (docs/simulator.md "Pool replay",
 * Figures: where the GPU-hours went): held by jobs, the slivers beside shares, idle GPUs beside jobs,
 * GPUs of empty nodes and of cordoned ones. Pure.
 */
import type { PlacedGpu } from '../../core/index.js';

/** Where the GPUs of a pool's ready and cordoned nodes are at one instant, in GPUs (shares as fractions). */
export interface GpuUseNow {
  /** Held by running jobs (`reservedMilli` / 1000, at most one per GPU). */
  readonly held: number;
  /** The unheld rest of the GPUs that hold some job: the slivers beside shares. */
  readonly slivers: number;
  /** GPUs without a job on schedulable nodes that hold a job. */
  readonly idleOnBusyNodes: number;
  /** GPUs of schedulable nodes without a job (waiting out the scale-down delay, or for work). */
  readonly emptyNodes: number;
  /** The unheld GPUs (whole or part) of cordoned nodes. */
  readonly cordoned: number;
}

/**
 * milli-GPU a placed GPU of a job holds: what it is accounted (1000 exclusive, the share of an MPS
 * or time-sliced job), for a MIG instance round(1000 × its compute slices ÷ the GPU's slices).
 */
export function heldGpuMilli(gpu: PlacedGpu, slicesPerGpu: number): number {
  return gpu.mig === null ? gpu.accountedGpuMilli : Math.round((1000 * gpu.mig.computeSlices) / slicesPerGpu);
}

/** One node as gpuUseOf reads it: its GPU count, whether it is cordoned, its jobs' placed GPUs. */
export interface NodeGpus {
  readonly gpuCount: number;
  readonly cordoned: boolean;
  readonly gpus: readonly PlacedGpu[];
  /** Compute slices of a MIG GPU of its model (7, or 4 on an A30). */
  readonly slicesPerGpu: number;
}

/** Where the GPUs of `nodes` are (see GpuUseNow). */
export function gpuUseOf(nodes: readonly NodeGpus[]): GpuUseNow {
  let held = 0;
  let slivers = 0;
  let idleOnBusyNodes = 0;
  let emptyNodes = 0;
  let cordoned = 0;
  for (const node of nodes) {
    const milliByGpu = new Map<number, number>();
    for (const g of node.gpus)
      milliByGpu.set(g.index, (milliByGpu.get(g.index) ?? 0) + heldGpuMilli(g, node.slicesPerGpu));
    let nodeHeld = 0;
    for (const milli of milliByGpu.values()) nodeHeld += Math.min(1000, milli) / 1000;
    held += nodeHeld;
    if (node.cordoned) cordoned += node.gpuCount - nodeHeld;
    else if (milliByGpu.size === 0) emptyNodes += node.gpuCount;
    else {
      slivers += milliByGpu.size - nodeHeld;
      idleOnBusyNodes += node.gpuCount - milliByGpu.size;
    }
  }
  return { held, slivers, idleOnBusyNodes, emptyNodes, cordoned };
}

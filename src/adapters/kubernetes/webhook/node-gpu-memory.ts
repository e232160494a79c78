/**
 * The NodeGpuMemory port: the largest GPU memory of any gpushare node, the webhook's bound on a
 * request's memory per GPU (a request above it fits no node). The node agent publishes each node's
 * value as the label `gpushare.io/gpu-memory-mib` (schema/names.ts NODE_LABELS);
 * node-gpu-memory-watch.ts keeps it from the API server, {@link fixedNodeGpuMemory} states it.
 */

import type { CapacityCheck } from '../../../core/index.js';

/** Where the webhook reads the bound from. */
export interface NodeGpuMemory {
  /** The largest GPU memory of any gpushare node, MiB; null when unknown (no such node seen yet): no check. */
  maxGpuMemoryMiB(): number | null;
  /**
   * The capacity of the gpushare nodes with an inventory (the core's `CapacityCheck`); null when none
   * is known. Absent for a fixed bound.
   */
  capacity?(): CapacityCheck | null;
}

/** A bound given by the operator (`--max-gpu-memory-mib`), without the API server. */
export function fixedNodeGpuMemory(gpuMemoryMiB: number): NodeGpuMemory {
  return { maxGpuMemoryMiB: () => gpuMemoryMiB };
}

/**
 * The value of a node's `gpushare.io/gpu-memory-mib` label: a positive integer of MiB, else null
 * (absent or malformed: the node does not count).
 */
export function nodeLabelGpuMemoryMiB(value: string | undefined): number | null {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) return null;
  return Number(value);
}

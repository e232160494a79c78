/**
 * The node agent's inventory of a node's GPUs, published as the JSON value of the node annotation
 * `gpushare.io/gpus` (names.ts), and its reading as the scheduler core's `ClusterNode`. Host CPU and
 * memory are the kube-scheduler's business: the node is given them without limit.
 */
import { z } from 'zod';
import type { ClusterNode, GpuDevice } from '../../../core/index.js';
import { parseJsonAnnotation } from './json-annotation.js';
import { NODE_ANNOTATIONS, SCHEMA_VERSION } from './names.js';

/** A MIG instance that exists on a GPU (the inventory's, and the one a pod's assignment names). */
export const migInstanceSchema = z.object({
  /** MIG device UUID (`MIG-…`). */
  uuid: z.string().min(1),
  profileId: z.number().int().nonnegative(),
  profileName: z.string().min(1),
  start: z.number().int().nonnegative(),
  size: z.number().int().positive(),
  computeSlices: z.number().int().positive(),
});

/** GPU indices a node may use (the core numbers a node's GPUs below 4096). */
const MAX_GPU_INDEX = 4095;

const gpuSchema = z.object({
  index: z.number().int().nonnegative().max(MAX_GPU_INDEX),
  uuid: z.string().min(1).max(128),
  model: z.string().min(1).max(128),
  gpuMemoryMiB: z.number().int().positive(),
  healthy: z.boolean(),
  migEnabled: z.boolean(),
  migInstances: z.array(migInstanceSchema).default([]),
});

const inventorySchema = z.object({
  schema: z.literal(SCHEMA_VERSION),
  gpus: z.array(gpuSchema),
});

/** One GPU of a node as the node agent publishes it. */
export type InventoryGpu = z.infer<typeof gpuSchema>;
/** A MIG instance that exists on a GPU, with its device UUID. */
export type InventoryMigInstance = z.infer<typeof migInstanceSchema>;
/** The inventory of one node. */
export type NodeInventory = z.infer<typeof inventorySchema>;

/** The annotation value for `gpus` (stable key order). */
export function formatInventory(gpus: readonly InventoryGpu[]): string {
  return JSON.stringify({ schema: SCHEMA_VERSION, gpus: [...gpus].sort((a, b) => a.index - b.index) });
}

/**
 * Reads a node's inventory from its annotations.
 * @returns the inventory, null when the node has none (not a gpushare node), or an error message
 *   naming the annotation when it is malformed
 */
export function parseInventory(
  annotations: Readonly<Record<string, string>> | undefined,
): NodeInventory | null | { error: string } {
  const parsed = parseJsonAnnotation(annotations, NODE_ANNOTATIONS.gpus, inventorySchema);
  if (parsed === null || 'error' in parsed) return parsed;
  const seen = new Set<number>();
  const uuids = new Set<string>();
  for (const g of parsed.gpus) {
    if (seen.has(g.index)) return { error: `annotation ${NODE_ANNOTATIONS.gpus}: GPU index ${g.index} listed twice` };
    if (uuids.has(g.uuid)) return { error: `annotation ${NODE_ANNOTATIONS.gpus}: GPU UUID ${g.uuid} listed twice` };
    seen.add(g.index);
    uuids.add(g.uuid);
  }
  return parsed;
}

/** Host capacity given to every node: the kube-scheduler checks CPU and memory, not gpushare. */
const UNLIMITED_HOST = 2 ** 40;

/**
 * The core's view of a node: its GPUs (unhealthy ones unschedulable; `cordoned` marks every GPU
 * unschedulable, for an unschedulable Node), host resources without limit.
 */
export function clusterNodeOf(name: string, inventory: NodeInventory, cordoned = false): ClusterNode {
  const gpus: GpuDevice[] = inventory.gpus.map((g) => ({
    index: g.index,
    uuid: g.uuid,
    model: g.model,
    gpuMemoryMiB: g.gpuMemoryMiB,
    migEnabled: g.migEnabled,
    schedulable: g.healthy && !cordoned,
    ...(g.migEnabled ? { migInstances: g.migInstances.map(({ uuid: _uuid, ...rest }) => rest) } : {}),
  }));
  return { name, hostCpuMilli: UNLIMITED_HOST, hostMemoryMiB: UNLIMITED_HOST, gpus };
}

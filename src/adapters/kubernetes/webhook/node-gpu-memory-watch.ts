/**
 * NodeGpuMemory from the API server: lists and watches the Nodes that carry the label
 * `gpushare.io/gpu-memory-mib` (a label selector, so other nodes never reach the webhook) with
 * @kubernetes/client-node's informer, and answers the largest value among them. The informer stops
 * on an error; it is started again after a delay that doubles from 1 s up to 30 s. Needs RBAC
 * `list` and `watch` on `nodes`. The same nodes' GPU inventories (annotation `gpushare.io/gpus`) give
 * the core's `CapacityCheck`, built again at its first use after an inventory changed (GPU health
 * aside: the check counts every GPU).
 */
import { CoreV1Api, makeInformer, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { CapacityCheck, type ClusterNode } from '../../../core/index.js';
import { NODE_LABELS } from '../schema/names.js';
import { clusterNodeOf, parseInventory } from '../schema/node-inventory.js';
import { nodeLabelGpuMemoryMiB, type NodeGpuMemory } from './node-gpu-memory.js';

/** A running watch; {@link NodeGpuMemoryWatch.stop} ends it. */
export interface NodeGpuMemoryWatch extends NodeGpuMemory {
  /** Resolves once the first list has been tried; after a failure the watch tries again in the background. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** Starts watching the nodes' GPU memory labels through `kubeConfig`. */
export function watchNodeGpuMemory(kubeConfig: KubeConfig, logger: Logger): NodeGpuMemoryWatch {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const selector = NODE_LABELS.gpuMemoryMiB;
  const informer = makeInformer<V1Node>(
    kubeConfig,
    '/api/v1/nodes',
    () => core.listNode({ labelSelector: selector }),
    selector,
  );
  const memoryByNode = new Map<string, number>();
  const inventoryByNode = new Map<string, { node: ClusterNode; fingerprint: string }>();
  let capacity: CapacityCheck | null = null;
  const recordInventory = (name: string, annotations: Record<string, string> | undefined): void => {
    const parsed = parseInventory(annotations);
    if (parsed === null || 'error' in parsed) {
      if (inventoryByNode.delete(name)) capacity = null;
      return;
    }
    const node = clusterNodeOf(name, { ...parsed, gpus: parsed.gpus.map((g) => ({ ...g, healthy: true })) });
    const fingerprint = JSON.stringify(node);
    if (inventoryByNode.get(name)?.fingerprint === fingerprint) return;
    inventoryByNode.set(name, { node, fingerprint });
    capacity = null;
  };
  let stopped = false;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | null = null;

  const record = (node: V1Node): void => {
    const name = node.metadata?.name;
    if (name === undefined) return;
    const raw = node.metadata?.labels?.[selector];
    const mib = nodeLabelGpuMemoryMiB(raw);
    if (mib === null) {
      memoryByNode.delete(name);
      logger.warn(
        { node: name, value: raw },
        `node label ${selector} is not a positive whole number of MiB; the node is not counted`,
      );
    } else {
      memoryByNode.set(name, mib);
    }
    recordInventory(name, node.metadata?.annotations);
  };
  informer.on('add', record);
  informer.on('update', record);
  informer.on('delete', (node) => {
    if (node.metadata?.name === undefined) return;
    memoryByNode.delete(node.metadata.name);
    if (inventoryByNode.delete(node.metadata.name)) capacity = null;
  });
  informer.on('connect', () => {
    retryMs = FIRST_RETRY_MS;
  });
  informer.on('error', (error: unknown) => {
    if (stopped) return;
    logger.warn(
      { err: error instanceof Error ? error.message : String(error), retryMs },
      'watching nodes failed; starting again',
    );
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (!stopped) informer.start().catch(() => undefined);
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  });

  return {
    synced: informer.start(),
    maxGpuMemoryMiB: () => (memoryByNode.size === 0 ? null : Math.max(...memoryByNode.values())),
    capacity: () => {
      if (inventoryByNode.size === 0) return null;
      capacity ??= new CapacityCheck(
        [...inventoryByNode.values()].map((e) => e.node),
        // As the extender's filter: MIG instances are not created on demand.
        { policy: 'default', migReuseOnly: true },
      );
      return capacity;
    },
    stop: async () => {
      stopped = true;
      if (retryTimer !== null) clearTimeout(retryTimer);
      await informer.stop();
    },
  };
}

/**
 * Publishes the node's GPUs on its Node object: a port (NodePatcher) with a @kubernetes/client-node
 * implementation, and the publish step that applies both merge patches of node-status-patch.ts.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { InventoryGpu } from '../schema/node-inventory.js';
import { nodeMetadataPatch, nodeStatusPatch } from './node-status-patch.js';

/** Applies JSON merge patches to a Node. Rejects with the API server's error. */
export interface NodePatcher {
  /** PATCH /api/v1/nodes/{name} (metadata), `application/merge-patch+json`. */
  patchNode(name: string, patch: object): Promise<void>;
  /** PATCH /api/v1/nodes/{name}/status, `application/merge-patch+json`. */
  patchNodeStatus(name: string, patch: object): Promise<void>;
}

/** The field manager gpushare's node agent writes as. */
export const NODE_AGENT_FIELD_MANAGER = 'gpushare-node-agent';

/** A NodePatcher over the API server of `kubeConfig` (needs RBAC: patch nodes and nodes/status). */
export function createClientNodePatcher(kubeConfig: KubeConfig): NodePatcher {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return {
    async patchNode(name, patch) {
      await api.patchNode({ name, body: patch, fieldManager: NODE_AGENT_FIELD_MANAGER }, mergePatch);
    },
    async patchNodeStatus(name, patch) {
      await api.patchNodeStatus({ name, body: patch, fieldManager: NODE_AGENT_FIELD_MANAGER }, mergePatch);
    },
  };
}

/**
 * Publishes `gpus` on node `nodeName`: first the labels and the inventory annotation, then the
 * extended resources in status (so a node never offers resources whose inventory is unknown).
 * Idempotent. Rejects with the first patch's error, naming the node and the patch.
 */
export async function publishNodeInventory(
  patcher: NodePatcher,
  nodeName: string,
  gpus: readonly InventoryGpu[],
): Promise<void> {
  try {
    await patcher.patchNode(nodeName, nodeMetadataPatch(gpus));
  } catch (error) {
    throw new Error(
      `cannot patch the labels and annotations of node ${nodeName}: ` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  try {
    await patcher.patchNodeStatus(nodeName, nodeStatusPatch(gpus));
  } catch (error) {
    throw new Error(
      `cannot patch the status of node ${nodeName}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

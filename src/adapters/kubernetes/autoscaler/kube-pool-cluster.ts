/**
 * The autoscaler's cluster on Kubernetes (app/ports/pool-cluster.ts), read afresh each round from
 * the API server: Nodes and the pods that have not finished are listed and fed to a new extender
 * cluster view (extender/cluster-view.ts), whose `coreSnapshot` gives the gpushare nodes, the
 * pods holding shares (active jobs) and the pending gpushare pods (pending jobs) exactly as the
 * extender counts them. Pool nodes are the Nodes labelled `gpushare.io/node-template=<template>`;
 * one takes jobs (`ready`) when its Ready condition is True and the node agent has published its
 * GPUs. Cordoning is a merge patch of `spec.unschedulable`; the jobs on a node are the gpushare pods
 * bound to it (field selector `spec.nodeName`) that are not Succeeded or Failed.
 */
import type { ObservedPoolNode, PoolCluster, PoolView } from '../../../app/ports/pool-cluster.js';
import { ClusterView } from '../extender/cluster-view.js';
import { statusMessage, type KubeRest } from '../extender/kube-rest.js';
import type { KubeNode, KubePod } from '../schema/kube-objects.js';
import { NODE_LABELS } from '../schema/names.js';
import { parsePodRequest } from '../schema/pod-request.js';

/** A Node with the status fields read here. */
type NodeWithStatus = KubeNode & {
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
};

/** A list answer. */
interface ListOf<T> {
  readonly items: readonly T[];
}

/** GET of a list. @throws Error naming the path for anything but 200 */
async function list<T>(rest: KubeRest, path: string): Promise<readonly T[]> {
  const answer = await rest.request('GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${statusMessage(answer)}`);
  return (answer.body as ListOf<T>).items ?? [];
}

const UNFINISHED = encodeURIComponent('status.phase!=Succeeded,status.phase!=Failed');

/** ms since the epoch of an API timestamp; 0 when absent. */
function timeMs(value: string | Date | undefined): number {
  return value === undefined ? 0 : new Date(value).getTime();
}

/**
 * The autoscaler's cluster over `rest`.
 * @param policy the placement policy (the extender's `--policy`)
 * @param onRejected told about a pod or node the view cannot take (the log)
 */
export function kubePoolCluster(rest: KubeRest, policy: string, onRejected: (message: string) => void): PoolCluster {
  return {
    async read(): Promise<PoolView> {
      const [nodes, pods] = await Promise.all([
        list<NodeWithStatus>(rest, '/api/v1/nodes'),
        list<KubePod>(rest, `/api/v1/pods?fieldSelector=${UNFINISHED}`),
      ]);
      const view = new ClusterView(policy, Date.now, onRejected);
      for (const node of nodes) {
        const error = view.upsertNode(node);
        if (error !== null) onRejected(error);
      }
      // An unbound pod being deleted will never run: it is no demand.
      for (const pod of pods)
        if (pod.spec?.nodeName || pod.metadata?.deletionTimestamp === undefined) view.upsertPod(pod);
      const gpushareNodes = new Set(view.nodeNames());
      const poolNodes: ObservedPoolNode[] = nodes.flatMap((n) => {
        const name = n.metadata?.name;
        const template = n.metadata?.labels?.[NODE_LABELS.nodeTemplate];
        if (!name || !template) return [];
        const isReady = n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
        return [
          {
            name,
            template,
            ready: isReady && gpushareNodes.has(name),
            cordoned: n.spec?.unschedulable === true,
            createdAtMs: timeMs(n.metadata?.creationTimestamp),
          },
        ];
      });
      return { ...view.coreSnapshot(), poolNodes };
    },

    async cordon(node: string): Promise<boolean> {
      const path = `/api/v1/nodes/${encodeURIComponent(node)}`;
      const answer = await rest.request(
        'PATCH',
        path,
        { spec: { unschedulable: true } },
        'application/merge-patch+json',
      );
      if (answer.status === 404) return false;
      if (answer.status !== 200) throw new Error(`PATCH ${path} (cordon): ${statusMessage(answer)}`);
      return true;
    },

    async jobsOn(node: string): Promise<readonly string[]> {
      const selector = encodeURIComponent(`spec.nodeName=${node},status.phase!=Succeeded,status.phase!=Failed`);
      const pods = await list<KubePod>(rest, `/api/v1/pods?fieldSelector=${selector}`);
      return pods
        .filter((p) => parsePodRequest(p.metadata?.annotations).kind !== 'none')
        .map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
    },
  };
}

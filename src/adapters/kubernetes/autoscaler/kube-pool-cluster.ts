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
import { listItems, statusMessage, type KubeRest } from '../extender/kube-rest.js';
import type { KubeNode, KubePod } from '../schema/kube-objects.js';
import { NODE_LABELS } from '../schema/names.js';
import { parsePodRequest } from '../schema/pod-request.js';

/** A Node with the status fields read here. */
type NodeWithStatus = KubeNode & {
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
};

/** Pods that still run or may run. */
const UNFINISHED = 'status.phase!=Succeeded,status.phase!=Failed';

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
  // Each round reads the cluster anew: a pod or node the view rejects is told once, not every round.
  let toldBefore = new Set<string>();
  return {
    async read(): Promise<PoolView> {
      const [nodes, pods] = await Promise.all([
        listItems<NodeWithStatus>(rest, '/api/v1/nodes'),
        listItems<KubePod>(rest, `/api/v1/pods?fieldSelector=${encodeURIComponent(UNFINISHED)}`),
      ]);
      const told = new Set<string>();
      const reject = (message: string): void => {
        if (!toldBefore.has(message)) onRejected(message);
        told.add(message);
      };
      const view = new ClusterView(policy, Date.now, reject);
      for (const node of nodes) {
        const error = view.upsertNode(node);
        if (error !== null) reject(error);
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
      toldBefore = told;
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
      const selector = encodeURIComponent(`spec.nodeName=${node},${UNFINISHED}`);
      const pods = await listItems<KubePod>(rest, `/api/v1/pods?fieldSelector=${selector}`);
      // A pod with a gpushare annotation the view would refuse counts too: a node is removed only when none is left.
      return pods
        .filter((p) => parsePodRequest(p.metadata?.annotations).kind !== 'none')
        .map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
    },
  };
}

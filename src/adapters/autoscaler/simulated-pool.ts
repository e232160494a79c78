/**
 * The cluster as the autoscaler sees it with the `simulated` provider: another cluster's view
 * (on Kubernetes, the API server's) plus the simulated provider's nodes, each the empty node its
 * template gives once it is up (`templateNode`), booting before. Simulated nodes are cordoned here,
 * in memory; the jobs on a node are the other view's (on Kubernetes no pod is bound to a simulated
 * node), so the pool shows what the autoscaler would ask a cloud for without one (a dry run on a
 * real cluster), or, over a view a test fills, a whole pool in memory.
 */
import { templateNode, type NodeTemplate } from '../../core/index.js';
import type { ObservedPoolNode, PoolCluster, PoolView } from '../../app/ports/pool-cluster.js';
import type { SimulatedProvider } from './simulated-provider.js';

/** `inner` with the simulated provider's nodes. @param nowMs the provider's clock */
export function withSimulatedNodes(
  inner: PoolCluster,
  provider: SimulatedProvider,
  templates: readonly NodeTemplate[],
  nowMs: () => number,
): PoolCluster {
  const byName = new Map(templates.map((t) => [t.name, t]));
  const cordoned = new Set<string>();
  const simulated = (node: string): boolean => provider.nodes().some((n) => n.name === node);
  return {
    async read(): Promise<PoolView> {
      const view = await inner.read();
      const now = nowMs();
      const nodes = provider.nodes();
      for (const name of cordoned) if (!nodes.some((n) => n.name === name)) cordoned.delete(name);
      const poolNodes: ObservedPoolNode[] = nodes.map((n) => ({
        name: n.name,
        template: n.template,
        ready: n.readyAtMs <= now,
        cordoned: cordoned.has(n.name),
        createdAtMs: n.requestedAtMs,
      }));
      const up = nodes
        .filter((n) => n.readyAtMs <= now && byName.has(n.template))
        .map((n) => templateNode(byName.get(n.template)!, n.name));
      return {
        snapshot: { nodes: [...view.snapshot.nodes, ...up], active: view.snapshot.active },
        pending: view.pending,
        poolNodes: [...view.poolNodes, ...poolNodes],
      };
    },
    async cordon(node: string): Promise<boolean> {
      if (!simulated(node)) return inner.cordon(node);
      cordoned.add(node);
      return true;
    },
    async jobsOn(node: string): Promise<readonly string[]> {
      return inner.jobsOn(node);
    },
  };
}

/**
 * Port: the cluster the autoscaler reads and cordons: the nodes that take jobs, the jobs that hold
 * resources and those that wait, as the scheduler core's data; the pool's nodes (the nodes a
 * template gave); and the two writes a scale-down makes before the provider removes a node (cordon
 * it, then look again for jobs on it).
 *
 * Adapter: src/adapters/kubernetes/autoscaler/kube-pool-cluster.ts (Nodes and pods of the API
 * server through the extender's cluster view); src/adapters/autoscaler/simulated-pool.ts adds the
 * simulated provider's nodes.
 */
import type { ClusterSnapshot, JobRequest } from '../../core/index.js';

/** A node of the pool as the cluster shows it now. */
export interface ObservedPoolNode {
  /** Node name. */
  readonly name: string;
  /** Its template's name (on Kubernetes the label `gpushare.io/node-template`). */
  readonly template: string;
  /** Takes jobs: Ready, with its GPUs published; false while it boots. */
  readonly ready: boolean;
  /** Cordoned (unschedulable). */
  readonly cordoned: boolean;
  /** When the node object appeared, ms since the epoch. */
  readonly createdAtMs: number;
}

/** What the autoscaler reads at the start of a round. */
export interface PoolView {
  /** Nodes that take jobs (pool nodes that are ready or cordoned, and all others) and the jobs on them. */
  readonly snapshot: ClusterSnapshot;
  /** Jobs waiting to be placed. */
  readonly pending: readonly JobRequest[];
  /** Every node that carries a template's name, booting ones included. */
  readonly poolNodes: readonly ObservedPoolNode[];
}

/** The cluster, as the autoscaler uses it. */
export interface PoolCluster {
  /** Reads the cluster now. @throws Error when it cannot be read (the round is skipped) */
  read(): Promise<PoolView>;
  /**
   * Cordons `node` (no new job lands on it); idempotent. @returns false when the node does not exist
   * @throws Error when the write fails
   */
  cordon(node: string): Promise<boolean>;
  /**
   * The gpushare jobs bound to `node` now that have not finished, read afresh (names for people).
   * @throws Error when they cannot be read
   */
  jobsOn(node: string): Promise<readonly string[]>;
}

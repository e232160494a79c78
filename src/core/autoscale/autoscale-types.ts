/**
 * What the autoscaler (autoscale.ts) takes and gives: the pool's nodes, its policy, the state it
 * keeps between decisions, and a decision. Plain JSON data throughout: a decision survives
 * `JSON.parse(JSON.stringify(…))`, and the state can be stored and read back after a restart.
 */
import type { ClusterSnapshot } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import type { Status } from '../model/status.js';
import type { ScheduleOptions } from '../schedule.js';
import type { NodeTemplate } from './node-template.js';

/** Where a node of the pool is in its life. */
export type PoolNodePhase = 'booting' | 'ready' | 'cordoned';

/** A node the autoscaler added (or may remove): one of a template's nodes. */
export interface PoolNode {
  /** Node name; a `ready` or `cordoned` node is in the snapshot under this name, a `booting` one is not. */
  readonly name: string;
  /** Its template's name. */
  readonly template: string;
  readonly phase: PoolNodePhase;
  /** When the provider was asked for it, ms since the epoch (its boot time-out counts from here). */
  readonly requestedAtMs: number;
}

/** How the autoscaler decides (docs/autoscaler.md). */
export interface AutoscalePolicy {
  /** Nodes are added only when at least this many pending jobs need them (queue-length threshold), ≥ 1. */
  readonly scaleUpQueueLength: number;
  /** Wait-time target: only jobs that have waited at least this long count toward a scale-up, seconds ≥ 0. */
  readonly scaleUpWaitSeconds: number;
  /**
   * A job that has waited this long gets nodes even below the queue-length threshold (so that a few
   * jobs never wait forever), seconds; null: the threshold always holds.
   */
  readonly scaleUpMaxWaitSeconds: number | null;
  /** Seconds after a scale-up before the next. */
  readonly scaleUpCooldownSeconds: number;
  /** Seconds a node must stay idle (or nearly idle) before it is cordoned and removed. */
  readonly scaleDownDelaySeconds: number;
  /**
   * A node whose jobs hold at most this share of its GPUs (0..1) is nearly idle: its jobs, all
   * checkpointable, move elsewhere and it is removed. 0: only idle nodes are removed.
   */
  readonly scaleDownUtilization: number;
  /** Pool nodes (all templates, booting included) at most. */
  readonly maxNodes: number;
  /** Cap on the pool's price per hour (booting nodes included); null for none. */
  readonly maxCostPerHour: number | null;
  /** Seconds past a template's `bootSeconds` after which a booting node is given up. */
  readonly bootTimeoutSeconds: number;
  /** Back-off after a provider failure, seconds, doubled per failure in a row. */
  readonly backoffSeconds: number;
  /** Longest back-off, seconds. */
  readonly maxBackoffSeconds: number;
}

/** Policy values where an operator names none. */
export const DEFAULT_AUTOSCALE_POLICY: AutoscalePolicy = {
  scaleUpQueueLength: 1,
  scaleUpWaitSeconds: 0,
  scaleUpMaxWaitSeconds: null,
  scaleUpCooldownSeconds: 0,
  scaleDownDelaySeconds: 600,
  scaleDownUtilization: 0,
  maxNodes: 100,
  maxCostPerHour: null,
  bootTimeoutSeconds: 900,
  backoffSeconds: 60,
  maxBackoffSeconds: 1800,
};

/** Provider failures in a row for one template. */
export interface ProviderFailures {
  readonly count: number;
  /** When the last one happened, ms since the epoch. */
  readonly lastMs: number;
}

/** What the autoscaler remembers between decisions (stored by its owner; see autoscale-state.ts). */
export interface AutoscaleState {
  /** The last scale-up, ms since the epoch; null for none. */
  readonly lastScaleUpMs: number | null;
  /** Since when each node has been idle or nearly idle, ms since the epoch, by node name. */
  readonly lowUseSinceMs: Readonly<Record<string, number>>;
  /** Provider failures in a row, by template name. */
  readonly failures: Readonly<Record<string, ProviderFailures>>;
}

/** Everything one decision reads. */
export interface AutoscaleInput {
  /** Now, ms since the epoch. */
  readonly nowMs: number;
  /** The nodes that take jobs (the pool's ready and cordoned nodes, any others) and the jobs that hold resources. */
  readonly snapshot: ClusterSnapshot;
  /** The autoscaler's nodes: booting, ready, cordoned. */
  readonly pool: readonly PoolNode[];
  /** Jobs waiting to be placed (their `submittedAtMs` counts for the wait-time target). */
  readonly pending: readonly JobRequest[];
  readonly templates: readonly NodeTemplate[];
  readonly policy: AutoscalePolicy;
  readonly state: AutoscaleState;
  /** How jobs are placed (policy, sharing-mode views, MIG on demand): the same as the scheduler's. */
  readonly scheduling?: ScheduleOptions;
  /** Seed of the placements' tie-breaks (each trial starts from it). @defaultValue 1 */
  readonly seed?: number;
}

/** Nodes to add of one template. */
export interface ScaleUp {
  readonly template: string;
  /** New nodes. */
  readonly count: number;
  /** Why (`unschedulable-jobs`). */
  readonly reason: Status;
}

/** A node to cordon or remove. */
export interface NodeAction {
  readonly node: string;
  readonly template: string;
  /** Why (`node-idle`, `node-underused`, `boot-timed-out`). */
  readonly reason: Status;
}

/** One decision. */
export interface AutoscaleDecision {
  /** Nodes to add, by template. */
  readonly scaleUp: readonly ScaleUp[];
  /** The pending jobs the added nodes are for: all place once the nodes are up, and not with one node fewer. */
  readonly scaleUpJobIds: readonly number[];
  /** Nodes to cordon now (no new job lands on them). */
  readonly cordon: readonly NodeAction[];
  /** Jobs to checkpoint and move off cordoned, nearly idle nodes. */
  readonly drainJobIds: readonly number[];
  /** Nodes to remove: cordoned and empty, or given up while booting. Cordon before removing. */
  readonly remove: readonly NodeAction[];
  /** Nodes each template should have once the decision is carried out (a provider's desired count). */
  readonly desiredCount: Readonly<Record<string, number>>;
  /** Why nothing (or less) was done: codes of AUTOSCALE_CODES. */
  readonly statuses: readonly Status[];
  /** The state to pass to the next decision. */
  readonly state: AutoscaleState;
}

/**
 * Port: what the autoscaler tells the world about its actions. On Kubernetes every action is an
 * Event (reason: the Status code, message: `statusMessage`) on the scaled object or the node, and a
 * Prometheus metric (src/main/autoscaler.ts wires src/adapters/kubernetes/autoscaler/kube-events.ts
 * and src/adapters/metrics/autoscaler-metrics.ts). Reporting never fails the loop: an adapter logs
 * what it could not write.
 */
import type { Status } from '../../core/index.js';

/** One thing the autoscaler did, tried, or found. */
export type AutoscalerReport =
  /** A template's group asked for another count (reason: `unschedulable-jobs`, `node-idle`, `boot-timed-out`). */
  | {
      readonly kind: 'scale';
      readonly template: string;
      readonly fromCount: number;
      readonly toCount: number;
      readonly reason: Status;
      /** The provider wrote nothing: the group had that count already (a resumed decision). */
      readonly unchanged: boolean;
    }
  /** A node cordoned (reason: `node-idle`, `node-underused`). */
  | { readonly kind: 'cordon'; readonly node: string; readonly template: string; readonly reason: Status }
  /** A node handed to the provider for removal (reason: `node-idle`, `boot-timed-out`). */
  | {
      readonly kind: 'remove';
      readonly node: string;
      readonly template: string;
      readonly reason: Status;
      /** False for a booting node that has no Node object yet. */
      readonly nodeExists: boolean;
    }
  /** A node chosen for removal that runs gpushare jobs again: kept, cordoned (reason: `node-not-empty`). */
  | {
      readonly kind: 'kept-busy';
      readonly node: string;
      readonly template: string;
      readonly jobs: readonly string[];
      readonly reason: Status;
    }
  /** The provider failed (reason: `provider-backoff`, with the failures and the back-off). */
  | { readonly kind: 'provider-failure'; readonly template: string; readonly reason: Status; readonly detail: string }
  /** Why nothing (or less) was done this round (every round; an Event writer reports what is new). */
  | { readonly kind: 'waits'; readonly statuses: readonly Status[] }
  /** A decision found in flight at start, finished now. */
  | { readonly kind: 'resumed'; readonly decisionId: string; readonly stepsLeft: number }
  /** A template's desired count (after every round). */
  | { readonly kind: 'desired'; readonly template: string; readonly count: number };

/** Where reports go. */
export interface AutoscalerReporter {
  /** Records `report`; resolves once written (never rejects). */
  report(report: AutoscalerReport): Promise<void>;
}

/**
 * Port: where the autoscaler keeps what must survive a restart (docs/decisions/0027): the core's
 * state between decisions, what it last asked of the provider per template, and the decision being
 * carried out, written before the first action and cleared after the last. Plain JSON.
 *
 * Adapters: src/adapters/kubernetes/autoscaler/config-map-store.ts (a ConfigMap, written with its
 * resourceVersion) and src/app/testing/memory-autoscaler-store.ts (tests).
 */
import type { AutoscaleState, NodeAction, ScaleUp } from '../../core/index.js';

/** The provider's last answer for a template. */
export interface ProviderRecord {
  readonly ok: boolean;
  readonly detail: string;
  /** When, ms since the epoch. */
  readonly atMs: number;
}

/** What the autoscaler asked of the provider for one template. */
export interface TemplateGroup {
  /** The count last carried out (the group's desired count). */
  readonly desiredCount: number;
  /** When that count was last raised, ms since the epoch: booting nodes count their time-out from here. */
  readonly raisedAtMs: number | null;
  /**
   * Nodes handed to the provider for removal whose Node is still there: kept out of the pool (they
   * are not removed twice) until they are gone.
   */
  readonly removedNodes: readonly string[];
  readonly lastOutcome: ProviderRecord | null;
}

/** One template's part of a decision: the provider call and why. */
export interface InFlightStep {
  readonly template: string;
  /** The count before the decision. */
  readonly fromCount: number;
  /** The count the decision asks for (before nodes found busy at removal are kept). */
  readonly desiredCount: number;
  /** The scale-up it carries out, if any. */
  readonly scaleUp: ScaleUp | null;
  /** The nodes it removes (booting ones given up included), with why. */
  readonly remove: readonly NodeAction[];
  /** True once carried out (or failed): a resumed decision skips it. */
  readonly done: boolean;
}

/** A decision being carried out. */
export interface InFlightDecision {
  /** Unique id (`<decidedAtMs>-<n>`), passed to the provider. */
  readonly id: string;
  /** When it was decided, ms since the epoch. */
  readonly decidedAtMs: number;
  /** Nodes to cordon first (cordoning is idempotent: a resumed decision cordons them again). */
  readonly cordon: readonly NodeAction[];
  /** True once they are cordoned (a resumed decision does not report them again). */
  readonly cordonsDone: boolean;
  readonly steps: readonly InFlightStep[];
}

/** Everything the autoscaler keeps. */
export interface AutoscalerRecord {
  /** Version of this shape. */
  readonly schema: 1;
  /** The core's state for the next decision. */
  readonly state: AutoscaleState;
  /** By template name. */
  readonly groups: Readonly<Record<string, TemplateGroup>>;
  /** The decision being carried out; null between decisions. */
  readonly inFlight: InFlightDecision | null;
}

/** The store of one autoscaler (one writer). */
export interface AutoscalerStore {
  /** The record, or null when none was ever saved. @throws Error when it cannot be read or is malformed */
  load(): Promise<AutoscalerRecord | null>;
  /**
   * Replaces the record. @throws Error when it cannot be written, or when another writer changed it
   *   since this store last read or wrote it (a second autoscaler)
   */
  save(record: AutoscalerRecord): Promise<void>;
}

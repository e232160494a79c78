/**
 * What happens inside a control plane, as events for observers (Prometheus counters, the web
 * dashboard's server-sent events). Listeners run synchronously and must not throw; an exception
 * in one is caught and ignored so that it can never break scheduling.
 */
import type { JobEventReason, JobState, SharingMode } from '../../core/index.js';
import type { QosKind } from '../qos/qos-tracker.js';

/** A job moved from one state to another (or was submitted: `from` null, `to` pending). */
export interface JobTransitionEvent {
  readonly type: 'job';
  readonly jobId: number;
  readonly tenant: string;
  /** Priority number of the job (see core PRIORITY_CLASSES). */
  readonly priority: number;
  readonly from: JobState | null;
  readonly to: JobState;
  /** Sharing mode of the job's placement when it has one. */
  readonly mode: SharingMode | null;
  readonly atMs: number;
  readonly reason: JobEventReason | null;
}

/** One scheduling pass ran. */
export interface PassEvent {
  readonly type: 'pass';
  readonly durationMs: number;
  readonly pendingJobs: number;
  readonly placedJobs: number;
}

/** MIG instances were destroyed or created on a GPU to launch a job. */
export interface MigReconfiguredEvent {
  readonly type: 'mig-reconfigured';
  readonly gpuIndices: readonly number[];
  /** GPUs reconfigured by this launch. */
  readonly count: number;
  /** The job whose launch needed the change. */
  readonly jobId?: number;
}

/** A pass chose jobs to preempt for a more important one (stored as their stop intents). */
export interface PreemptionEvent {
  readonly type: 'preemption';
  readonly preemptorId: number;
  readonly victimIds: readonly number[];
  /** The reason the victims are stopped for (`preempted`: the preemptor). */
  readonly reason: JobEventReason;
  readonly atMs: number;
}

/** The GPU list changed (health poll, cordon). */
export interface GpusChangedEvent {
  readonly type: 'gpus';
}

/** A job's QoS state changed (a report arrived, a violation started or ended). */
export interface QosEvent {
  readonly type: 'qos';
  readonly jobId: number;
  readonly tenant: string;
  /**
   * `report`: a progress report; `violation`: the target was missed for the configured time; `recovered`: met again.
   */
  readonly kind: 'report' | 'violation' | 'recovered';
  /** Which target: seconds per step or per request. */
  readonly qosKind: QosKind;
  readonly atMs: number;
}

/** Every event a control plane emits. */
export type PlaneEvent =
  JobTransitionEvent | PassEvent | MigReconfiguredEvent | GpusChangedEvent | QosEvent | PreemptionEvent;

/** A synchronous, in-process event bus. */
export class PlaneEvents {
  private readonly listeners = new Set<(event: PlaneEvent) => void>();

  /** Adds a listener; returns the function that removes it. */
  on(listener: (event: PlaneEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers `event` to every listener; a throwing listener is skipped. */
  emit(event: PlaneEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer's failure must never break scheduling.
      }
    }
  }
}

/**
 * QoS of running jobs: each job may declare targets (seconds per training step, or a request
 * latency) and report what it observes; the tracker keeps the latest report per job and target
 * kind and decides when a target has been missed long enough to be a violation.
 */

/** Kinds of QoS target a job may declare. */
export const QOS_KINDS = ['step', 'latency'] as const;
/** `step`: seconds per step (training); `latency`: seconds per request (inference). */
export type QosKind = (typeof QOS_KINDS)[number];

/** The QoS state of one (job, kind) pair, as metrics and the dashboard show it. */
export interface QosJobStatus {
  readonly jobId: number;
  readonly tenant: string;
  /** GPUs the job runs on. */
  readonly gpuIndices: readonly number[];
  readonly kind: QosKind;
  /** The declared target, seconds (a report above it misses). */
  readonly targetSeconds: number;
  /** The latest reported value, seconds; null before the first report. */
  readonly lastObservedSeconds: number | null;
  readonly lastReportAtMs: number | null;
  /** Reports received for this kind. */
  readonly reports: number;
  /** True while the target has been missed for at least the configured violation time. */
  readonly violating: boolean;
  /** When the current run of misses began (ms since epoch); null while the target is met. */
  readonly missingSinceMs: number | null;
  /** Violations raised so far for this job and kind. */
  readonly violations: number;
}

/** Keeps QoS targets and reports of running jobs. */
export class QosTracker {
  /** Every tracked (job, kind), by job id then kind. */
  statuses(): QosJobStatus[] {
    return [];
  }
}

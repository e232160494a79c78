/**
 * QoS of running jobs: each job may declare targets (seconds per training step, or a request
 * latency) and report what it observes; the tracker keeps the latest report per job and target
 * kind and decides when a target has been missed long enough to be a violation (docs/qos.md).
 *
 * Rule, per (job, kind): a report above the target is a miss, one at or below it is met. A run of
 * misses starts at its first miss and ends at the next met report. The job violates its target
 * once the current run of misses is at least `violationSeconds` old, checked on every report and
 * on `check` (a timer), so a violation is raised on time even between reports. A run lasts until a
 * met report however far apart its reports are, so a job that reports less often than
 * `violationSeconds` is flagged at its second miss. The timer judges only jobs that still report:
 * `check` raises no violation when the latest report is `violationSeconds` old or older. A
 * violation already raised stays until a met report (or the end of the attempt, when `forget`
 * drops the job). A met report recovers a violation at once.
 */
import type { JobRecord, QosTargets } from '../ports/state-store.js';
import { JOB_EVENT_CODES, jobEventReason, type JobEventReason } from '../../core/index.js';

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

/** A running job the tracker judges. */
export interface QosTrackedJob {
  readonly jobId: number;
  readonly tenant: string;
  /** Priority number of the job (higher is more important). */
  readonly priority: number;
  readonly gpuIndices: readonly number[];
  readonly targets: QosTargets;
}

/** What the tracker judges of a stored job: its tenant, priority, GPUs and targets; null for a job without targets. */
export function qosTrackedJobOf(job: JobRecord): QosTrackedJob | null {
  if (!job.qos) return null;
  return {
    jobId: job.id,
    tenant: job.tenant,
    priority: job.priority,
    gpuIndices: job.placement?.gpus.map((g) => g.index) ?? [],
    targets: job.qos,
  };
}

/** One progress report: seconds per step and/or per request; at least one. */
export interface QosReport {
  readonly stepSeconds?: number;
  readonly latencySeconds?: number;
}

/** A violation raised or recovered. */
export interface QosChange {
  readonly jobId: number;
  readonly tenant: string;
  readonly kind: QosKind;
  readonly change: 'violation' | 'recovered';
  /** The value that decided it, seconds. */
  readonly observedSeconds: number;
  readonly targetSeconds: number;
  readonly atMs: number;
  /** `qos-violation` (kind, observedSeconds, targetSeconds, violationSeconds) or `qos-recovered`. */
  readonly reason: JobEventReason;
}

/** Settings of a tracker. */
export interface QosTrackerOptions {
  /** Clock, ms since the epoch. */
  readonly nowMs: () => number;
  /** How long a target must be missed before it is a violation, seconds (> 0). */
  readonly violationSeconds: number;
}

/** Field of a report that carries each kind. */
export const QOS_REPORT_FIELDS: Readonly<Record<QosKind, 'stepSeconds' | 'latencySeconds'>> = {
  step: 'stepSeconds',
  latency: 'latencySeconds',
};

interface KindState {
  targetSeconds: number;
  lastObservedSeconds: number | null;
  lastReportAtMs: number | null;
  reports: number;
  violating: boolean;
  missingSinceMs: number | null;
  violations: number;
}

interface JobState {
  readonly job: QosTrackedJob;
  readonly kinds: Map<QosKind, KindState>;
}

/** Keeps QoS targets and reports of running jobs. */
export class QosTracker {
  private readonly jobs = new Map<number, JobState>();
  private readonly options: QosTrackerOptions;

  /** @throws RangeError when `violationSeconds` is not a positive finite number */
  constructor(options: QosTrackerOptions) {
    if (!(Number.isFinite(options.violationSeconds) && options.violationSeconds > 0))
      throw new RangeError(`violationSeconds must be a positive number of seconds, got ${options.violationSeconds}`);
    this.options = options;
  }

  /** How long a target must be missed before it is a violation, seconds. */
  get violationSeconds(): number {
    return this.options.violationSeconds;
  }

  /** Starts judging a job's attempt (its earlier state, if any, is dropped). A job without targets is not tracked. */
  track(job: QosTrackedJob): void {
    const kinds = new Map<QosKind, KindState>();
    for (const kind of QOS_KINDS) {
      const target = job.targets[QOS_REPORT_FIELDS[kind]];
      if (target !== undefined)
        kinds.set(kind, {
          targetSeconds: target,
          lastObservedSeconds: null,
          lastReportAtMs: null,
          reports: 0,
          violating: false,
          missingSinceMs: null,
          violations: 0,
        });
    }
    if (kinds.size === 0) this.jobs.delete(job.jobId);
    else this.jobs.set(job.jobId, { job: { ...job, gpuIndices: [...job.gpuIndices] }, kinds });
  }

  /** Forgets a job (its attempt ended). */
  forget(jobId: number): void {
    this.jobs.delete(jobId);
  }

  /** True when the job is tracked. */
  isTracked(jobId: number): boolean {
    return this.jobs.has(jobId);
  }

  /** Kinds the job declares targets for (empty when untracked). */
  kindsOf(jobId: number): QosKind[] {
    return [...(this.jobs.get(jobId)?.kinds.keys() ?? [])];
  }

  /**
   * Records a report received at `atMs` (default: now) and judges it.
   * @returns violations raised and recovered by it
   * @throws RangeError when the job is untracked or the report names a kind without a target
   */
  report(jobId: number, report: QosReport, atMs: number = this.options.nowMs()): QosChange[] {
    const state = this.jobs.get(jobId);
    if (!state) throw new RangeError(`job ${jobId} has no QoS targets being tracked`);
    for (const kind of QOS_KINDS) {
      if (report[QOS_REPORT_FIELDS[kind]] !== undefined && !state.kinds.has(kind))
        throw new RangeError(`job ${jobId} declares no ${kind} target`);
    }
    const changes: QosChange[] = [];
    for (const [kind, k] of state.kinds) {
      const value = report[QOS_REPORT_FIELDS[kind]];
      if (value === undefined) continue;
      k.lastObservedSeconds = value;
      k.lastReportAtMs = atMs;
      k.reports += 1;
      if (value <= k.targetSeconds) {
        k.missingSinceMs = null;
        if (k.violating) {
          k.violating = false;
          changes.push(this.change(state.job, kind, k, 'recovered', atMs));
        }
        continue;
      }
      k.missingSinceMs ??= atMs;
      const raised = this.judge(state.job, kind, k, atMs);
      if (raised) changes.push(raised);
    }
    return changes;
  }

  /**
   * Judges every tracked job at `atMs` (default: now) without a new report: raises the violations
   * whose run of misses became old enough while the job still reports.
   * @returns violations raised
   */
  check(atMs: number = this.options.nowMs()): QosChange[] {
    const changes: QosChange[] = [];
    const windowMs = this.options.violationSeconds * 1000;
    for (const state of this.jobs.values()) {
      for (const [kind, k] of state.kinds) {
        // A job that stopped reporting is not judged.
        if (k.lastReportAtMs === null || atMs - k.lastReportAtMs >= windowMs) continue;
        const raised = this.judge(state.job, kind, k, atMs);
        if (raised) changes.push(raised);
      }
    }
    return changes;
  }

  /** Every tracked (job, kind), by job id then kind. */
  statuses(): QosJobStatus[] {
    const out: QosJobStatus[] = [];
    for (const state of [...this.jobs.values()].sort((a, b) => a.job.jobId - b.job.jobId)) {
      for (const kind of QOS_KINDS) {
        const k = state.kinds.get(kind);
        if (!k) continue;
        const { jobId, tenant, gpuIndices } = state.job;
        out.push({
          jobId,
          tenant,
          gpuIndices,
          kind,
          targetSeconds: k.targetSeconds,
          lastObservedSeconds: k.lastObservedSeconds,
          lastReportAtMs: k.lastReportAtMs,
          reports: k.reports,
          violating: k.violating,
          missingSinceMs: k.missingSinceMs,
          violations: k.violations,
        });
      }
    }
    return out;
  }

  /** The statuses of one job (empty when untracked). */
  statusesOf(jobId: number): QosJobStatus[] {
    return this.statuses().filter((s) => s.jobId === jobId);
  }

  /** Jobs violating at least one target now, by id. */
  violatingJobs(): QosTrackedJob[] {
    return [...this.jobs.values()]
      .filter((s) => [...s.kinds.values()].some((k) => k.violating))
      .map((s) => s.job)
      .sort((a, b) => a.jobId - b.jobId);
  }

  private judge(job: QosTrackedJob, kind: QosKind, k: KindState, atMs: number): QosChange | null {
    if (k.violating || k.missingSinceMs === null || atMs - k.missingSinceMs < this.options.violationSeconds * 1000)
      return null;
    k.violating = true;
    k.violations += 1;
    return this.change(job, kind, k, 'violation', atMs);
  }

  private change(
    job: QosTrackedJob,
    kind: QosKind,
    k: KindState,
    change: QosChange['change'],
    atMs: number,
  ): QosChange {
    const observed = k.lastObservedSeconds!;
    const reason =
      change === 'violation'
        ? jobEventReason(JOB_EVENT_CODES.qosViolation, {
            kind,
            observedSeconds: observed,
            targetSeconds: k.targetSeconds,
            violationSeconds: this.options.violationSeconds,
          })
        : jobEventReason(JOB_EVENT_CODES.qosRecovered, {
            kind,
            observedSeconds: observed,
            targetSeconds: k.targetSeconds,
          });
    return {
      jobId: job.jobId,
      tenant: job.tenant,
      kind,
      change,
      observedSeconds: observed,
      targetSeconds: k.targetSeconds,
      atMs,
      reason,
    };
  }
}

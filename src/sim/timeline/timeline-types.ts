/**
 * Result shapes of `gpushare simulate --replay timeline`, shared by the runner, the JSON writer,
 * the console table and the HTML report. Times in seconds of simulated time unless named otherwise.
 */
import type { PriorityClassName } from '../../core/index.js';
import type { MeanSd } from '../simulation-types.js';

/** Priority classes in display order, most important first. */
export const CLASS_ORDER: readonly PriorityClassName[] = ['critical', 'high', 'normal', 'low'];

/** Nearest-rank percentiles of a sample; null when the sample is empty. */
export interface Percentiles {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** Outcome of the jobs of one priority class (or of all jobs) in one run. */
export interface ClassStats {
  /** Jobs replayed. */
  readonly jobs: number;
  /** Jobs that ran to completion (all of them: the replay runs until the queue is empty). */
  readonly completed: number;
  /** Time queued (before the first start plus after every preemption), seconds. */
  readonly waitSeconds: Percentiles;
  /** Job completion time = end − arrival, seconds. */
  readonly jctSeconds: Percentiles;
  /** Preemptions suffered by jobs of this class. */
  readonly preemptions: number;
  /** Work lost to those preemptions: Σ GPU-equivalents × run time since the last checkpoint, GPU-hours. */
  readonly lostWorkGpuHours: number;
  /** Wait percentiles p = 0, 1, …, 100 (nearest rank), seconds; empty when there are no jobs. */
  readonly waitPercentileCurveSeconds: readonly number[];
}

/** One (policy, seed) run of the timeline replay. */
export interface TimelineRunResult {
  readonly policy: string;
  readonly seed: number;
  /** The cluster of this run (with `--gpus`, sampled with this seed). */
  readonly cluster: { readonly nodes: number; readonly gpus: number };
  /** Jobs replayed (pods with valid times that fit some node of this cluster). */
  readonly jobs: number;
  /** Pods with valid times left out because they fit no node of this cluster even when empty. */
  readonly unplaceable: number;
  /** Last arrival − first arrival, simulated seconds. */
  readonly arrivalSpanSeconds: number;
  /**
   * Mean offered load in % of capacity: Σ(GPU-equivalents × duration) / (GPUs × arrival span) × 100; null for a zero
   * span.
   */
  readonly offeredLoadPct: number | null;
  /** Time of the last completion, seconds. */
  readonly makespanSeconds: number;
  /** Time-weighted mean allocated GPU % over [0, makespan]. */
  readonly meanAllocationPct: number;
  /** Time-weighted mean allocated GPU % over [first arrival, last arrival] (the loaded period). */
  readonly meanAllocationPctDuringArrivals: number;
  /** Allocated GPU % over time: the time-weighted mean over each of `pct.length` equal intervals of [0, makespan]. */
  readonly allocation: { readonly intervalSeconds: number; readonly pct: readonly number[] };
  /**
   * The same over [first arrival, last arrival] (finer while jobs arrive); interval i starts at first arrival + i ×
   * `intervalSeconds`.
   */
  readonly allocationDuringArrivals: {
    readonly startSeconds: number;
    readonly intervalSeconds: number;
    readonly pct: readonly number[];
  };
  /** Every job. */
  readonly all: ClassStats;
  /** Per priority class (jobs: 0 for classes absent from the trace). */
  readonly byClass: Readonly<Record<PriorityClassName, ClassStats>>;
  /** Scheduling passes: over the whole queue, and over new arrivals only. */
  readonly passes: { readonly full: number; readonly arrivalsOnly: number };
  /** Wall time of this run, seconds. */
  readonly wallSeconds: number;
}

/** Mean ± SD over seeds of one class's figures (null where no seed had a value). */
export interface ClassSummary {
  readonly waitP50Seconds: MeanSd | null;
  readonly waitP95Seconds: MeanSd | null;
  readonly waitP99Seconds: MeanSd | null;
  readonly jctP50Seconds: MeanSd | null;
  readonly jctP95Seconds: MeanSd | null;
  readonly jctP99Seconds: MeanSd | null;
  readonly completed: MeanSd;
  readonly preemptions: MeanSd;
  readonly lostWorkGpuHours: MeanSd;
  /** Mean over seeds of the wait percentile curve (p = 0..100), seconds; empty when no seed had jobs. */
  readonly meanWaitPercentileCurveSeconds: readonly number[];
}

/** Aggregate of one policy over its seeds. */
export interface TimelinePolicySummary {
  readonly policy: string;
  readonly seeds: readonly number[];
  readonly offeredLoadPct: MeanSd | null;
  readonly meanAllocationPct: MeanSd;
  readonly meanAllocationPctDuringArrivals: MeanSd;
  readonly all: ClassSummary;
  readonly byClass: Readonly<Record<PriorityClassName, ClassSummary>>;
}

/** Everything one `gpushare simulate --replay timeline` invocation produced (the `--json` document). */
export interface TimelineReport {
  /** Discriminates this document from the packing replay's. */
  readonly replay: 'timeline';
  /** `nodes-file`: the node list as given; `sampled`: `--gpus N` shapes drawn from it per seed. */
  readonly cluster: { readonly source: 'nodes-file' | 'sampled'; readonly gpus: number; readonly nodes: number | null };
  readonly inputs: {
    readonly nodesFile: string;
    readonly podsFile: string;
    /** Rows of the pod list. */
    readonly pods: number;
    /** Pods with valid times (replayed unless unplaceable on a run's cluster). */
    readonly timedPods: number;
    /** Pods without `creation_time`, `scheduled_time` or `deletion_time` (e.g. Pending), skipped. */
    readonly skippedMissingTimes: number;
    /** Pods with `deletion_time` < `scheduled_time`, skipped. */
    readonly skippedNegativeDuration: number;
  };
  readonly settings: {
    readonly policies: readonly string[];
    readonly seeds: readonly number[];
    readonly arrivalSpeedup: number;
    readonly preemption: boolean;
    readonly checkpointIntervalSeconds: number;
    /** Planner option: a job that has run less than this (current run) is not preempted. */
    readonly minRunSeconds: number;
    /** Planner option: a job preempted this often is not preempted again; null = no limit. */
    readonly maxPreemptionsPerJob: number | null;
    readonly workloadSource: 'trace' | 'online';
    readonly qosPriority: Readonly<Record<string, number>>;
    /** Aging of the core's queue order: `agingStep` priority per `agingIntervalMs` waited, capped at the next class. */
    readonly queueAging: { readonly agingIntervalMs: number; readonly agingStep: number };
  };
  /** The formula behind `offeredLoadPct`, in words. */
  readonly offeredLoadDefinition: string;
  readonly runs: readonly TimelineRunResult[];
  readonly summary: readonly TimelinePolicySummary[];
  /** ISO time the report was made (display only). */
  readonly generatedAt: string;
}

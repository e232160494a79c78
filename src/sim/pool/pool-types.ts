/**
 * Result shapes of the pool report (`gpushare simulate --replay timeline --pool-report`), shared by
 * the runner, the JSON writer, the console table and the HTML report. Times in simulated seconds,
 * money in the price list's currency (USD).
 */
import type { AutoscalePolicy, NodeTemplate, PriorityClassName } from '../../core/index.js';
import type { MeanSd } from '../simulation-types.js';
import type { ClassStats } from '../timeline/timeline-types.js';
import type { AutoscaleCalls, GpuHoursUse } from './pool-driver.js';
import type { SharingCeiling } from './pool-jobs.js';

/** The four scenarios, in report order. */
export const POOL_SCENARIOS = ['fixed-whole', 'autoscaled-whole', 'autoscaled-sharing', 'autoscaled-hybrid'] as const;
/** One of POOL_SCENARIOS. */
export type PoolScenario = (typeof POOL_SCENARIOS)[number];

/** The label of each scenario in tables: (0), (a), (b), (c). */
export const SCENARIO_LABELS: Readonly<Record<PoolScenario, string>> = {
  'fixed-whole': '(0) fixed pool, whole GPUs',
  'autoscaled-whole': '(a) autoscaled, whole GPUs',
  'autoscaled-sharing': '(b) autoscaled, sharing (default policy)',
  'autoscaled-hybrid': '(c) autoscaled, hybrid modes',
};

/** Values over time: the time-weighted mean over each of `count` equal intervals of [0, makespan]. */
export interface PoolSeries {
  readonly intervalSeconds: number;
  /** GPUs paid for (booting nodes included). */
  readonly poolGpus: readonly number[];
  /** GPUs the running jobs reserve (milli-GPU / 1000; MIG instances by their compute slices). */
  readonly allocatedGpus: readonly number[];
  /** Jobs waiting in the queue. */
  readonly queueLength: readonly number[];
  /** Cost paid so far, at the end of each interval. */
  readonly cumulativeCost: readonly number[];
}

/** One (scenario, seed) run. */
export interface PoolRunResult {
  readonly scenario: PoolScenario;
  readonly seed: number;
  /** GPUs of the fixed pool; null for an autoscaled one. */
  readonly fixedGpus: number | null;
  /** Jobs replayed (every pod with valid times that fits a template). */
  readonly jobs: number;
  /** Pods with valid times left out: they fit no node of the pool even when it is empty. */
  readonly unplaceable: number;
  /** Time of the last completion: the pool is paid for until then. */
  readonly makespanSeconds: number;
  /** GPUs × hours paid (booting included). */
  readonly gpuHours: number;
  /** Price × hours paid. */
  readonly cost: number;
  /** Nodes paid for at some time. */
  readonly nodes: number;
  /** Most GPUs paid for at once. */
  readonly peakGpus: number;
  readonly gpuHoursByTemplate: Readonly<Record<string, number>>;
  /**
   * Mean allocation of the GPUs paid for, %: reserved milli-GPU of the running jobs (whole GPUs as
   * placed, MIG instances by their compute slices) over 1000 × GPUs paid, time-weighted.
   */
  readonly allocatedPct: number;
  /** The same with what the trace's pods asked for (their fractional requests, lost work redone included). */
  readonly requestedPct: number;
  readonly all: ClassStats;
  readonly byClass: Readonly<Record<PriorityClassName, ClassStats>>;
  /** Jobs moved off drained nodes (checkpointed and re-queued). */
  readonly drains: number;
  /** The autoscaler's calls; null for the fixed pool. */
  readonly autoscale: AutoscaleCalls | null;
  /**
   * Where the GPU-hours paid went (held by jobs, slivers beside shares, idle GPUs on nodes with
   * jobs, empty nodes, cordoned, booting; they sum to `gpuHours`); null for the fixed pool.
   */
  readonly gpuHoursUse: GpuHoursUse | null;
  readonly series: PoolSeries;
  /** Wall time of this run, seconds. */
  readonly wallSeconds: number;
}

/** Mean ± SD over seeds of one scenario. */
export interface PoolScenarioSummary {
  readonly scenario: PoolScenario;
  readonly seeds: readonly number[];
  readonly gpuHours: MeanSd;
  readonly cost: MeanSd;
  readonly allocatedPct: MeanSd;
  readonly requestedPct: MeanSd;
  readonly peakGpus: MeanSd;
  /** p95 wait of all jobs, seconds. */
  readonly waitP95Seconds: MeanSd;
  readonly waitP50Seconds: MeanSd;
  /** p95 wait per priority class (null for a class without jobs). */
  readonly waitP95ByClass: Readonly<Record<PriorityClassName, MeanSd | null>>;
  readonly preemptions: MeanSd;
  readonly drains: MeanSd;
  readonly lostWorkGpuHours: MeanSd;
  /** Whether the mean p95 wait is within the tolerance of the target. */
  readonly withinTarget: boolean;
}

/** A goal of the report, measured. */
export interface PoolGoal {
  readonly description: string;
  /** The saving measured (a fraction). */
  readonly saving: number;
  /** The saving required (a fraction). */
  readonly required: number;
  readonly met: boolean;
  /** The most any placement can save here (a fraction; pool-jobs.ts `packingBound`), where one is known. */
  readonly bound?: number;
}

/** Everything one pool report produced (the `--json` document). */
export interface PoolReport {
  readonly replay: 'pool';
  readonly inputs: {
    readonly nodesFile: string;
    readonly podsFile: string;
    readonly pods: number;
    /** Pods with valid times. */
    readonly timedPods: number;
    /** Of those, CPU-only pods, left out: the pools are of GPU nodes. */
    readonly cpuOnlyLeftOut: number;
  };
  readonly settings: {
    readonly seeds: readonly number[];
    /** K: arrival gaps divided by K, run times kept (1: the trace's own time). */
    readonly arrivalSpeedup: number;
    /** The p95-wait target every scenario is held to, seconds. */
    readonly waitTargetSeconds: number;
    /** Relative tolerance around the target (0.1: ±10%). */
    readonly tolerance: number;
    readonly checkpointIntervalSeconds: number;
    readonly preemption: boolean;
    /** Seconds from a node's request until it takes jobs. */
    readonly bootSeconds: number;
    /** Simulated seconds between the autoscaler's turns. */
    readonly autoscaleIntervalSeconds: number;
    /** Queued jobs the autoscaler sees at most per call. */
    readonly maxPendingJobs: number;
    /** Which running jobs the autoscaler's drains may move. */
    readonly drainable: 'all' | 'preemptible';
    /** The autoscaler's policy per autoscaled scenario. */
    readonly policies: Readonly<Record<Exclude<PoolScenario, 'fixed-whole'>, AutoscalePolicy>>;
    readonly hybridGpuModel: string;
    readonly priceList: {
      readonly name: string;
      readonly date: string;
      readonly sources: readonly string[];
      readonly currency: string;
      readonly vcpuPerHour: number;
      readonly memoryGiBPerHour: number;
      /** Whether hosts' vCPUs and memory are priced (else GPUs only). */
      readonly hostPrices: boolean;
      readonly gpuPerHour: Readonly<Record<string, number>>;
      readonly assumedPriceModels: readonly string[];
    };
    readonly templates: { readonly trace: readonly NodeTemplate[]; readonly hybrid: readonly NodeTemplate[] };
    /** The fixed pool: GPUs found, its nodes by template, and the sizes tried. */
    readonly fixedPool: {
      readonly gpus: number | null;
      readonly nodesByTemplate: Readonly<Record<string, number>>;
      readonly searched: readonly { readonly gpus: number; readonly waitP95Seconds: number; readonly meets: boolean }[];
    };
  };
  readonly ceiling: SharingCeiling;
  readonly runs: readonly PoolRunResult[];
  readonly summary: readonly PoolScenarioSummary[];
  readonly goals: {
    /** (b) against (a): at least 90% of the ceiling. */
    readonly sharingVsWhole: PoolGoal;
    /** (c) against (0): at least 40% of the fixed pool's GPU-hours. */
    readonly hybridVsFixed: PoolGoal;
  };
  /** ISO time the report was made (display only). */
  readonly generatedAt: string;
}

/** The parts of GpuHoursUse in the order reports print them, with their column names. */
export const GPU_HOURS_USE_COLUMNS: readonly (readonly [keyof GpuHoursUse, string])[] = [
  ['held', 'held by jobs'],
  ['slivers', 'slivers beside shares'],
  ['idleOnBusyNodes', 'idle GPUs on nodes with jobs'],
  ['emptyNodes', 'empty nodes'],
  ['cordoned', 'cordoned'],
  ['booting', 'booting'],
];

/** Per autoscaled scenario of `runs`, the mean over its seeds of where the GPU-hours paid went. */
export function meanGpuHoursUse(runs: readonly PoolRunResult[]): [PoolScenario, GpuHoursUse][] {
  const out: [PoolScenario, GpuHoursUse][] = [];
  for (const scenario of POOL_SCENARIOS) {
    const uses = runs.filter((r) => r.scenario === scenario && r.gpuHoursUse !== null).map((r) => r.gpuHoursUse!);
    if (uses.length === 0) continue;
    const mean = (k: keyof GpuHoursUse): number => uses.reduce((sum, u) => sum + u[k], 0) / uses.length;
    out.push([
      scenario,
      Object.fromEntries(GPU_HOURS_USE_COLUMNS.map(([k]) => [k, mean(k)])) as unknown as GpuHoursUse,
    ]);
  }
  return out;
}

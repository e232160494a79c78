/**
 * Per-pod statistics of a window (the first half: what a placement may know), and which pods a
 * run places and judges: the rule for pods missing from one file, from the judged window, or with
 * too few samples to place by.
 */
import { mean, nearestRank } from '../../lib/statistics.js';
import type { GenaiTrace, PodSeries } from './genai-trace.js';
import type { TimeWindow } from './time-windows.js';

/**
 * Samples of each kind a pod needs in the window it is placed from: 60, an hour of the GenAI
 * trace's 57-s grid, so that its peak and its duty-cycle distribution are more than a glimpse.
 */
export const MIN_FIT_SAMPLES = 60;

/** A pod's statistics over a window, from its samples there (not filled). */
export interface WindowStats {
  readonly pod: string;
  readonly memorySamples: number;
  readonly dutySamples: number;
  /** Highest memory sample, MiB; 0 without samples. */
  readonly peakMemoryMiB: number;
  /** Mean duty cycle, percent; 0 without samples. */
  readonly meanDutyPct: number;
  /** Nearest-rank percentiles of the duty cycle, percent; 0 without samples. */
  readonly p50DutyPct: number;
  readonly p90DutyPct: number;
  readonly p99DutyPct: number;
}

/** The samples of `values` in `window` (NaN = none), ascending. */
function samplesIn(values: Float64Array, window: TimeWindow): number[] {
  const found: number[] = [];
  for (let i = window.start; i < window.end; i++) if (!Number.isNaN(values[i]!)) found.push(values[i]!);
  return found.sort((a, b) => a - b);
}

/** The statistics of `series` over `window`. */
export function windowStats(series: PodSeries, window: TimeWindow): WindowStats {
  const memory = samplesIn(series.memoryMiB, window);
  const duty = samplesIn(series.dutyPct, window);
  return {
    pod: series.pod,
    memorySamples: memory.length,
    dutySamples: duty.length,
    peakMemoryMiB: memory.length === 0 ? 0 : memory[memory.length - 1]!,
    meanDutyPct: duty.length === 0 ? 0 : mean(duty),
    p50DutyPct: nearestRank(duty, 50) ?? 0,
    p90DutyPct: nearestRank(duty, 90) ?? 0,
    p99DutyPct: nearestRank(duty, 99) ?? 0,
  };
}

/** The pods a run places and judges, and how many were left out, by reason. */
export interface PodSelection {
  /** Pods in both files, with `MIN_FIT_SAMPLES` of each kind in the fit window and a sample in the judged one. */
  readonly pods: readonly PodSeries[];
  /** Pods in one file only. */
  readonly inOneFileOnly: number;
  /** Pods with no sample in the judged window (they ended before it: no GPU is needed for them there). */
  readonly absentWhenJudged: number;
  /** Pods in the judged window with too few samples in the fit window to be placed from (most start later). */
  readonly tooFewFitSamples: number;
}

/** Whether `series` has a sample of either kind in `window`. */
function hasSampleIn(series: PodSeries, window: TimeWindow): boolean {
  for (let i = window.start; i < window.end; i++)
    if (!Number.isNaN(series.dutyPct[i]!) || !Number.isNaN(series.memoryMiB[i]!)) return true;
  return false;
}

/** Counts the samples of `values` in `window`. */
function countIn(values: Float64Array, window: TimeWindow): number {
  let n = 0;
  for (let i = window.start; i < window.end; i++) if (!Number.isNaN(values[i]!)) n++;
  return n;
}

/**
 * The pods placed from `fit` and judged on `judged`, by the rule: in both files; in `judged`, at
 * least one sample (else the pod is counted `absentWhenJudged`); in `fit`, at least
 * `minFitSamples` samples of each kind (else `tooFewFitSamples`).
 */
export function selectPods(
  trace: GenaiTrace,
  fit: TimeWindow,
  judged: TimeWindow,
  minFitSamples = MIN_FIT_SAMPLES,
): PodSelection {
  const pods: PodSeries[] = [];
  let absentWhenJudged = 0;
  let tooFewFitSamples = 0;
  for (const series of trace.pods) {
    if (!hasSampleIn(series, judged)) absentWhenJudged++;
    else if (Math.min(countIn(series.memoryMiB, fit), countIn(series.dutyPct, fit)) < minFitSamples) tooFewFitSamples++;
    else pods.push(series);
  }
  return {
    pods,
    inOneFileOnly: trace.dutyOnlyPods.length + trace.memoryOnlyPods.length,
    absentWhenJudged,
    tooFewFitSamples,
  };
}

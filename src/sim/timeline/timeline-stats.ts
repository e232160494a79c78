/**
 * Per-run statistics of the timeline replay: nearest-rank percentiles of wait and completion
 * times, preemptions and lost work, per priority class.
 */
import { nearestRank } from '../../lib/statistics.js';
import { priorityClassOf, type PriorityClassName } from '../../core/index.js';
import type { JobOutcome } from './timeline-engine.js';
import { CLASS_ORDER, type ClassStats, type Percentiles } from './timeline-types.js';

function percentiles(sorted: readonly number[]): Percentiles {
  return { p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95), p99: nearestRank(sorted, 99) };
}

/**
 * Statistics of a group of finished jobs.
 * @param outcomes the jobs (any order)
 */
export function classStats(outcomes: readonly JobOutcome[]): ClassStats {
  const waits = outcomes.map((o) => o.waitSeconds).sort((a, b) => a - b);
  const jcts = outcomes.map((o) => o.endSeconds - o.job.arrivalSeconds).sort((a, b) => a - b);
  return {
    jobs: outcomes.length,
    completed: outcomes.filter((o) => Number.isFinite(o.endSeconds)).length,
    waitSeconds: percentiles(waits),
    jctSeconds: percentiles(jcts),
    preemptions: outcomes.reduce((s, o) => s + o.preemptions, 0),
    lostWorkGpuHours: outcomes.reduce((s, o) => s + o.lostWorkGpuSeconds, 0) / 3600,
    waitPercentileCurveSeconds: waits.length === 0 ? [] : Array.from({ length: 101 }, (_, p) => nearestRank(waits, p)!),
  };
}

/** {@link classStats} of all jobs and of each priority class (by `priorityClassOf`). */
export function statsByClass(outcomes: readonly JobOutcome[]): {
  all: ClassStats;
  byClass: Record<PriorityClassName, ClassStats>;
} {
  const groups = new Map<PriorityClassName, JobOutcome[]>(CLASS_ORDER.map((c) => [c, []]));
  for (const o of outcomes) groups.get(priorityClassOf(o.job.priority))!.push(o);
  const byClass = Object.fromEntries(CLASS_ORDER.map((c) => [c, classStats(groups.get(c)!)])) as Record<
    PriorityClassName,
    ClassStats
  >;
  return { all: classStats(outcomes), byClass };
}

/**
 * Mean offered load in % of capacity: Σ(GPU-equivalents × duration) / (capacity GPUs × (last
 * arrival − first arrival)) × 100.
 * @returns null when there are fewer than two distinct arrival times or no capacity
 */
export function offeredLoadPct(outcomes: readonly JobOutcome[], capacityGpus: number): number | null {
  if (outcomes.length === 0 || capacityGpus <= 0) return null;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let work = 0;
  for (const o of outcomes) {
    first = Math.min(first, o.job.arrivalSeconds);
    last = Math.max(last, o.job.arrivalSeconds);
    work += o.gpuEquivalents * o.job.durationSeconds;
  }
  return last > first ? (100 * work) / (capacityGpus * (last - first)) : null;
}

/**
 * Aggregation of timeline runs into one summary per policy: mean and sample SD over seeds.
 */
import { meanSd } from '../../lib/statistics.js';
import type { MeanSd } from '../simulation-types.js';
import {
  CLASS_ORDER,
  type ClassStats,
  type ClassSummary,
  type TimelinePolicySummary,
  type TimelineRunResult,
} from './timeline-types.js';

/** meanSd over the non-null values; null when there are none. */
export function meanSdOf(values: readonly (number | null)[]): MeanSd | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : meanSd(present);
}

function summarizeClass(stats: readonly ClassStats[]): ClassSummary {
  const curves = stats.map((s) => s.waitPercentileCurveSeconds).filter((c) => c.length > 0);
  return {
    waitP50Seconds: meanSdOf(stats.map((s) => s.waitSeconds.p50)),
    waitP95Seconds: meanSdOf(stats.map((s) => s.waitSeconds.p95)),
    waitP99Seconds: meanSdOf(stats.map((s) => s.waitSeconds.p99)),
    jctP50Seconds: meanSdOf(stats.map((s) => s.jctSeconds.p50)),
    jctP95Seconds: meanSdOf(stats.map((s) => s.jctSeconds.p95)),
    jctP99Seconds: meanSdOf(stats.map((s) => s.jctSeconds.p99)),
    completed: meanSd(stats.map((s) => s.completed)),
    preemptions: meanSd(stats.map((s) => s.preemptions)),
    lostWorkGpuHours: meanSd(stats.map((s) => s.lostWorkGpuHours)),
    meanWaitPercentileCurveSeconds:
      curves.length === 0 ? [] : curves[0]!.map((_, p) => curves.reduce((s, c) => s + c[p]!, 0) / curves.length),
  };
}

/**
 * Summarizes runs per policy, in the order each policy first appears; seeds keep their order.
 * @param runs results of one or more (policy, seed) runs
 */
export function summarizeTimelineRuns(runs: readonly TimelineRunResult[]): TimelinePolicySummary[] {
  const byPolicy = new Map<string, TimelineRunResult[]>();
  for (const run of runs) {
    const list = byPolicy.get(run.policy) ?? [];
    list.push(run);
    byPolicy.set(run.policy, list);
  }
  return [...byPolicy].map(([policy, list]) => ({
    policy,
    seeds: list.map((r) => r.seed),
    offeredLoadPct: meanSdOf(list.map((r) => r.offeredLoadPct)),
    meanAllocationPct: meanSd(list.map((r) => r.meanAllocationPct)),
    meanAllocationPctDuringArrivals: meanSd(list.map((r) => r.meanAllocationPctDuringArrivals)),
    all: summarizeClass(list.map((r) => r.all)),
    byClass: Object.fromEntries(
      CLASS_ORDER.map((c) => [c, summarizeClass(list.map((r) => r.byClass[c]))]),
    ) as TimelinePolicySummary['byClass'],
  }));
}

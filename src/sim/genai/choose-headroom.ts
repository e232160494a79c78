/**
 * The headroom above each pod's peak memory, chosen inside the fit window only (the judged half is
 * never looked at): the fit window's own first half plays the fit window and its second half the
 * judged one, and the headroom is the smallest of a grid under which that rehearsal has no memory
 * overrun. Memory is what the headroom is for; the interference rule is kept by the placement.
 */
import { packRun } from './pack-run.js';
import type { PackGpuModel } from './place-by-use.js';
import { podLoadOf } from './pod-load.js';
import { selectPods, windowStats } from './pod-stats.js';
import type { GenaiTrace } from './genai-trace.js';
import { splitByTime, type TimeWindow } from './time-windows.js';

/** The headrooms tried, in order: 0, 5%, …, 100% of the peak. */
export const HEADROOM_GRID: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);

/** One headroom tried in the rehearsal. */
export interface HeadroomTrial {
  readonly headroom: number;
  readonly gpus: number;
  readonly memoryOverrunGpuMinutes: number;
}

/** The headroom chosen, and the trials up to it. */
export interface HeadroomChoice {
  readonly headroom: number;
  /** False when no headroom of the grid avoided an overrun (then the grid's largest is taken). */
  readonly found: boolean;
  /** The rehearsal's windows (quarters of the trace when `fit` is its first half). */
  readonly rehearsal: { readonly fit: TimeWindow; readonly judged: TimeWindow };
  /** Pods in the rehearsal (the selection rule of pod-stats.ts on its windows). */
  readonly pods: number;
  readonly trials: readonly HeadroomTrial[];
}

/**
 * Chooses the headroom for `model` from `fit` alone: the smallest of HEADROOM_GRID under which
 * pods placed from the first half of `fit` (the rule kept at `maxOverloadPct`) have no memory
 * overrun in its second half. Samples are filled over `lookback` instants (pod-load.ts).
 */
export function chooseHeadroom(
  trace: GenaiTrace,
  fit: TimeWindow,
  model: PackGpuModel,
  maxOverloadPct: number,
  lookback: number,
): HeadroomChoice {
  const [early, late] = splitByTime(trace.instantsSeconds, fit);
  const { pods } = selectPods(trace, early, late);
  const runPods = { loads: pods.map((p) => podLoadOf(p, lookback)), fitStats: pods.map((p) => windowStats(p, early)) };
  const rehearsal = { fit: early, judged: late };
  const trials: HeadroomTrial[] = [];
  for (const headroom of HEADROOM_GRID) {
    const { onJudged } = packRun(runPods, model, rehearsal, headroom, maxOverloadPct);
    trials.push({ headroom, gpus: onJudged.gpus, memoryOverrunGpuMinutes: onJudged.memoryOverrunGpuMinutes });
    if (onJudged.memoryOverrunGpuMinutes === 0) return { headroom, found: true, rehearsal, pods: pods.length, trials };
  }
  return { headroom: HEADROOM_GRID[HEADROOM_GRID.length - 1]!, found: false, rehearsal, pods: pods.length, trials };
}

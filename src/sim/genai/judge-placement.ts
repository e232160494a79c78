/**
 * Judges a placement on a window (the held-out second half): GPUs, how busy they are, how often
 * the interference rule breaks, and whether the co-located memory ever exceeds the GPU's.
 */
import { GpuTimeline, keepsRule, OVERLOAD_ABOVE_PCT } from './gpu-timeline.js';
import type { PodLoad } from './pod-load.js';
import { windowLength, type TimeWindow } from './time-windows.js';

/** The figures of a placement over a window. Minutes are instants of the grid (57 s). */
export interface Judgement {
  readonly gpus: number;
  readonly pods: number;
  /** GPUs × instants of the window: every GPU is held for the whole window. */
  readonly gpuMinutes: number;
  /** GPU-minutes at which the GPU runs at least one present pod. */
  readonly occupiedGpuMinutes: number;
  /** Mean over all GPU-minutes of the co-located duty-cycle sum capped at 100, percent. */
  readonly meanBusyPct: number;
  /** GPU-minutes whose co-located duty-cycle sum is over 100%. */
  readonly overloadedGpuMinutes: number;
  /** Overloaded GPU-minutes, % of the occupied GPU-minutes (0 when none is occupied). */
  readonly overloadedPct: number;
  /** GPUs that break the rule on their own minutes (overloaded on more than the allowed %). */
  readonly gpusBreakingRule: number;
  /** GPUs overloaded at least once. */
  readonly gpusEverOverloaded: number;
  /** GPU-minutes whose co-located memory is over the GPU's memory. */
  readonly memoryOverrunGpuMinutes: number;
  /** GPUs with at least one memory overrun. */
  readonly gpusWithMemoryOverrun: number;
  /** Highest co-located memory of a GPU at any instant, MiB. */
  readonly peakGpuMemoryMiB: number;
}

/**
 * Judges `gpus` (each the loads of its pods) over `window` for GPUs of `gpuMemoryMiB`, the rule's
 * bound being `maxOverloadPct` % of a GPU's occupied minutes.
 */
export function judgePlacement(
  gpus: readonly (readonly PodLoad[])[],
  window: TimeWindow,
  gpuMemoryMiB: number,
  maxOverloadPct: number,
): Judgement {
  let busySum = 0;
  let occupied = 0;
  let overloaded = 0;
  let breaking = 0;
  let everOverloaded = 0;
  let overrun = 0;
  let withOverrun = 0;
  let peak = 0;
  for (const loads of gpus) {
    const timeline = new GpuTimeline(window);
    for (const load of loads) timeline.add(load);
    const count = timeline.overload();
    let gpuOverrun = 0;
    for (let k = 0; k < timeline.present.length; k++) {
      busySum += Math.min(OVERLOAD_ABOVE_PCT, timeline.dutySumPct[k]!);
      peak = Math.max(peak, timeline.memorySumMiB[k]!);
      if (timeline.memorySumMiB[k]! > gpuMemoryMiB) gpuOverrun++;
    }
    occupied += count.occupied;
    overloaded += count.overloaded;
    if (!keepsRule(count, maxOverloadPct)) breaking++;
    if (count.overloaded > 0) everOverloaded++;
    overrun += gpuOverrun;
    if (gpuOverrun > 0) withOverrun++;
  }
  const gpuMinutes = gpus.length * windowLength(window);
  return {
    gpus: gpus.length,
    pods: gpus.reduce((n, loads) => n + loads.length, 0),
    gpuMinutes,
    occupiedGpuMinutes: occupied,
    meanBusyPct: gpuMinutes === 0 ? 0 : busySum / gpuMinutes,
    overloadedGpuMinutes: overloaded,
    overloadedPct: occupied === 0 ? 0 : (100 * overloaded) / occupied,
    gpusBreakingRule: breaking,
    gpusEverOverloaded: everOverloaded,
    memoryOverrunGpuMinutes: overrun,
    gpusWithMemoryOverrun: withOverrun,
    peakGpuMemoryMiB: peak,
  };
}

/**
 * One packing run: requests from the fit window's statistics with a headroom, the placement
 * through the core (place-by-use.ts), and its judgement on the fit window and on the judged one.
 */
import { judgePlacement, type Judgement } from './judge-placement.js';
import { placeByUse, type PackGpuModel, type UsePlacement } from './place-by-use.js';
import type { PodLoad } from './pod-load.js';
import { requestOf } from './pod-request.js';
import type { WindowStats } from './pod-stats.js';
import type { TimeWindow } from './time-windows.js';

/** The pods of a run: each one's load on the grid and its statistics over the fit window (same order). */
export interface RunPods {
  readonly loads: readonly PodLoad[];
  readonly fitStats: readonly WindowStats[];
}

/** What one run gives. */
export interface PackRun {
  readonly placement: UsePlacement;
  /** The placement judged on the fit window (where the rule was kept). */
  readonly onFit: Judgement;
  /** The placement judged on the judged window. */
  readonly onJudged: Judgement;
}

/** The loads of each GPU of `placement`. */
export function gpuLoads(placement: UsePlacement, loads: readonly PodLoad[]): PodLoad[][] {
  return placement.gpus.map((pods) => pods.map((i) => loads[i]!));
}

/**
 * Places `pods` on `model` from their statistics with `headroom`, keeping the rule
 * (`maxOverloadPct`) over `fit`, and judges the placement on `fit` and on `judged`.
 */
export function packRun(
  pods: RunPods,
  model: PackGpuModel,
  windows: { readonly fit: TimeWindow; readonly judged: TimeWindow },
  headroom: number,
  maxOverloadPct: number,
): PackRun {
  const toPlace = pods.loads.map((load, i) => ({ load, request: requestOf(pods.fitStats[i]!, headroom) }));
  const placement = placeByUse(toPlace, model, windows.fit, maxOverloadPct);
  const gpus = gpuLoads(placement, pods.loads);
  return {
    placement,
    onFit: judgePlacement(gpus, windows.fit, model.gpuMemoryMiB, maxOverloadPct),
    onJudged: judgePlacement(gpus, windows.judged, model.gpuMemoryMiB, maxOverloadPct),
  };
}

/**
 * The scheduling profile pack-by-use places with: the core's `best-fit` profile (its filters:
 * host resources, GPU model, milli-GPU and GPU memory free) with two changes made through the
 * core's `adjustProfile` (docs/decisions/0029-pack-by-use-through-the-core.md):
 *
 * - the score is memory best fit: the GPU left with the least free memory wins (the core's scores
 *   rank by milli-GPU, and here memory decides how many pods fit);
 * - a filter keeps the interference rule: a GPU whose co-located duty cycles, with the pod's,
 *   would break it over the fit window (gpu-timeline.ts) is refused.
 *
 * Nodes have one GPU each (a node is a GPU here).
 */
import { status, WAIT_CODES, type NodeState, type SchedulingProfile } from '../../core/index.js';
import { keepsRule, type GpuTimeline } from './gpu-timeline.js';
import type { PodLoad } from './pod-load.js';

type ScorePlugin = SchedulingProfile['scores'][number]['plugin'];
type FilterPlugin = SchedulingProfile['filters'][number];

/** What the overload filter reads: each node's GPU timeline, the pod being placed and the rule's bound. */
export interface OverloadContext {
  /** By node index. */
  readonly timelines: readonly GpuTimeline[];
  /** The pod the next pass places (set before each pass). */
  current: PodLoad | null;
  /** The rule's bound, percent of the occupied minutes. */
  readonly maxOverloadPct: number;
}

/** Name of the memory best-fit score. */
export const MEMORY_BEST_FIT = 'memory-best-fit';
/** Name of the interference filter. */
export const OVERLOAD_FILTER = 'duty-overload';

/** Memory best fit: raw score −(free memory after the placement); normalized so the best nodes get 100. */
export function createMemoryBestFit(): ScorePlugin {
  return {
    name: MEMORY_BEST_FIT,
    cacheable: true,
    score: ({ pod }, node: NodeState) => -(node.gpuFreeMemoryMiB[0]! - pod.gpuMemoryMiB),
    normalize(_ctx, _feasible, scores) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of scores) [lo, hi] = [Math.min(lo, s), Math.max(hi, s)];
      for (let i = 0; i < scores.length; i++)
        scores[i] = scores[i] === hi ? 100 : Math.floor((99 * (scores[i]! - lo)) / (hi - lo));
    },
  };
}

/** The interference filter over `context`. */
export function createOverloadFilter(context: OverloadContext): FilterPlugin {
  return {
    name: OVERLOAD_FILTER,
    filter(_ctx, node) {
      const timeline = context.timelines[node.index]!;
      if (context.current === null || timeline.podCount === 0) return null;
      const count = timeline.overload(context.current);
      return keepsRule(count, context.maxOverloadPct)
        ? null
        : status(WAIT_CODES.gpuCapacity, false, {
            overloadedMinutes: count.overloaded,
            occupiedMinutes: count.occupied,
          });
    },
  };
}

/** `base` with the overload filter added and memory best fit as its only score. */
export function useProfile(base: SchedulingProfile, context: OverloadContext): SchedulingProfile {
  return {
    ...base,
    name: 'pack-by-use',
    filters: [...base.filters, createOverloadFilter(context)],
    scores: [{ plugin: createMemoryBestFit(), weight: 1 }],
  };
}

/**
 * A pod's request from its statistics over the fit window: what gpushare would ask the core to
 * reserve for it on a shared (MPS) GPU.
 */
import { GPU_MILLI_PER_GPU } from '../../core/index.js';
import type { WindowStats } from './pod-stats.js';

/** The GPU part of a pod's request, per GPU. */
export interface UseRequest {
  /** ⌈peak memory × (1 + headroom)⌉, MiB (at least 1). */
  readonly gpuMemoryMiB: number;
  /**
   * ⌈mean duty cycle × 10⌉ milli-GPU, in 1..1000: the compute the pod uses on average, so that the
   * shares on a GPU add up to at most 1000 only if the mean duty cycles add up to at most 100%
   * (without which the interference rule cannot hold); the tail is the rule's.
   */
  readonly gpuMilli: number;
}

/**
 * The request of a pod with `stats`, with `headroom` (a fraction ≥ 0) above its peak memory.
 * @throws RangeError for a negative or non-finite headroom
 */
export function requestOf(stats: WindowStats, headroom: number): UseRequest {
  if (!(headroom >= 0 && Number.isFinite(headroom))) throw new RangeError(`headroom must be ≥ 0, got ${headroom}`);
  return {
    gpuMemoryMiB: Math.max(1, Math.ceil(stats.peakMemoryMiB * (1 + headroom))),
    gpuMilli: Math.min(GPU_MILLI_PER_GPU, Math.max(1, Math.ceil(stats.meanDutyPct * 10))),
  };
}

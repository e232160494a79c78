/**
 * One GPU's co-located load over a window, instant by instant, and the interference rule on it
 * (docs/pack-by-use.md "The interference rule"): the chance that the duty cycles of the pods on the
 * GPU add up to more than 100% in a minute (an instant of the grid, 57 s) is at most the allowed
 * share of the minutes the GPU runs a pod.
 */
import type { PodLoad } from './pod-load.js';
import { windowLength, type TimeWindow } from './time-windows.js';

/** A co-located duty-cycle sum above this, percent, is an overload: more work than the GPU has time for. */
export const OVERLOAD_ABOVE_PCT = 100;

/** Minutes of a GPU in a window: those it runs a pod, and those among them it is overloaded. */
export interface OverloadCount {
  /** Instants at which at least one of its pods is present. */
  readonly occupied: number;
  /** Instants at which its pods' duty cycles add up to more than 100%. */
  readonly overloaded: number;
}

/**
 * Whether `count` keeps the rule: overloaded ≤ `maxOverloadPct` % of the occupied minutes (a GPU
 * that runs nothing keeps it).
 */
export function keepsRule(count: OverloadCount, maxOverloadPct: number): boolean {
  return count.overloaded * 100 <= maxOverloadPct * count.occupied;
}

/** The sums of the loads of the pods on one GPU over a window. */
export class GpuTimeline {
  /** Σ duty cycle, percent, per instant of the window. */
  readonly dutySumPct: Float64Array;
  /** Σ memory, MiB, per instant of the window. */
  readonly memorySumMiB: Float64Array;
  /** Pods present, per instant of the window. */
  readonly present: Int32Array;
  private pods = 0;

  constructor(readonly window: TimeWindow) {
    const n = windowLength(window);
    this.dutySumPct = new Float64Array(n);
    this.memorySumMiB = new Float64Array(n);
    this.present = new Int32Array(n);
  }

  /** Number of pods added. */
  get podCount(): number {
    return this.pods;
  }

  /** Adds a pod's load (its instants in the window). */
  add(load: PodLoad): void {
    const { start } = this.window;
    for (let k = 0; k < this.present.length; k++) {
      this.dutySumPct[k] = this.dutySumPct[k]! + load.dutyPct[start + k]!;
      this.memorySumMiB[k] = this.memorySumMiB[k]! + load.memoryMiB[start + k]!;
      this.present[k] = this.present[k]! + load.present[start + k]!;
    }
    this.pods++;
  }

  /** The GPU's overload count, with `extra` added if given (a what-if: nothing is kept). */
  overload(extra?: PodLoad): OverloadCount {
    const { start } = this.window;
    let occupied = 0;
    let overloaded = 0;
    for (let k = 0; k < this.present.length; k++) {
      const present = this.present[k]! + (extra ? extra.present[start + k]! : 0);
      if (present === 0) continue;
      occupied++;
      if (this.dutySumPct[k]! + (extra ? extra.dutyPct[start + k]! : 0) > OVERLOAD_ABOVE_PCT) overloaded++;
    }
    return { occupied, overloaded };
  }
}

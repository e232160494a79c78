/**
 * What a pod puts on its GPU at each instant of the grid: its duty cycle and memory, a missing
 * sample filled by the pod's last one for up to the lookback (time-windows.ts), and absent (0)
 * before its first sample and after that. The co-located sums of the interference rule, the
 * judge and the memory check are sums of these.
 */
import type { PodSeries } from './genai-trace.js';

/** A pod's load on its GPU, on the grid of its trace. */
export interface PodLoad {
  readonly pod: string;
  /** Duty cycle, percent; 0 where the pod is absent. */
  readonly dutyPct: Float64Array;
  /** GPU memory used, MiB; 0 where the pod is absent. */
  readonly memoryMiB: Float64Array;
  /** 1 where the pod is present (a sample of either kind is current), else 0. */
  readonly present: Uint8Array;
}

/** `values` with each gap of at most `lookback` instants after a sample filled by that sample; NaN elsewhere. */
export function fillForward(values: Float64Array, lookback: number): Float64Array {
  const filled = new Float64Array(values.length);
  let last = Number.NaN;
  let age = 0;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i]!)) {
      last = values[i]!;
      age = 0;
    } else age++;
    filled[i] = age <= lookback ? last : Number.NaN;
  }
  return filled;
}

/**
 * The load of `series`: each series filled forward over `lookback` instants; the pod is present
 * where either is current, and a value that is not current counts 0.
 */
export function podLoadOf(series: PodSeries, lookback: number): PodLoad {
  const duty = fillForward(series.dutyPct, lookback);
  const memory = fillForward(series.memoryMiB, lookback);
  const present = new Uint8Array(duty.length);
  for (let i = 0; i < duty.length; i++) {
    present[i] = Number.isNaN(duty[i]!) && Number.isNaN(memory[i]!) ? 0 : 1;
    if (Number.isNaN(duty[i]!)) duty[i] = 0;
    if (Number.isNaN(memory[i]!)) memory[i] = 0;
  }
  return { pod: series.pod, dutyPct: duty, memoryMiB: memory, present };
}

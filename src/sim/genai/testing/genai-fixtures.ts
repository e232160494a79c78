/**
 * Small hand-made GenAI traces for tests: pods given as arrays of duty cycles (percent) and memory
 * (MiB) on a grid of instants 60 s apart, `null` for a missing sample.
 */
import type { GenaiTrace, PodSeries } from '../genai-trace.js';

/** One pod of a fixture: its samples per instant (`null`: none). */
export interface FixturePod {
  readonly duty: readonly (number | null)[];
  readonly memoryMiB: readonly (number | null)[];
}

const series = (values: readonly (number | null)[]): Float64Array =>
  Float64Array.from(values, (v) => (v === null ? Number.NaN : v));

/** A pod's series from its samples. */
export function podSeries(pod: string, samples: FixturePod): PodSeries {
  return { pod, dutyPct: series(samples.duty), memoryMiB: series(samples.memoryMiB) };
}

/**
 * A trace of `pods` (by name; every array as long as the grid) on instants 0, 60, 120, … s.
 * @throws RangeError when the arrays are not all of one length
 */
export function fixtureTrace(pods: Readonly<Record<string, FixturePod>>): GenaiTrace {
  const lengths = new Set(Object.values(pods).flatMap((p) => [p.duty.length, p.memoryMiB.length]));
  if (lengths.size !== 1) throw new RangeError(`fixture arrays differ in length: ${[...lengths].join(', ')}`);
  const [length] = lengths;
  return {
    instantsSeconds: Array.from({ length: length! }, (_, i) => 60 * i),
    pods: Object.keys(pods)
      .sort()
      .map((name) => podSeries(name, pods[name]!)),
    dutyOnlyPods: [],
    memoryOnlyPods: [],
  };
}

/** `n` copies of `value`. */
export function repeat<T>(value: T, n: number): T[] {
  return Array.from({ length: n }, () => value);
}

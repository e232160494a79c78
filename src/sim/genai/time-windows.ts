/**
 * Windows of a trace's grid of instants: the halves by time (placed on the first, judged on the
 * second), and the grid's step and the lookback that fills a missing sample.
 */

/** The instants `start` .. `end - 1` of a grid (indices; `start` ≤ `end`). */
export interface TimeWindow {
  readonly start: number;
  readonly end: number;
}

/**
 * How long a sample stays the pod's current value when the next one is missing, seconds: the
 * default lookback of a Prometheus instant query (`--query.lookback-delta`, 5 minutes; Prometheus
 * docs, "Querying basics: Staleness"), as the samples were collected by such a system.
 */
export const LOOKBACK_SECONDS = 300;

/** The whole grid of `instantsSeconds` as a window. */
export function wholeWindow(instantsSeconds: readonly number[]): TimeWindow {
  return { start: 0, end: instantsSeconds.length };
}

/** Number of instants in `window`. */
export function windowLength(window: TimeWindow): number {
  return window.end - window.start;
}

/**
 * Splits `window` at the midpoint of its time span, (first + last) / 2: the instants before the
 * midpoint, and the rest. On the GenAI grid (1,441 instants 57 s apart) the halves have 720 and
 * 721 instants.
 * @throws RangeError for a window of fewer than 2 instants
 */
export function splitByTime(instantsSeconds: readonly number[], window: TimeWindow): [TimeWindow, TimeWindow] {
  if (windowLength(window) < 2) throw new RangeError(`a window of ${windowLength(window)} instants cannot be split`);
  const midpoint = (instantsSeconds[window.start]! + instantsSeconds[window.end - 1]!) / 2;
  let cut = window.start;
  while (instantsSeconds[cut]! < midpoint) cut++;
  return [
    { start: window.start, end: cut },
    { start: cut, end: window.end },
  ];
}

/**
 * The grid's step in seconds: its most common gap between instants (the smallest such gap on a
 * tie); 57 on the GenAI grid.
 * @throws RangeError for a grid of fewer than 2 instants
 */
export function stepSecondsOf(instantsSeconds: readonly number[]): number {
  if (instantsSeconds.length < 2) throw new RangeError('a grid of fewer than 2 instants has no step');
  const counts = new Map<number, number>();
  for (let i = 1; i < instantsSeconds.length; i++) {
    const gap = instantsSeconds[i]! - instantsSeconds[i - 1]!;
    counts.set(gap, (counts.get(gap) ?? 0) + 1);
  }
  let best = Number.POSITIVE_INFINITY;
  let bestCount = 0;
  for (const [gap, count] of counts)
    if (count > bestCount || (count === bestCount && gap < best)) [best, bestCount] = [gap, count];
  return best;
}

/** Instants a sample stays current after it: ⌊LOOKBACK_SECONDS / step⌋ (5 on the GenAI grid). */
export function lookbackSteps(instantsSeconds: readonly number[]): number {
  return Math.floor(LOOKBACK_SECONDS / stepSecondsOf(instantsSeconds));
}

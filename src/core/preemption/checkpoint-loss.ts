/**
 * How much run time a stopped job loses (docs/preemption.md "Lost work"): what it ran since its
 * last checkpoint. Pure arithmetic, shared by the pass's victim costs (choose-preemption.ts) and
 * the simulator's accounting of what a preempted job redoes.
 */

/**
 * Seconds of the current attempt lost if the job stops now, after it has run `ranSeconds` in this
 * attempt. With a checkpoint every `checkpointIntervalSeconds` of run time, counted from the
 * attempt's start (an attempt that resumes starts at a checkpoint), that is `ran mod interval`;
 * with null (no checkpoint known) the whole attempt, `ran`. A negative `ranSeconds` counts as 0.
 * Examples: 2000 s run, interval 1800 → 200; 1000 s run, null → 1000.
 * @throws RangeError when `ranSeconds` is not finite, or the interval is not a finite number > 0
 */
export function secondsSinceCheckpoint(ranSeconds: number, checkpointIntervalSeconds: number | null): number {
  if (!Number.isFinite(ranSeconds)) throw new RangeError(`ranSeconds must be finite, got ${ranSeconds}`);
  const ran = Math.max(0, ranSeconds);
  if (checkpointIntervalSeconds === null) return ran;
  if (!(Number.isFinite(checkpointIntervalSeconds) && checkpointIntervalSeconds > 0))
    throw new RangeError(`checkpointIntervalSeconds must be a finite number > 0, got ${checkpointIntervalSeconds}`);
  return ran - Math.floor(ran / checkpointIntervalSeconds) * checkpointIntervalSeconds;
}

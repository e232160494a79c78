/**
 * Queueing hints of the server's scheduling passes (docs/server.md "Passes at depth"): a pass
 * runs only when something happened since the last one that can change its outcome, as the
 * kube-scheduler moves an unschedulable pod back to its active queue only on the cluster events
 * its plugins register (`EventsToRegister`, `QueueingHintFn`). The events are:
 * - a job joined the queue (`submitted`, `requeued`: a failed attempt with retries left, a
 *   preempted job, a launch the full disk sent back) or left it while pending (`dequeued`: the
 *   blocked job that backfill protects may be the one cancelled);
 * - resources were freed (`job-ended`, `launch-failed`);
 * - the GPUs changed (`gpus-changed`: inventory, health, cordons, a MIG reconfiguration);
 * - a QoS violation began or ended (`qos-changed`: protected GPUs);
 * - a tenant's quota changed (noticed by comparing the tenants' quotas at each timer pass);
 * - the disk has room again (`disk-recovered`);
 * - a time the last pass said matters came (`time`: a running job reaching the preemption
 *   guard's minimum run time while a job waits);
 * - and, as a safety net, `flush`: a full pass at least every {@link FLUSH_INTERVAL_MS} (the
 *   kube-scheduler flushes its unschedulable pods after 5 minutes too).
 * With none of these, the timer's pass is skipped: its cost does not grow with the queue.
 */

/** What made a pass due. */
export type PassCause =
  | 'start'
  | 'submitted'
  | 'requeued'
  | 'dequeued'
  | 'job-ended'
  | 'launch-failed'
  | 'gpus-changed'
  | 'qos-changed'
  | 'quota-changed'
  | 'disk-recovered'
  | 'time'
  | 'flush';

/** Longest time between two passes that run, ms (5 minutes). */
export const FLUSH_INTERVAL_MS = 5 * 60_000;

/** The hints: the causes noted since the last pass that ran. */
export class PassHints {
  private readonly causes = new Set<PassCause>(['start']);
  private wakeAtMs: number | null = null;
  private lastRunMs = Number.NEGATIVE_INFINITY;
  private quotaKey: string | null = null;

  /** Notes that `cause` happened: the next pass runs. */
  note(cause: PassCause): void {
    this.causes.add(cause);
  }

  /**
   * The causes that make a pass due at `nowMs`, or null when it can be skipped.
   * @param quotaKey the tenants' quotas in a comparable form (a change is `quota-changed`)
   */
  due(nowMs: number, quotaKey: string): readonly PassCause[] | null {
    if (this.quotaKey !== null && quotaKey !== this.quotaKey) this.causes.add('quota-changed');
    this.quotaKey = quotaKey;
    if (this.wakeAtMs !== null && nowMs >= this.wakeAtMs) this.causes.add('time');
    if (nowMs - this.lastRunMs >= FLUSH_INTERVAL_MS) this.causes.add('flush');
    return this.causes.size === 0 ? null : [...this.causes];
  }

  /**
   * Records that a pass ran at `nowMs` over everything noted so far.
   * @param wakeAtMs when a pass is due again with no event (null: only on an event)
   */
  ran(nowMs: number, wakeAtMs: number | null): void {
    this.causes.clear();
    this.lastRunMs = nowMs;
    this.wakeAtMs = wakeAtMs;
  }
}

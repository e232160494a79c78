/**
 * How an attempt's end decides the job's next state: the intent gpushare had when it stopped the
 * process (cancel, time limit, preemption) wins over the exit status; a failure with retries left
 * re-queues the job; a preempted job is queued as `preempted` to resume from its checkpoint.
 *
 * Preemption (docs/preemption.md): the attempt is `preempted` when the supervisor delivered the
 * preemption signal while the command was running, whatever the exit status (a job that saves its
 * checkpoint and exits 0 on the signal has work left), and when the process vanished without an
 * outcome. Only a command that ended before any signal reached it is judged by its own exit status
 * (exit 0: `succeeded`).
 */
import { JOB_EVENT_CODES as C, jobEventReason, type JobEventReason, type JobState } from '../../core/index.js';

/**
 * Why gpushare stopped a running job, if it did: a cancel (`cancelled` reason: who), the time
 * limit, a preemption (`preempted` reason: the preemptor), or a host limit it met (the limit's
 * reason; a failure, so retries apply).
 */
export type StopIntent =
  | { readonly kind: 'cancelled'; readonly reason: JobEventReason }
  | { readonly kind: 'time-limit' }
  | { readonly kind: 'preempted'; readonly reason: JobEventReason }
  /** It met a host limit that ends a job (`process-limit`, `host-memory-limit`; job-host-limits.ts). */
  | { readonly kind: 'host-limit'; readonly reason: JobEventReason };

const TIME_LIMIT = jobEventReason(C.timeLimit);

/** The decision for one ended attempt. */
export interface AttemptEnd {
  readonly to: Extract<JobState, 'succeeded' | 'failed' | 'cancelled' | 'pending' | 'preempted'>;
  /** Reason stored with the transition. */
  readonly reason: JobEventReason;
  /** Why the attempt ended (`exited`, `time-limit`, `lost`, `preempted`, `cancelled`, `killed`, `could-not-start`). */
  readonly endReason: JobEventReason;
  /** True when the job will not run again. */
  readonly terminal: boolean;
}

/** An outcome as the supervisor recorded it (see ProcessOutcome). */
export interface RecordedOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /**
   * When a signal sent through the supervisor reached the running command; null: none did; absent: not recorded (older
   * supervisor).
   */
  readonly signalDeliveredAtMs?: number | null;
  /**
   * Why the command never ran, when it did not (`could not start: E2BIG (the argument list is too
   * long)`); absent or null otherwise. Such an attempt fails with this reason.
   */
  readonly error?: string | null;
}

/**
 * @param outcome exit status the supervisor recorded; null when the process vanished without one (`lost`)
 * @param intent why gpushare stopped it, if it did
 * @param failuresBefore earlier attempts that failed (preemptions do not count)
 * @param retries how many failures the job may retry
 */
export function decideAttemptEnd(
  outcome: RecordedOutcome | null,
  intent: StopIntent | undefined,
  failuresBefore: number,
  retries: number,
): AttemptEnd {
  if (intent?.kind === 'cancelled')
    return { to: 'cancelled', reason: intent.reason, endReason: intent.reason, terminal: true };
  if (intent?.kind === 'time-limit') return { to: 'failed', reason: TIME_LIMIT, endReason: TIME_LIMIT, terminal: true };
  // Stopped by the preemption signal (or no outcome to say otherwise; an older supervisor that did
  // not record delivery counts as delivered): requeued to resume, whatever the exit status.
  if (intent?.kind === 'preempted' && (outcome === null || outcome.signalDeliveredAtMs !== null)) {
    return { to: 'preempted', reason: intent.reason, endReason: intent.reason, terminal: false };
  }
  if (outcome !== null && outcome.exitCode === 0 && intent?.kind !== 'host-limit') {
    const exited = jobEventReason(C.exited, { exitCode: 0 });
    return { to: 'succeeded', reason: exited, endReason: exited, terminal: true };
  }
  const failure =
    intent?.kind === 'host-limit'
      ? intent.reason
      : outcome === null
        ? jobEventReason(C.lost)
        : outcome.signal
          ? jobEventReason(C.killed, { signal: outcome.signal })
          : outcome.exitCode === null && outcome.error
            ? jobEventReason(C.couldNotStart, { error: outcome.error })
            : jobEventReason(C.exited, { exitCode: outcome.exitCode ?? 0 });
  if (failuresBefore < retries)
    return {
      to: 'pending',
      reason: jobEventReason(C.retry, { retry: failuresBefore + 1, retries, failure }),
      endReason: failure,
      terminal: false,
    };
  return { to: 'failed', reason: failure, endReason: failure, terminal: true };
}

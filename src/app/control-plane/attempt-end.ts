/**
 * How an attempt's end decides the job's next state: the intent gpushare had when it stopped the
 * process (cancel, time limit, preemption) wins over the exit status; a failure with retries left
 * re-queues the job; a preempted job is queued as `preempted` to resume from its checkpoint.
 */
import type { JobState } from '../../core/index.js';

/** Why gpushare stopped a running job, if it did. */
export type StopIntent =
  | { readonly kind: 'cancelled'; readonly reason: string }
  | { readonly kind: 'time-limit' }
  | { readonly kind: 'preempted'; readonly reason: string };

/** The decision for one ended attempt. */
export interface AttemptEnd {
  readonly to: Extract<JobState, 'succeeded' | 'failed' | 'cancelled' | 'pending' | 'preempted'>;
  /** Reason stored with the transition. */
  readonly reason: string;
  /** Why the attempt ended (`exited`, `time-limit`, `lost`, `preempted`, `cancelled by …`, `killed by SIGKILL`). */
  readonly endReason: string;
  /** True when the job will not run again. */
  readonly terminal: boolean;
}

/**
 * @param outcome exit status the supervisor recorded; null when the process vanished without one (`lost`)
 * @param intent why gpushare stopped it, if it did
 * @param failuresBefore earlier attempts that failed (preemptions do not count)
 * @param retries how many failures the job may retry
 */
export function decideAttemptEnd(outcome: { exitCode: number | null; signal: string | null } | null, intent: StopIntent | undefined, failuresBefore: number, retries: number): AttemptEnd {
  if (intent?.kind === 'cancelled') return { to: 'cancelled', reason: intent.reason, endReason: intent.reason, terminal: true };
  if (intent?.kind === 'time-limit') return { to: 'failed', reason: 'time-limit', endReason: 'time-limit', terminal: true };
  if (intent?.kind === 'preempted') {
    // A job that finished on its own before the signal arrived simply succeeded.
    if (outcome?.exitCode === 0) return { to: 'succeeded', reason: 'exit code 0', endReason: 'exited', terminal: true };
    return { to: 'preempted', reason: intent.reason, endReason: 'preempted', terminal: false };
  }
  if (outcome !== null && outcome.exitCode === 0) return { to: 'succeeded', reason: 'exit code 0', endReason: 'exited', terminal: true };
  const failure = outcome === null ? 'lost' : outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.exitCode}`;
  const endReason = failure.startsWith('exit code') ? 'exited' : failure;
  if (failuresBefore < retries) return { to: 'pending', reason: `retry ${failuresBefore + 1} of ${retries} after ${failure}`, endReason, terminal: false };
  return { to: 'failed', reason: failure, endReason, terminal: true };
}

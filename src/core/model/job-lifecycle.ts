/**
 * The lifecycle of a job: its states and the transitions between them. The store refuses any
 * other transition (adapters/store), so a job's history always follows this machine.
 */
/**
 * Lifecycle states. `succeeded`, `failed` and `cancelled` are terminal. `preempted` is queued like
 * `pending` (the job waits to run again, resuming from its checkpoint).
 */
export const JOB_STATES = ['pending', 'scheduled', 'running', 'preempted', 'succeeded', 'failed', 'cancelled'] as const;
/** One of `JOB_STATES`. */
export type JobState = (typeof JOB_STATES)[number];

/** States a job never leaves. */
export const TERMINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];

/** True when `state` is terminal. */
export function isTerminal(state: JobState): boolean {
  return state === 'succeeded' || state === 'failed' || state === 'cancelled';
}

const ALLOWED: Readonly<Record<JobState, readonly JobState[]>> = {
  // scheduled → pending: the launch failed before the process existed, or a retry re-queues it.
  pending: ['scheduled', 'cancelled', 'failed'],
  scheduled: ['running', 'pending', 'preempted', 'failed', 'cancelled'],
  // running → pending: a failed attempt with retries left goes back to the queue;
  // running → preempted: stopped for a more important job, queued to resume.
  running: ['succeeded', 'failed', 'cancelled', 'pending', 'preempted'],
  preempted: ['scheduled', 'cancelled', 'failed'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

/** True when a job may move from `from` to `to`. */
export function canTransition(from: JobState, to: JobState): boolean {
  return ALLOWED[from].includes(to);
}

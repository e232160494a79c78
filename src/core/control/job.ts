/**
 * Jobs of the standalone control plane as the scheduler core sees them: what a job asks for, its
 * lifecycle states and the transitions between them. Pure data and rules; the app layer stores them.
 */

/** Sharing modes a job may ask for (API, CLI and code use these names). */
export const SHARING_MODES = ['auto', 'exclusive', 'mig', 'mps', 'timeslice'] as const;
/** One of `SHARING_MODES`. */
export type SharingMode = (typeof SHARING_MODES)[number];
/** A mode a placement actually uses (`auto` resolved). */
export type EffectiveMode = Exclude<SharingMode, 'auto'>;

/** Named priority classes; a higher number is more important (as Kubernetes PriorityClass). */
export const PRIORITY_CLASSES = { low: 100, normal: 500, high: 900, critical: 1000 } as const;
/** One of the names of `PRIORITY_CLASSES`. */
export type PriorityClassName = keyof typeof PRIORITY_CLASSES;
/** Priority of a job submitted without one (`normal`). */
export const DEFAULT_PRIORITY = PRIORITY_CLASSES.normal;

/**
 * The name of the class a priority number belongs to: the highest class whose value is at or below
 * it (`low` for anything under 500, ...). Numbers under 100 are still `low`.
 */
export function priorityClassOf(priority: number): PriorityClassName {
  let name: PriorityClassName = 'low';
  for (const [className, value] of Object.entries(PRIORITY_CLASSES) as [PriorityClassName, number][]) {
    if (priority >= value) name = className;
  }
  return name;
}

/**
 * Lifecycle states. `succeeded`, `failed` and `cancelled` are terminal. `preempted` is queued like
 * `pending` (the job waits to run again, resuming from its checkpoint).
 */
export const JOB_STATES = ['pending', 'scheduled', 'running', 'preempted', 'succeeded', 'failed', 'cancelled'] as const;
/** One of `JOB_STATES`. */
export type JobState = (typeof JOB_STATES)[number];
/** States in which a job waits in the queue. */
export const QUEUED_STATES: readonly JobState[] = ['pending', 'preempted'];

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

/**
 * The GPU part of a job's request, per GPU. `gpuMemoryMiB` null means "in proportion to
 * `gpuMilli` of the GPU the job lands on" (resolved at placement).
 */
export interface GpuRequest {
  /** Number of distinct GPUs, ≥ 1. */
  readonly gpuCount: number;
  /** Compute share of each GPU in milli-GPU, 1..1000. */
  readonly gpuMilli: number;
  /** Device memory of each GPU in MiB, or null for the proportional default. */
  readonly gpuMemoryMiB: number | null;
  /** Requested sharing mode. */
  readonly mode: SharingMode;
  /**
   * Isolation for `mode: auto` (select-mode.ts): `strict` (MIG, else whole GPUs), `standard` (MPS,
   * the default when absent), `none` (time-slicing). Ignored for other modes.
   */
  readonly isolation?: 'strict' | 'standard' | 'none';
}

/** What the scheduler needs to know about a job waiting to be placed. */
export interface PendingJob {
  readonly id: number;
  readonly tenant: string;
  /** Higher is more important. */
  readonly priority: number;
  /** Submit time, ms since the epoch; earlier goes first among equal priorities. */
  readonly submittedAtMs: number;
  /** Host CPU in milli-cores (0 = none reserved). */
  readonly cpuMilli: number;
  /** Host memory in MiB (0 = none reserved). */
  readonly hostMemoryMiB: number;
  readonly gpu: GpuRequest;
}

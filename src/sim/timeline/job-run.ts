/**
 * The mutable state of one job during a timeline replay: queued or running, its progress, and
 * what it has cost so far. Also the queue entry the queue order reads.
 */
import { secondsSinceCheckpoint as lostSeconds, type JobRequest, type QueueEntry } from '../../core/index.js';
import type { TimelineJob } from './timeline-jobs.js';

/**
 * One job's replay state (the engine's own; read-only to everyone else). As a queue entry: `id` is
 * the job id, `submittedAtMs` its first arrival in ms of simulated time (kept when preempted).
 */
export interface JobRun extends QueueEntry {
  readonly job: TimelineJob;
  /** The job as the core places it (id, tenant, priority, first arrival, demand). */
  readonly request: JobRequest;
  /** Size in GPU-equivalents (see trace-gpu-equivalents.ts). */
  readonly gpuEquivalents: number;
  /** Small integer naming the job's full request (equal requests fit equally). */
  readonly shapeId: number;
  /** When the job last entered the queue (arrival or preemption), simulated seconds. */
  queuedSinceSeconds: number;
  /** Total time spent queued so far, seconds. */
  waitSeconds: number;
  /** Run time still needed, seconds (duration minus checkpointed progress). */
  remainingSeconds: number;
  /** Start of the current run, seconds; NaN while queued. */
  runStartSeconds: number;
  /** Node of the current run; -1 while queued. */
  nodeIndex: number;
  /** Number of runs started (a completion event of an older run is stale). */
  attempt: number;
  /** First start, seconds; NaN until started. */
  firstStartSeconds: number;
  /** Completion, seconds; NaN until done. */
  endSeconds: number;
  /** Times this job was preempted. */
  preemptions: number;
  /** Times this job was moved off a node the pool drained (checkpointed and re-queued; the pool replay). */
  drains: number;
  /** Work lost to preemptions, GPU-seconds. */
  lostWorkGpuSeconds: number;
}

/**
 * Seconds of the current run lost if the job stops at `nowSeconds`: the run time since its last
 * checkpoint, with a checkpoint every `checkpointIntervalSeconds` of run time counted from the
 * run's start, which resumes from a checkpoint (the core's `secondsSinceCheckpoint`). 0 while queued.
 */
export function secondsSinceCheckpoint(run: JobRun, nowSeconds: number, checkpointIntervalSeconds: number): number {
  if (run.nodeIndex < 0) return 0;
  return lostSeconds(nowSeconds - run.runStartSeconds, checkpointIntervalSeconds);
}

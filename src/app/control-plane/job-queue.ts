/**
 * The in-memory queue of jobs waiting to run (stored `pending` or `preempted`), with what every pass
 * needs about them: the state they are stored in, their requests (time limits included, for
 * backfill), their sizes in GPU-equivalents (cached until the GPUs change), the queue order of the
 * last pass, and the waiting reason each pass recomputes. The store stays the truth; this mirror is
 * rebuilt from it at start and kept in step by submit, cancel, placement and requeue.
 */
import { QueueOrderCache, type JobRequest, type JobState, type WaitReason } from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';

/** Queued jobs by id. */
export class JobQueue {
  private readonly jobs = new Map<number, JobRequest>();
  private readonly reasons = new Map<number, WaitReason>();
  private readonly states = new Map<number, JobState>();
  /** Sizes in GPU-equivalents (see core/pass/pass-rules.ts); clear when the GPUs change. */
  readonly sizes = new Map<number, number>();
  /** The queue order of the last pass (a memo for the next one). */
  readonly order = new QueueOrderCache();

  /** Adds (or refreshes) a stored queued job. */
  add(job: JobRecord): void {
    this.states.set(job.id, job.state);
    this.jobs.set(job.id, { id: job.id, tenant: job.tenant, priority: job.priority, submittedAtMs: job.submittedAtMs, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, gpu: job.gpu, timeLimitSeconds: job.timeLimitSeconds });
  }

  /** Removes a job (placed or cancelled). */
  remove(jobId: number): void {
    this.jobs.delete(jobId);
    this.sizes.delete(jobId);
    this.states.delete(jobId);
    this.reasons.delete(jobId);
  }

  get size(): number {
    return this.jobs.size;
  }

  has(jobId: number): boolean {
    return this.jobs.has(jobId);
  }

  get(jobId: number): JobRequest | undefined {
    return this.jobs.get(jobId);
  }

  /** Every queued job (any order). */
  all(): JobRequest[] {
    return [...this.jobs.values()];
  }

  /** The state the job is stored in (`pending` or `preempted`). */
  stateOf(jobId: number): JobState {
    return this.states.get(jobId) ?? 'pending';
  }

  /** Why the job waits, as the last pass found. */
  reasonOf(jobId: number): WaitReason | null {
    return this.reasons.get(jobId) ?? null;
  }

  setReason(jobId: number, reason: WaitReason): void {
    this.reasons.set(jobId, reason);
  }
}

/**
 * The in-memory queue of jobs waiting to run (stored `pending` or `preempted`), with what every pass
 * needs about them: the state they are stored in, their time limits (for backfill), their sizes in
 * GPU-equivalents (cached until the GPUs change), and the waiting reason each pass recomputes. The
 * store stays the truth; this mirror is rebuilt from it at start.
 */
import type { JobState, JobRequest } from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';

/** Queued jobs by id. */
export class JobQueue {
  private readonly jobs = new Map<number, JobRequest>();
  private readonly reasons = new Map<number, string>();
  private readonly states = new Map<number, JobState>();
  private readonly timeLimits = new Map<number, number | null>();
  /** Sizes in GPU-equivalents (see pass-policy.ts); clear when the GPUs change. */
  readonly sizes = new Map<number, number>();

  /** Adds (or refreshes) a stored queued job. */
  add(job: JobRecord): void {
    this.states.set(job.id, job.state);
    this.timeLimits.set(job.id, job.timeLimitSeconds);
    this.jobs.set(job.id, { id: job.id, tenant: job.tenant, priority: job.priority, submittedAtMs: job.submittedAtMs, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, gpu: job.gpu });
  }

  /** Removes a job (placed or cancelled). */
  remove(jobId: number): void {
    this.jobs.delete(jobId);
    this.timeLimits.delete(jobId);
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

  /** Time limit of an attempt, seconds; null for none. */
  timeLimitOf(jobId: number): number | null {
    return this.timeLimits.get(jobId) ?? null;
  }

  /** Why the job waits, as the last pass found. */
  reasonOf(jobId: number): string | null {
    return this.reasons.get(jobId) ?? null;
  }

  setReason(jobId: number, reason: string): void {
    this.reasons.set(jobId, reason);
  }
}

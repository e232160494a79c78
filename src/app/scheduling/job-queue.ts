/**
 * The in-memory queue of jobs waiting to run (stored `pending` or `preempted`), with what every pass
 * needs about them: the state they are stored in, their requests (time limits included, for
 * backfill) in the core's QueueIndex (queue order without sorting; a pass may stop early), their
 * sizes in GPU-equivalents (cached until the GPUs change), and why each waits as the last pass
 * found: the jobs it visited get their own reason, the ones it did not visit (it stopped early)
 * get theirs on read, from the plan's data about them (`unvisitedWait`); a reason's costly figures
 * (how many GPUs qualify, which GPUs other tenants' MPS jobs hold) are worked out on read, from the
 * pass's session (`explainWait`). The store stays the truth; this mirror is rebuilt from it at
 * start and kept in step by submit, cancel, placement and requeue.
 */
import {
  QueueIndex,
  unvisitedWait,
  type JobRequest,
  type JobState,
  type Plan,
  type SchedulingSession,
  type UnvisitedWaits,
  type WaitReason,
} from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';
import { jobRequestOf } from './job-request.js';

/** Queued jobs by id. */
export class JobQueue {
  /** The queued requests, in queue order on demand (core/queue/queue-index.ts). */
  readonly index = new QueueIndex();
  private readonly states = new Map<number, JobState>();
  /** Sizes in GPU-equivalents (see core/pass/pass-rules.ts); clear when the GPUs change. */
  readonly sizes = new Map<number, number>();
  /** Reasons the last pass gave the jobs it visited (and preemptors' reasons set after it). */
  private reasons = new Map<number, WaitReason>();
  /** The last plan's data about the jobs it did not visit; null when it visited every job. */
  private unvisited: UnvisitedWaits | null = null;
  /** The last pass's session (its state after the pass), for the costly figures of a reason. */
  private session: Pick<SchedulingSession, 'explainWait'> | null = null;
  /**
   * Passes begun; a job remembers the count when it was queued (a job queued after the last pass has no reason yet).
   */
  private passes = 0;
  private readonly queuedAtPass = new Map<number, number>();

  /** Adds (or refreshes) a stored queued job. */
  add(job: JobRecord): void {
    this.states.set(job.id, job.state);
    this.queuedAtPass.set(job.id, this.passes);
    this.reasons.delete(job.id);
    this.index.add(jobRequestOf(job));
  }

  /** Removes a job (placed or cancelled). */
  remove(jobId: number): void {
    this.index.remove(jobId);
    this.sizes.delete(jobId);
    this.states.delete(jobId);
    this.reasons.delete(jobId);
    this.queuedAtPass.delete(jobId);
  }

  get size(): number {
    return this.index.size;
  }

  has(jobId: number): boolean {
    return this.index.has(jobId);
  }

  get(jobId: number): JobRequest | undefined {
    return this.index.get(jobId);
  }

  /** The state the job is stored in (`pending` or `preempted`). */
  stateOf(jobId: number): JobState {
    return this.states.get(jobId) ?? 'pending';
  }

  /** Why the job waits, as the last pass found (with its costly figures); null before a pass has considered it. */
  reasonOf(jobId: number): WaitReason | null {
    const job = this.index.get(jobId);
    const reason = this.reasons.get(jobId);
    if (reason !== undefined)
      return job === undefined || this.session === null ? reason : this.session.explainWait(job, reason);
    const queuedAt = this.queuedAtPass.get(jobId);
    if (job === undefined || this.unvisited === null || queuedAt === undefined || queuedAt >= this.passes) return null;
    return unvisitedWait(this.unvisited, job);
  }

  /** A pass begins: jobs queued from now on are new to it. */
  beginPass(): void {
    this.passes++;
  }

  /**
   * The reasons of a pass: its plan's waits for the jobs it visited, its data about the others, and
   * the session that explains them (null: reasons without their costly figures).
   */
  setPassReasons(
    plan: Pick<Plan, 'waiting' | 'unvisited'>,
    session: Pick<SchedulingSession, 'explainWait'> | null,
  ): void {
    this.reasons = new Map(plan.waiting.map((w) => [w.jobId, w.reason]));
    this.unvisited = plan.unvisited;
    this.session = session;
  }

  setReason(jobId: number, reason: WaitReason): void {
    this.reasons.set(jobId, reason);
  }
}

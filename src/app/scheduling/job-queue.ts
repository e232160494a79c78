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
  unvisitedWait,
  type QueueIndex,
  type JobRequest,
  type JobState,
  type Plan,
  type SchedulingSession,
  type UnvisitedWaits,
  type WaitReason,
} from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';
import { jobRequestOf } from './job-request.js';
import { NO_JOB_HOST_LIMITS, type JobHostLimitSettings } from './job-host-limits.js';

/** Queued jobs by id. */
export class JobQueue {
  /** The queued requests, in queue order on demand: the core session's own queue (core/schedule.ts). */
  readonly index: QueueIndex;
  private readonly states = new Map<number, JobState>();
  /** Sizes in GPU-equivalents (see core/pass/pass-rules.ts); clear when the GPUs change. */
  readonly sizes = new Map<number, number>();
  /** Reasons set after the last pass (preemptors'); a job's goes when it leaves or is queued again. */
  private readonly setReasons = new Map<number, WaitReason>();
  /** The last pass's waits, in the plan's list; indexed by job id on the first read. */
  private passWaits: Plan['waiting'] = [];
  private passReasons: Map<number, WaitReason> | null = null;
  /** The last plan's data about the jobs it did not visit; null when it visited every job. */
  private unvisited: UnvisitedWaits | null = null;
  /** What explains the last pass's reasons (its session, as the pass left it); null: reasons as they are. */
  private explainer: Pick<SchedulingSession, 'explainWait'> | null = null;
  /**
   * Passes begun; a job remembers the count when it was queued (a job queued after the last pass has no reason yet).
   */
  private passes = 0;
  private readonly queuedAtPass = new Map<number, number>();

  /**
   * @param session the core's scheduling session of the passes: it owns the queue
   * @param hostLimits the default host limits (a job's default host memory is queued as its request)
   */
  constructor(
    readonly session: SchedulingSession,
    private readonly hostLimits: JobHostLimitSettings = NO_JOB_HOST_LIMITS,
  ) {
    this.index = session.queue;
  }

  /** Adds (or refreshes) a stored queued job. */
  add(job: JobRecord): void {
    this.states.set(job.id, job.state);
    this.queuedAtPass.set(job.id, this.passes);
    this.setReasons.delete(job.id);
    this.index.add(jobRequestOf(job, this.hostLimits));
  }

  /** Removes a job (placed or cancelled). */
  remove(jobId: number): void {
    this.index.remove(jobId);
    this.sizes.delete(jobId);
    this.states.delete(jobId);
    this.setReasons.delete(jobId);
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
    const queuedAt = this.queuedAtPass.get(jobId);
    if (job === undefined || queuedAt === undefined) return null;
    const set = this.setReasons.get(jobId);
    // A job queued (again) after the last pass began has none of its reasons.
    const reason = set ?? (queuedAt < this.passes ? this.passReasonOf(jobId) : undefined);
    if (reason !== undefined) return this.explainer === null ? reason : this.explainer.explainWait(job, reason);
    if (this.unvisited === null || queuedAt >= this.passes) return null;
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
    explainer: Pick<SchedulingSession, 'explainWait'> | null,
  ): void {
    this.passWaits = plan.waiting;
    this.passReasons = null;
    this.setReasons.clear();
    this.unvisited = plan.unvisited;
    this.explainer = explainer;
  }

  /** The last pass's reason for `jobId` (its waits indexed on the first read: most passes' are never read). */
  private passReasonOf(jobId: number): WaitReason | undefined {
    this.passReasons ??= new Map(this.passWaits.map((w) => [w.jobId, w.reason]));
    return this.passReasons.get(jobId);
  }

  /** Sets why a queued job waits until the next pass (a preemptor waiting for its victims). */
  setReason(jobId: number, reason: WaitReason): void {
    this.setReasons.set(jobId, reason);
  }
}

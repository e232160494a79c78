/**
 * The jobs with a live attempt (launched or re-adopted), as the control plane watches them: the
 * stored record of each (its process handle, placement, time limit) and how often it has been
 * preempted before (a preemption guard: it does not change while the attempt runs).
 */
import type { JobRecord } from '../ports/state-store.js';

/** Running jobs by id. */
export class RunningJobs {
  private readonly jobs = new Map<number, { job: JobRecord; preemptionCount: number }>();

  /** Starts watching a running job. */
  add(job: JobRecord, preemptionCount: number): void {
    this.jobs.set(job.id, { job, preemptionCount });
  }

  /** Stops watching it (its attempt ended). */
  remove(jobId: number): void {
    this.jobs.delete(jobId);
  }

  has(jobId: number): boolean {
    return this.jobs.has(jobId);
  }

  get(jobId: number): JobRecord | undefined {
    return this.jobs.get(jobId)?.job;
  }

  /** Earlier preemptions of a running job (0 for one not watched). */
  preemptionCount(jobId: number): number {
    return this.jobs.get(jobId)?.preemptionCount ?? 0;
  }

  get size(): number {
    return this.jobs.size;
  }

  /** Every running job, by ascending id. */
  all(): JobRecord[] {
    return [...this.jobs.values()].map((r) => r.job).sort((a, b) => a.id - b.id);
  }
}

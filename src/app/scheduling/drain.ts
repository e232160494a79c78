/**
 * Draining the server (`gpushare drain`, `POST /api/v1/drain`): from `begin` on no
 * pass places anything (queued jobs stay queued, running ones run to their end), and the waiter
 * runs once, on the first check that finds no job running.
 */

/** The drain state of one control plane. */
export class Drain {
  private waiter: (() => void) | null = null;
  private begun = false;

  /** True once `begin` was called (it is never undone). */
  get draining(): boolean {
    return this.begun;
  }

  /** Starts draining; `whenDrained` (replacing an earlier waiter) runs once no job is running. */
  begin(whenDrained: () => void): void {
    this.begun = true;
    this.waiter = whenDrained;
  }

  /** Runs the waiter, once, when draining and `runningJobs` (jobs running now) is 0. */
  check(runningJobs: number): void {
    if (!this.begun || runningJobs !== 0 || this.waiter === null) return;
    const done = this.waiter;
    this.waiter = null;
    done();
  }
}

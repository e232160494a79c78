/**
 * When scheduling passes run, and what follows one: a request (a submit, an ended job, the
 * schedule timer) asks for a pass in a turn of its own (the clock's `after(0)`), so that many
 * requests in one turn make one pass; the pass then runs only if it is due (pass-hints.ts) or
 * forced. No pass runs while the server drains or the disk is known to be full (it could store
 * nothing; the disk's recovery asks for one). After a pass, its placed jobs go to the launches and
 * its preemption victims get their stop signal.
 */
import type { Clock } from '../ports/clock.js';
import type { DiskState } from './disk-state.js';
import type { Drain } from './drain.js';
import type { LaunchCoordinator } from './launch-coordinator.js';
import type { RunningJobs } from './running-jobs.js';
import type { RunningSet } from './running-set.js';
import type { SchedulingPass } from './scheduling-pass.js';

/** What triggering passes uses. */
export interface PassTriggerDeps {
  readonly clock: Clock;
  readonly pass: SchedulingPass;
  readonly drain: Drain;
  readonly disk: DiskState;
  readonly launches: LaunchCoordinator;
  readonly running: RunningJobs;
  readonly runningSet: RunningSet;
}

/** Runs passes when asked, at most one per turn of the event loop. */
export class PassTrigger {
  private queued = false;
  private stopped = false;

  constructor(private readonly deps: PassTriggerDeps) {}

  /** Asks for a pass in a coming turn; nothing when one is already asked for, or after `stop`. */
  request(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    this.deps.clock.after(0, () => {
      this.queued = false;
      if (!this.stopped) this.run(false);
    });
  }

  /**
   * A pass now when one is due (`force`: whatever the hints say), unless draining or the disk is
   * full; then the launches of its placements and the stops of its victims.
   */
  run(force: boolean): void {
    const { drain, disk, pass, launches, running, runningSet } = this.deps;
    if (drain.draining || disk.full) return;
    const outcome = pass.runIfDue(force);
    if (outcome === null) return;
    launches.enqueue(outcome.placedJobIds);
    for (const victimId of outcome.preemption?.victimIds ?? [])
      if (running.has(victimId)) void runningSet.stopProcess(victimId);
  }

  /** Runs no more passes (one already asked for is dropped). */
  stop(): void {
    this.stopped = true;
  }
}

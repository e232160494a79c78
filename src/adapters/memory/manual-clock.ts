/**
 * A clock that moves only when told (app/ports/clock.ts): tests drive the control plane through
 * time with `advance` and `runPending` instead of sleeping, so they take no wall time and do not
 * depend on how fast the machine is.
 */
import type { Clock, Timer } from '../../app/ports/clock.js';

interface Task {
  dueMs: number;
  readonly intervalMs: number | null;
  readonly run: () => void;
  readonly order: number;
  cancelled: boolean;
}

/** A manual clock. */
export class ManualClock implements Clock {
  private now: number;
  private tasks: Task[] = [];
  private counter = 0;

  /** @param startMs the time it starts at, ms since the epoch */
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  /** The manual time itself (durations measured with it are 0 unless the clock is advanced meanwhile). */
  monotonicMs(): number {
    return this.now;
  }

  every(intervalMs: number, task: () => void): Timer {
    if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be > 0, got ${intervalMs}`);
    return this.add(this.now + intervalMs, intervalMs, task);
  }

  after(delayMs: number, task: () => void): Timer {
    return this.add(this.now + Math.max(0, delayMs), null, task);
  }

  /** Runs every task due now (tasks due at once first), repeatedly until none is due. @returns how many ran */
  runPending(): number {
    let ran = 0;
    for (let task = this.nextDue(this.now); task !== null; task = this.nextDue(this.now)) {
      this.runTask(task);
      ran++;
      if (ran > 100_000) throw new Error('ManualClock: tasks keep scheduling each other at the same instant');
    }
    return ran;
  }

  /**
   * Runs everything due now, letting promises the tasks started settle in between (a turn of the
   * event loop), until nothing is due. @throws Error when tasks are still due after 1,000 rounds
   */
  async settle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      const ran = this.runPending();
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (ran === 0 && this.runPending() === 0) return;
    }
    throw new Error('ManualClock.settle: tasks were still due after 1000 rounds');
  }

  /** Moves time forward by `ms`, running each task at its due time, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    this.runPending();
    for (let task = this.nextDue(end); task !== null; task = this.nextDue(end)) {
      this.now = Math.max(this.now, task.dueMs);
      this.runTask(task);
      this.runPending();
    }
    this.now = end;
    this.runPending();
  }

  /** Number of scheduled tasks not cancelled. */
  get scheduled(): number {
    return this.tasks.filter((t) => !t.cancelled).length;
  }

  private add(dueMs: number, intervalMs: number | null, run: () => void): Timer {
    const task: Task = { dueMs, intervalMs, run, order: this.counter++, cancelled: false };
    this.tasks.push(task);
    return {
      cancel: () => {
        task.cancelled = true;
      },
    };
  }

  private nextDue(limit: number): Task | null {
    this.tasks = this.tasks.filter((t) => !t.cancelled);
    let best: Task | null = null;
    for (const t of this.tasks)
      if (
        t.dueMs <= limit &&
        (best === null || t.dueMs < best.dueMs || (t.dueMs === best.dueMs && t.order < best.order))
      )
        best = t;
    return best;
  }

  private runTask(task: Task): void {
    if (task.intervalMs === null) task.cancelled = true;
    else task.dueMs += task.intervalMs;
    task.run();
  }
}

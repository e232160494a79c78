/**
 * Store writes that failed because the disk was full and must still happen, so that nothing is
 * lost: a launched attempt not yet recorded as `running`, a job whose launch found the disk full
 * and goes back to the queue. Each is retried, in the order it came, once the disk has room again
 * (the control plane calls `retry` on its monitor tick while the disk is not known full). Ended
 * attempts need no entry here: their outcome stays in their folder and the monitor settles them
 * when it can write (control-plane.ts).
 */
import { isDiskFullError } from '../errors.js';
import type { Logger } from './plane-deps.js';

/** One write still to do. */
interface PendingWrite {
  readonly jobId: number;
  /** What it records, for the log: `attempt 2 started`. */
  readonly label: string;
  /** The store write and what follows it (adopt, queue); throws when the write fails. */
  readonly write: () => void;
}

/** The writes waiting for room, oldest first. */
export class PendingWrites {
  private items: PendingWrite[] = [];

  /** Adds a write to retry (see the module comment). */
  add(jobId: number, label: string, write: () => void): void {
    this.items.push({ jobId, label, write });
  }

  /** Writes waiting. */
  get size(): number {
    return this.items.length;
  }

  /**
   * Retries the writes in order. One that fails for a full disk stops the round (it and the rest
   * wait for the next); one that fails otherwise (the job changed meanwhile, e.g. cancelled) is
   * dropped and logged.
   * @returns how many were written
   */
  retry(logger: Logger): number {
    let done = 0;
    while (this.items.length > 0) {
      const item = this.items[0]!;
      try {
        item.write();
        done += 1;
      } catch (error) {
        if (isDiskFullError(error)) return done;
        logger.warn({ jobId: item.jobId, err: error }, `a write held back by the full disk was dropped: ${item.label}`);
      }
      this.items.shift();
    }
    return done;
  }
}

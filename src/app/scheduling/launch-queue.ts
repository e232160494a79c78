/**
 * Launches of placed jobs, off the request path (docs/server.md "Launching"): a pass only stores
 * its placements (`scheduled`) and hands the job ids here; at most `concurrency` launches run at
 * once, each started in its own turn of the event loop (the clock's `after(0)`), so an API request
 * waits for at most one launch's synchronous part (a store write, the job's folder, the
 * supervisor's start message), never for a whole batch of them. Jobs launch in the order they were
 * placed. A job cancelled while it waits here ends `cancelled` without starting (the control
 * plane checks its stop intent first); one the server stops before launching stays `scheduled` and
 * is settled by the next start's reconcile.
 */
import type { Clock } from '../ports/clock.js';

/** Default most launches in flight at once. */
export const DEFAULT_LAUNCH_CONCURRENCY = 32;

/** The queue of launches. */
export class LaunchQueue {
  private readonly waiting: number[] = [];
  private inFlight = 0;
  private stopped = false;
  /** Told once no launch is in flight ({@link whenIdle}). */
  private idleWaiters: Array<() => void> = [];

  /**
   * @param concurrency most launches in flight at once (≥ 1)
   * @param launch starts job `jobId`; its rejection goes to `onError`
   * @throws RangeError when `concurrency` is not an integer ≥ 1
   */
  constructor(
    private readonly concurrency: number,
    private readonly clock: Clock,
    private readonly launch: (jobId: number) => Promise<void>,
    private readonly onError: (jobId: number, error: unknown) => void,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`launchConcurrency must be an integer >= 1, got ${concurrency}`);
  }

  /** Queues launches of `jobIds`, in order. */
  enqueue(jobIds: readonly number[]): void {
    this.waiting.push(...jobIds);
    this.pump();
  }

  /** Launches waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Launches in flight. */
  get active(): number {
    return this.inFlight;
  }

  /** Starts no more launches (those in flight finish). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Resolves once no launch is in flight (at once when none is): a server that stops waits for
   * them before it closes the store and the supervisor's channel, so each ends recorded.
   */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.inFlight < this.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift()!;
      this.inFlight++;
      this.clock.after(0, () => {
        const done = (): void => {
          this.inFlight--;
          this.pump();
          if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        };
        if (this.stopped) {
          done();
          return;
        }
        this.launch(jobId)
          .catch((error: unknown) => this.onError(jobId, error))
          .finally(done);
      });
    }
  }
}

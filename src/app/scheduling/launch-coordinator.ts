/**
 * Takes the jobs a pass placed to their start (docs/server.md "Launching"): queues their launches
 * off the request path (`LaunchQueue`, at most `launchConcurrency` at once), waits for the
 * server's URL when asked to, ends a job cancelled meanwhile `cancelled` instead of starting it,
 * runs the launch (`JobLaunch`) and hands a started attempt to the running set (sending it its
 * stop at once when one was asked for while it launched). A launch whose store write found the
 * disk full is held (`PendingWrites`) and written, in order, on the first monitor tick with room:
 * then the attempt is adopted (it had started) or the job goes back to the queue.
 */
import type { StateStore, JobRecord } from '../ports/state-store.js';
import type { Clock } from '../ports/clock.js';
import type { DiskState } from './disk-state.js';
import type { JobLaunch } from './job-launch.js';
import type { JobQueue } from './job-queue.js';
import { DEFAULT_LAUNCH_CONCURRENCY, LaunchQueue } from './launch-queue.js';
import type { PassCause } from './pass-hints.js';
import { PendingWrites } from './pending-writes.js';
import type { ControlPlaneSettings, Logger } from './plane-deps.js';
import type { RunningSet } from './running-set.js';
import type { SchedulingPass } from './scheduling-pass.js';
import { ServerUrl } from './server-url.js';
import type { StopIntents } from './stop-intents.js';

/** What coordinating launches uses. */
export interface LaunchCoordinatorDeps {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly disk: DiskState;
  readonly launch: JobLaunch;
  readonly intents: StopIntents;
  readonly queue: JobQueue;
  readonly runningSet: RunningSet;
  /** `launchConcurrency`: most launches in flight at once (≥ 1; default DEFAULT_LAUNCH_CONCURRENCY). */
  readonly settings: Pick<ControlPlaneSettings, 'launchConcurrency'>;
  /** Where what happened is noted (`note`, pass-hints.ts), without asking for a pass. */
  readonly pass: Pick<SchedulingPass, 'note'>;
  /** Asks for a pass (it runs only if something was noted). */
  readonly requestPass: () => void;
}

/** Launches of placed jobs, and the launch writes a full disk held back. */
export class LaunchCoordinator {
  /** The URL jobs reach the server at (GPUSHARE_URL), which launches wait for when asked to. */
  readonly serverUrl = new ServerUrl();
  private readonly queue: LaunchQueue;
  /** Store writes held back by a full disk (pending-writes.ts). */
  private readonly held = new PendingWrites();

  /** @throws RangeError when `settings.launchConcurrency` is not an integer ≥ 1 */
  constructor(private readonly deps: LaunchCoordinatorDeps) {
    this.queue = new LaunchQueue(
      deps.settings.launchConcurrency ?? DEFAULT_LAUNCH_CONCURRENCY,
      deps.clock,
      (jobId) => this.launchJob(jobId),
      (jobId, error) => deps.logger.error({ jobId, err: error }, 'launching the job failed'),
    );
  }

  /** Queues the launches of jobs just placed (`scheduled`), in placement order. */
  enqueue(jobIds: readonly number[]): void {
    this.queue.enqueue(jobIds);
  }

  /** Starts no more launches (those in flight finish). */
  stop(): void {
    this.queue.stop();
  }

  /**
   * Resolves once the launches in flight have ended (each recorded: running, failed or back to
   * pending), or after `timeoutMs`, whichever comes first; true when they all ended.
   */
  settled(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.deps.clock.after(timeoutMs, () => resolve(false));
      void this.queue.whenIdle().then(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }

  /** Launch writes waiting for room on the disk. */
  get heldWrites(): number {
    return this.held.size;
  }

  /** GPUs reconfigured (MIG instances destroyed or created) by launches since the server started. */
  get migReconfigurations(): number {
    return this.deps.launch.migReconfigurations;
  }

  /** Writes the held launch writes, in order, unless the disk is known to be full (a monitor tick). */
  retryHeldWrites(): void {
    if (!this.deps.disk.full && this.held.size > 0) this.held.retry(this.deps.logger);
  }

  private async launchJob(jobId: number): Promise<void> {
    const { launch, intents, store } = this.deps;
    const { url, caCert } = await this.serverUrl.whenKnown();
    const intent = intents.get(jobId);
    if (intent?.kind === 'cancelled' && launch.cancelInstead(jobId, intent.reason)) {
      intents.delete(jobId);
      this.reschedule('job-ended');
      return;
    }
    const reconfigurationsBefore = launch.migReconfigurations;
    const result = await launch.launch(jobId, url, caCert);
    if (launch.migReconfigurations !== reconfigurationsBefore) this.deps.pass.note('gpus-changed');
    if (result.kind === 'disk-full') {
      this.deps.disk.noteError(result.error);
      this.held.add(jobId, result.label, () => {
        result.write();
        const job = store.getJob(jobId)!;
        if (result.started) {
          this.started(job);
          this.deps.requestPass();
        } else {
          this.deps.queue.add(job);
          this.reschedule('requeued');
        }
      });
      return;
    }
    if (result.kind === 'failed') this.reschedule('launch-failed');
    if (result.kind === 'started') this.started(store.getJob(jobId)!);
  }

  private reschedule(cause: PassCause): void {
    this.deps.pass.note(cause);
    this.deps.requestPass();
  }

  /** Watches a started attempt; stops it at once when a stop was asked for while it launched. */
  private started(job: JobRecord): void {
    this.deps.runningSet.adopt(job);
    if (this.deps.intents.has(job.id)) void this.deps.runningSet.stopProcess(job.id);
  }
}

/**
 * The standalone control plane: takes jobs, places them with the scheduler core, launches them,
 * watches them to the end, and keeps every change in the store (the truth) so a restart loses
 * nothing. It composes parts with one job each (see docs/architecture.md):
 * - `JobQueue`: the jobs waiting to run and why;
 * - `SchedulingPass`: snapshot → core `schedule` → one store transaction, when one is due (pass-hints.ts);
 * - `JobLaunch`: starting an attempt (or cancelling one that waited for it); `LaunchQueue`:
 *   launches off the request path, bounded; `ServerUrl`: what jobs reach the server at;
 * - `RunningSet` and `RunningJobs`: the live attempts (QoS, time-slicing, MPS, stop signals);
 * - `StopIntents`: why gpushare stops a job (cancel, time limit, preemption);
 * - `GpuRoster`: GPUs, cordons, MIG instances;
 * and drives them from the `Clock` port. See docs/server.md for the lifecycle.
 */
import {
  ClusterState,
  findPolicy,
  type GpuDevice,
  type GpuUsage,
  type MigInstance,
  type WaitReason,
} from '../../core/index.js';
import type { Timer } from '../ports/clock.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { ProcessOutcome } from '../ports/process-launcher.js';
import type { JobRecord } from '../ports/state-store.js';
import { publishQosChanges } from '../qos/qos-publish.js';
import { QosTracker } from '../qos/qos-tracker.js';
import { LatestUsage } from '../usage/latest-usage.js';
import { isDiskFullError } from '../errors.js';
import { decideAttemptEnd, type StopIntent } from './attempt-end.js';
import { PendingWrites } from './pending-writes.js';
import { GpuRoster } from './gpu-roster.js';
import { JobLaunch } from './job-launch.js';
import { DEFAULT_LAUNCH_CONCURRENCY, LaunchQueue } from './launch-queue.js';
import { JobQueue } from './job-queue.js';
import { adoptExistingInstances } from './mig-agent.js';
import type { ControlPlaneDeps } from './plane-deps.js';
import type { PlaneEvents } from './plane-events.js';
import type { PassCause } from './pass-hints.js';
import { PassStats } from './pass-stats.js';
import { RecentShapes } from './recent-shapes.js';
import { RECENT_SHAPES_KEPT } from './cluster-usage.js';
import { reconcileJobs } from './reconcile.js';
import { RunningJobs } from './running-jobs.js';
import { RunningSet } from './running-set.js';
import { SchedulingPass } from './scheduling-pass.js';
import { ServerUrl } from './server-url.js';
import { StopIntents } from './stop-intents.js';
import { TimesliceRotator } from './timeslice-rotator.js';

/** The control plane of one server. */
export class ControlPlane {
  readonly passStats = new PassStats();
  /** Passes, MIG reconfigurations and GPU changes (job transitions: see observed-store.ts). */
  readonly events: PlaneEvents;
  /** QoS targets and reports of running jobs (docs/qos.md). */
  readonly qos: QosTracker;
  /** The latest measured GPU usage (kept by the usage poller, src/app/usage/usage-poller.ts). */
  readonly usage = new LatestUsage();
  /** GPUs, cordons and MIG instances. */
  readonly roster: GpuRoster;
  /** Shapes of the recent submits: the scheduler's target workload. */
  readonly recentShapes: RecentShapes;
  private readonly queue = new JobQueue();
  private readonly intents = new StopIntents();
  private readonly running = new RunningJobs();
  private readonly rotator: TimesliceRotator;
  private readonly runningSet: RunningSet;
  private readonly pass: SchedulingPass;
  private readonly launch: JobLaunch;
  /** Launches of placed jobs, bounded and off the request path (launch-queue.ts). */
  private readonly launches: LaunchQueue;
  /** Store writes held back by a full disk (pending-writes.ts). */
  private readonly pendingWrites = new PendingWrites();
  private timers: Timer[] = [];
  private passQueued = false;
  private stopped = false;
  private drainingFlag = false;
  private onDrained: (() => void) | null = null;
  /** The server's URL, given to jobs as GPUSHARE_URL (known after listen). */
  private readonly serverUrl = new ServerUrl();

  constructor(private readonly deps: ControlPlaneDeps) {
    const { settings, store, clock, logger, launcher } = deps;
    this.events = deps.events;
    this.qos = new QosTracker({ nowMs: () => clock.nowMs(), violationSeconds: settings.qosViolationSeconds ?? 60 });
    this.roster = new GpuRoster(deps.initialGpus, store.listCordonedGpus());
    this.recentShapes = new RecentShapes(store.listJobs({ newest: RECENT_SHAPES_KEPT }).map((j) => j.gpu));
    this.rotator = new TimesliceRotator(launcher, clock, { periodMs: settings.timeslicePeriodMs, logger });
    this.runningSet = new RunningSet({
      launcher,
      logger,
      settings,
      mps: deps.mps,
      running: this.running,
      intents: this.intents,
      qos: this.qos,
      rotator: this.rotator,
    });
    this.pass = new SchedulingPass({
      store,
      clock,
      rng: deps.rng,
      logger,
      settings,
      events: this.events,
      stats: this.passStats,
      roster: this.roster,
      queue: this.queue,
      intents: this.intents,
      running: this.running,
      qos: this.qos,
      recentShapes: this.recentShapes,
    });
    this.launch = new JobLaunch({
      store,
      launcher,
      files: deps.files,
      clock,
      logger,
      events: this.events,
      roster: this.roster,
      mps: deps.mps,
      mig: deps.mig,
      serverEnvironment: deps.serverEnvironment,
    });
    this.launches = new LaunchQueue(
      settings.launchConcurrency ?? DEFAULT_LAUNCH_CONCURRENCY,
      clock,
      (jobId) => this.launchJob(jobId),
      (jobId, error) => logger.error({ jobId, err: error }, 'launching the job failed'),
    );
    deps.disk?.onRecovered(() => {
      this.monitor();
      this.reschedule('disk-recovered');
    });
  }

  /** True while the data directory's disk is known to be full: passes wait, ended attempts are settled later. */
  private get diskFull(): boolean {
    return (this.deps.disk?.fullReason() ?? null) !== null;
  }

  /** True when `error` is a full disk (then reported, and not logged here: the disk watch logs each change once). */
  private isDiskFull(error: unknown): boolean {
    return this.deps.disk?.noteError(error) ?? isDiskFullError(error);
  }

  /** Store writes waiting for room on the disk (launches to record). */
  get pendingWriteCount(): number {
    return this.pendingWrites.size;
  }

  /** True once `drain` was called. */
  get draining(): boolean {
    return this.drainingFlag;
  }

  /** GPUs reconfigured (MIG instances destroyed or created) since the server started. */
  get migReconfigurations(): number {
    return this.launch.migReconfigurations;
  }

  /** GPUs as the scheduler sees them: schedulable = healthy and not cordoned. */
  gpuDevices(): GpuDevice[] {
    return this.roster.devices();
  }

  /** The latest inventory record of each GPU, by index. */
  inventoryGpus(): InventoryGpu[] {
    return this.roster.inventoryGpus();
  }

  /** True when GPU `uuid` is cordoned. */
  isCordoned(uuid: string): boolean {
    return this.roster.isCordoned(uuid);
  }

  /**
   * What every GPU holds now (mode, jobs, allocated milli-GPU and memory) and its idle MIG
   * instances: derived from the store's scheduled and running jobs each time (nothing is cached).
   */
  allocations(): { usage: GpuUsage[]; idleMigInstances: (index: number) => MigInstance[] } {
    const state = new ClusterState(this.pass.snapshot(), {
      profile: (n) => findPolicy('best-fit')!.create({ nodeCount: n }),
      rng: this.deps.rng,
      timesliceOvercommitRatio: this.deps.settings.timesliceOvercommitRatio,
    });
    const node = this.deps.settings.nodeName;
    return { usage: state.usage(node), idleMigInstances: (index) => state.idleMigInstances(node, index) };
  }

  /** Why a pending job waits (recomputed every pass); null when not known yet. */
  waitingReason(jobId: number): WaitReason | null {
    return this.queue.reasonOf(jobId);
  }

  /** From now on, launches wait until `setServerUrl` (so every job gets GPUSHARE_URL); call before `start`. */
  awaitServerUrl(): void {
    this.serverUrl.awaitIt();
  }

  /**
   * The server's URL as jobs reach it (`GPUSHARE_URL`), e.g. `https://127.0.0.1:7070`, and the PEM
   * of the CA that signed its certificate (`GPUSHARE_CA_CERT`; null: none, e.g. plain HTTP);
   * releases waiting launches.
   */
  setServerUrl(url: string, caCertPem: string | null = null): void {
    this.serverUrl.set(url, caCertPem);
  }

  /** Reads the MIG instances, re-adopts or settles every job the store says is active, then starts the timers. */
  async start(): Promise<void> {
    const { store, mig, settings, clock, logger } = this.deps;
    if (mig)
      await adoptExistingInstances(mig, this.roster, this.roster.devices(), (gpu, error) =>
        logger.warn({ gpu, err: error }, 'reading the MIG instances failed'),
      );
    await reconcileJobs({
      store,
      launcher: this.deps.launcher,
      logger,
      clock,
      files: this.deps.files,
      intents: this.intents,
      adopt: (job) => this.adoptRunning(job),
      finish: (job, outcome) => this.finish(job, outcome),
      resumeStop: (id) => this.runningSet.stopProcess(id),
    });
    for (const job of store.listJobs({ states: ['pending', 'preempted'] })) this.queue.add(job);
    this.timers.push(clock.every(settings.monitorIntervalMs, () => this.monitor()));
    this.timers.push(clock.every(settings.scheduleIntervalMs, () => this.requestPass()));
    this.timers.push(
      clock.every(settings.monitorIntervalMs, () => publishQosChanges(this.qosTarget(), this.qos.check())),
    );
    this.timers.push(clock.every(Math.min(settings.logRetentionMs, 3_600_000), () => this.sweepRetention()));
    this.requestPass();
  }

  /** Stops timers and thaws time-sliced jobs; running jobs keep running (re-adopted on the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.launches.stop();
    for (const t of this.timers) t.cancel();
    this.timers = [];
    await this.rotator.stop();
  }

  /** Adds a stored pending job (just submitted) to the queue and asks for a pass. */
  submitted(job: JobRecord): void {
    this.recentShapes.add(job.gpu);
    this.queue.add(job);
    this.reschedule('submitted');
  }

  /** Removes a job from the queue (cancelled while pending) and asks for a pass (it may have been the job backfill protected). */
  dequeue(jobId: number): void {
    this.dequeueMany([jobId]);
  }

  /** Removes jobs from the queue (cancelled while pending) and asks for one pass when any was queued. */
  dequeueMany(jobIds: readonly number[]): void {
    let removed = false;
    for (const jobId of jobIds) {
      if (!this.queue.has(jobId)) continue;
      this.queue.remove(jobId);
      removed = true;
    }
    if (removed) this.reschedule('dequeued');
  }

  /** Notes that `cause` happened (pass-hints.ts) and asks for a pass soon. */
  reschedule(cause: PassCause): void {
    this.pass.note(cause);
    this.requestPass();
  }

  /** Asks for a scheduling pass soon; many requests in one tick make one pass. It runs only if something was noted since the last one (pass-hints.ts). */
  requestPass(): void {
    if (this.passQueued || this.stopped) return;
    this.passQueued = true;
    this.deps.clock.after(0, () => {
      this.passQueued = false;
      if (!this.stopped) this.runPass();
    });
  }

  /** Number of pending jobs in the queue. */
  pendingCount(): number {
    return this.queue.size;
  }

  /**
   * One scheduling pass (see scheduling-pass.ts), then the launches and stops it decided; skipped
   * (counted in `passStats`) when nothing was noted since the last one (pass-hints.ts).
   */
  runPass(): void {
    this.passIfDue(false);
  }

  /** A pass now over every queued job, whatever the hints say (the benchmark's baseline). */
  forcePass(): void {
    this.passIfDue(true);
  }

  private passIfDue(force: boolean): void {
    // A full disk: the pass could store nothing; it runs again when space returns.
    if (this.drainingFlag || this.diskFull) return;
    const outcome = this.pass.runIfDue(force);
    if (outcome === null) return;
    this.launches.enqueue(outcome.placedJobIds);
    for (const victimId of outcome.preemption?.victimIds ?? [])
      if (this.running.has(victimId)) void this.runningSet.stopProcess(victimId);
  }

  /** True when the host runs MPS control daemons (nvidia-cuda-mps-control found): `mps` shares are then driver limits per process. */
  get mpsAvailable(): boolean {
    return this.deps.mps != null;
  }

  /** True when GPU `uuid` has a running MPS daemon (its MPS limits are enforced by the driver). */
  hasMpsDaemon(uuid: string): boolean {
    return this.deps.mps?.running().includes(uuid) ?? false;
  }

  /** Records a stop intent and stops the job's process (preemption: its signal and grace period). */
  async stopJob(jobId: number, intent: StopIntent): Promise<void> {
    if (!this.intents.set(jobId, intent)) return;
    if (this.running.has(jobId)) await this.runningSet.stopProcess(jobId);
  }

  /** Checks every running job for exit, lost processes and time limits. */
  monitor(): void {
    const now = this.deps.clock.nowMs();
    if (!this.diskFull && this.pendingWrites.size > 0) this.pendingWrites.retry(this.deps.logger);
    for (const job of this.running.all()) {
      try {
        this.monitorJob(job, now);
      } catch (error) {
        // A full disk: the attempt is settled on a later tick, once there is room (its outcome
        // stays in its folder meanwhile); logged once by the disk watch, not per job and tick.
        if (this.isDiskFull(error)) continue;
        // One job's trouble (e.g. a store conflict) must not stop the others from being watched.
        this.deps.logger.error({ jobId: job.id, err: error }, 'watching the job failed');
      }
    }
    if (this.drainingFlag && this.running.size === 0 && this.onDrained) {
      const done = this.onDrained;
      this.onDrained = null;
      done();
    }
  }

  /** Stops taking new jobs; `whenDrained` runs once no job is running. */
  drain(whenDrained: () => void): void {
    this.drainingFlag = true;
    this.onDrained = whenDrained;
    this.monitor();
  }

  /** Running jobs, by id. */
  runningJobs(): JobRecord[] {
    return this.running.all();
  }

  /** Applies a new GPU list (health poll) and/or cordons and reschedules. */
  updateGpus(gpus: readonly InventoryGpu[] | null, cordoned?: Iterable<string>): void {
    this.roster.update(gpus, cordoned);
    this.queue.sizes.clear();
    this.events.emit({ type: 'gpus' });
    this.reschedule('gpus-changed');
  }

  private async launchJob(jobId: number): Promise<void> {
    const { url, caCert } = await this.serverUrl.whenKnown();
    const intent = this.intents.get(jobId);
    if (intent?.kind === 'cancelled' && this.launch.cancelInstead(jobId, intent.reason)) {
      this.intents.delete(jobId);
      this.reschedule('job-ended');
      return;
    }
    const reconfigurationsBefore = this.launch.migReconfigurations;
    const result = await this.launch.launch(jobId, url, caCert);
    if (this.launch.migReconfigurations !== reconfigurationsBefore) this.pass.note('gpus-changed');
    if (result.kind === 'disk-full') {
      this.isDiskFull(result.error);
      this.pendingWrites.add(jobId, result.label, () => {
        result.write();
        const job = this.deps.store.getJob(jobId)!;
        if (result.started) {
          this.adoptRunning(job);
          if (this.intents.has(jobId)) void this.runningSet.stopProcess(jobId);
          this.requestPass();
        } else {
          this.queue.add(job);
          this.reschedule('requeued');
        }
      });
      return;
    }
    if (result.kind === 'failed') this.reschedule('launch-failed');
    if (result.kind !== 'started') return;
    this.adoptRunning(this.deps.store.getJob(jobId)!);
    if (this.intents.has(jobId)) void this.runningSet.stopProcess(jobId);
  }

  private adoptRunning(job: JobRecord): void {
    this.runningSet.adopt(job, this.deps.store.listAttempts(job.id).filter((a) => a.endReason === 'preempted').length);
  }

  private monitorJob(job: JobRecord, now: number): void {
    const { launcher } = this.deps;
    const handle = job.process!;
    const outcome = launcher.readOutcome(handle);
    // With the disk full, an ended attempt waits (its outcome file keeps its end, exit code and
    // times) until a write can record it: settled on the first tick after space returns.
    if (outcome) {
      if (!this.diskFull) this.finish(job, outcome);
      return;
    }
    if (!launcher.isAlive(handle)) {
      if (this.diskFull) return;
      this.finish(job, launcher.readOutcome(handle));
      return;
    }
    if (
      job.timeLimitSeconds !== null &&
      job.startedAtMs !== null &&
      now - job.startedAtMs > job.timeLimitSeconds * 1000 &&
      !this.intents.has(job.id)
    ) {
      this.deps.logger.info({ jobId: job.id }, 'time limit reached');
      void this.stopJob(job.id, { kind: 'time-limit' });
    }
  }

  /**
   * Settles a finished attempt: `outcome` null means the process vanished without a record (`lost`).
   * Failed attempts with retries left and preempted attempts go back to the queue.
   */
  private finish(
    job: JobRecord,
    outcome:
      | (Pick<ProcessOutcome, 'exitCode' | 'signal' | 'signalDeliveredAtMs'> & {
          endedAtMs?: number;
          error?: string | null;
        })
      | null,
  ): void {
    const { store, clock } = this.deps;
    // The time the process really ended (recorded by its supervisor), not when the server noticed;
    // never before the job's recorded start (a command that exits at once can end before the
    // server has written `running`).
    const now = Math.max(outcome?.endedAtMs ?? clock.nowMs(), job.startedAtMs ?? Number.NEGATIVE_INFINITY);
    // Every earlier attempt that ended, except by preemption, was a failure (a success ends the job).
    const failuresBefore = store
      .listAttempts(job.id)
      .filter((a) => a.endReason !== null && a.endReason !== 'preempted').length;
    const { to, reason, endReason, terminal } = decideAttemptEnd(
      outcome,
      this.intents.get(job.id),
      failuresBefore,
      job.retries,
    );
    store.applyJobChanges([
      {
        jobId: job.id,
        atMs: now,
        expectState: job.state,
        to,
        reason,
        patch: {
          process: null,
          exitCode: outcome?.exitCode ?? null,
          signal: outcome?.signal ?? null,
          reportTokenDigest: null,
          ...(terminal ? { endedAtMs: now } : {}),
        },
        endAttempt: {
          attempt: job.attempt,
          exitCode: outcome?.exitCode ?? null,
          signal: outcome?.signal ?? null,
          endReason,
        },
      },
    ]);
    this.runningSet.drop(job);
    if (!terminal) this.queue.add(store.getJob(job.id)!);
    this.reschedule(terminal ? 'job-ended' : 'requeued');
  }

  private qosTarget() {
    return {
      store: this.deps.store,
      logger: this.deps.logger,
      events: this.events,
      requestPass: () => this.reschedule('qos-changed'),
    };
  }

  private sweepRetention(): void {
    const cutoff = this.deps.clock.nowMs() - this.deps.settings.logRetentionMs;
    for (const job of this.deps.store.listJobs({ states: ['succeeded', 'failed', 'cancelled'] })) {
      if (job.folder !== null && job.endedAtMs !== null && job.endedAtMs < cutoff) this.deps.files.remove(job.folder);
    }
  }
}

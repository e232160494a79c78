/**
 * The standalone control plane: takes jobs, places them with the scheduler core, launches them, watches
 * them to the end, and keeps every change in the store (the truth) so a restart loses nothing (docs/server.md).
 * A facade over parts with one job each, driven from the `Clock` port (docs/architecture.md): `JobQueue`,
 * `SchedulingPass` and `PassTrigger` (passes when due), `LaunchCoordinator` (launches), `AttemptMonitor`
 * (attempts to their end), `RunningSet`/`RunningJobs` (live attempts), `StopIntents`, `GpuRoster`, `Retention`,
 * `Drain`.
 */
import { type GpuUsage, type MigInstance, type WaitReason, SchedulingSession } from '../../core/index.js';
import type { Timer } from '../ports/clock.js';
import type { HostLimitEvents } from '../ports/process-launcher.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { JobRecord } from '../ports/state-store.js';
import { publishQosChanges } from '../qos/qos-publish.js';
import { QosTracker } from '../qos/qos-tracker.js';
import { LatestUsage } from '../usage/latest-usage.js';
import { UsagePeaks } from '../usage/usage-peaks.js';
import { AttemptMonitor } from './attempt-monitor.js';
import type { StopIntent } from './attempt-end.js';
import { RECENT_SHAPES_KEPT } from './cluster-usage.js';
import { DiskState } from './disk-state.js';
import { Drain } from './drain.js';
import { GpuRoster } from './gpu-roster.js';
import { JobLaunch } from './job-launch.js';
import {
  enforcedHostLimits,
  NO_JOB_HOST_LIMITS,
  type EnforcedHostLimits,
  type JobHostLimitSettings,
} from './job-host-limits.js';
import { JobQueue } from './job-queue.js';
import { LaunchCoordinator } from './launch-coordinator.js';
import { adoptExistingInstances } from './mig-agent.js';
import type { PassCause } from './pass-hints.js';
import { PassStats } from './pass-stats.js';
import { PassTrigger } from './pass-trigger.js';
import type { ControlPlaneDeps } from './plane-deps.js';
import type { PlaneEvents } from './plane-events.js';
import { RecentShapes } from './recent-shapes.js';
import { reconcileJobs } from './reconcile.js';
import { Retention } from './retention.js';
import { RunningJobs } from './running-jobs.js';
import { RunningSet } from './running-set.js';
import { SchedulingPass } from './scheduling-pass.js';
import { StopIntents } from './stop-intents.js';
import { TimesliceRotator } from './timeslice-rotator.js';

/**
 * Longest wait at stop for the launches in flight, ms: longer than a launch's own wait for the
 * supervisor's answer (10 s), so a launch that ends ends recorded.
 */
const STOP_LAUNCH_WAIT_MS = 15_000;

/** The control plane of one server. */
export class ControlPlane {
  readonly passStats = new PassStats();
  /** Passes, MIG reconfigurations and GPU changes (job transitions: see observed-store.ts). */
  readonly events: PlaneEvents;
  /** QoS targets and reports of running jobs (docs/qos.md). */
  readonly qos: QosTracker;
  /** The latest measured GPU usage (kept by the usage poller, src/app/usage/usage-poller.ts). */
  readonly usage = new LatestUsage();
  /** Each running job's peak measured GPU memory and utilization, raised from samples and reports (stored). */
  readonly peaks: UsagePeaks;
  /** GPUs (as the scheduler sees them, and their inventory records), cordons and MIG instances. */
  readonly roster: GpuRoster;
  /** Shapes of the recent submits: the scheduler's target workload. */
  readonly recentShapes: RecentShapes;
  private readonly queue: JobQueue;
  private readonly intents = new StopIntents();
  private readonly running = new RunningJobs();
  private readonly drainState = new Drain();
  private readonly disk: DiskState;
  private readonly rotator: TimesliceRotator;
  private readonly runningSet: RunningSet;
  private readonly pass: SchedulingPass;
  private readonly launches: LaunchCoordinator;
  private readonly attempts: AttemptMonitor;
  private readonly retention: Retention;
  private readonly trigger: PassTrigger;
  private timers: Timer[] = [];

  /** @throws RangeError when `settings.launchConcurrency` is not an integer ≥ 1 or `settings.policy` is unknown */
  constructor(private readonly deps: ControlPlaneDeps) {
    const { settings, store, clock, logger, launcher } = deps;
    this.events = deps.events;
    // The core's session owns the queue; each pass refreshes it from the snapshot of its time.
    this.queue = new JobQueue(new SchedulingSession({ nodes: [], active: [] }, deps.rng), settings.jobHostLimits);
    this.disk = new DiskState(deps.disk);
    this.peaks = new UsagePeaks(store, logger);
    this.qos = new QosTracker({ nowMs: () => clock.nowMs(), violationSeconds: settings.qosViolationSeconds ?? 60 });
    this.roster = new GpuRoster(deps.initialGpus, store.listCordonedGpus());
    this.recentShapes = new RecentShapes(store.listJobs({ newest: RECENT_SHAPES_KEPT }).map((j) => j.gpu));
    this.rotator = new TimesliceRotator(launcher, clock, { periodMs: settings.timeslicePeriodMs, logger });
    // What the parts share; each takes the part of it its own deps interface names.
    const { queue, intents, running, qos, roster, recentShapes, rotator, disk } = this;
    const parts = { ...deps, queue, intents, running, qos, roster, recentShapes, rotator, disk, stats: this.passStats };
    this.runningSet = new RunningSet(parts);
    this.pass = new SchedulingPass(parts);
    const wired = {
      ...parts,
      runningSet: this.runningSet,
      pass: this.pass,
      drain: this.drainState,
      requestPass: () => this.requestPass(),
      reschedule: (cause: PassCause) => this.reschedule(cause),
    };
    this.launches = new LaunchCoordinator({ ...wired, launch: new JobLaunch(parts) });
    this.trigger = new PassTrigger({ ...wired, launches: this.launches });
    this.attempts = new AttemptMonitor(wired);
    this.retention = new Retention(parts);
    deps.disk?.onRecovered(() => {
      this.monitor();
      this.reschedule('disk-recovered');
    });
  }

  /** True once `drain` was called. */
  get draining(): boolean {
    return this.drainState.draining;
  }

  /** GPUs reconfigured (MIG instances destroyed or created) since the server started. */
  get migReconfigurations(): number {
    return this.launches.migReconfigurations;
  }

  /** What each GPU holds (mode, jobs, milli-GPU, memory) and its idle MIG instances: from the store on every call. */
  allocations(): { usage: GpuUsage[]; idleMigInstances: (index: number) => MigInstance[] } {
    const state = this.pass.clusterState();
    const node = this.deps.settings.nodeName;
    return { usage: state.usage(node), idleMigInstances: (index) => state.idleMigInstances(node, index) };
  }

  /** Why a pending job waits (recomputed every pass); null when not known yet. */
  waitingReason(jobId: number): WaitReason | null {
    return this.queue.reasonOf(jobId);
  }

  /** From now on launches wait for `setServerUrl` (every job gets GPUSHARE_URL); call before `start`. */
  awaitServerUrl(): void {
    this.launches.serverUrl.awaitIt();
  }

  /** Sets the URL jobs reach the server at (`https://127.0.0.1:7070`), its CA's PEM; releases waiting launches. */
  setServerUrl(url: string, caCertPem: string | null = null): void {
    this.launches.serverUrl.set(url, caCertPem);
  }

  /** Reads the MIG instances, re-adopts or settles the jobs the store says are active, starts the timers. */
  async start(): Promise<void> {
    const { store, mig, settings, clock, logger } = this.deps;
    if (mig)
      await adoptExistingInstances(mig, this.roster, this.roster.devices(), (gpu, error) =>
        logger.warn({ gpu, err: error }, 'reading the MIG instances failed'),
      );
    await reconcileJobs({
      ...this.deps,
      intents: this.intents,
      adopt: (job) => this.runningSet.adopt(job),
      finish: (job, outcome) => this.attempts.settle(job, outcome),
      resumeStop: (id) => this.runningSet.stopProcess(id),
    });
    for (const job of store.listJobs({ states: ['pending', 'preempted'] })) this.queue.add(job);
    const qosTarget = { store, logger, events: this.events, requestPass: () => this.reschedule('qos-changed') };
    this.timers.push(
      clock.every(settings.monitorIntervalMs, () => this.monitor()),
      clock.every(settings.scheduleIntervalMs, () => this.requestPass()),
      clock.every(settings.monitorIntervalMs, () => publishQosChanges(qosTarget, this.qos.check())),
      clock.every(this.retention.intervalMs, () => this.retention.sweep()),
    );
    this.requestPass();
  }

  /**
   * Stops timers and thaws time-sliced jobs; running jobs keep running (re-adopted on the next
   * start). Launches already in flight finish and are recorded first, for at most
   * {@link STOP_LAUNCH_WAIT_MS}: the caller closes the store and the launcher after this.
   */
  async stop(): Promise<void> {
    this.trigger.stop();
    this.launches.stop();
    for (const t of this.timers) t.cancel();
    this.timers = [];
    if (!(await this.launches.settled(STOP_LAUNCH_WAIT_MS)))
      this.deps.logger.warn(
        { waitedMs: STOP_LAUNCH_WAIT_MS },
        'stopping with launches still in flight: the next start settles them',
      );
    await this.rotator.stop();
  }

  /** Adds a stored pending job (just submitted) to the queue and asks for a pass. */
  submitted(job: JobRecord): void {
    this.recentShapes.add(job.gpu);
    this.queue.add(job);
    this.reschedule('submitted');
  }

  /** Removes a job cancelled while pending from the queue; asks for a pass (backfill may have protected it). */
  dequeue(jobId: number): void {
    this.dequeueMany([jobId]);
  }

  /** Removes jobs cancelled while pending from the queue; asks for one pass when any was queued. */
  dequeueMany(jobIds: readonly number[]): void {
    const queued = jobIds.filter((jobId) => this.queue.has(jobId));
    for (const jobId of queued) this.queue.remove(jobId);
    if (queued.length > 0) this.reschedule('dequeued');
  }

  /** Notes that `cause` happened (pass-hints.ts) and asks for a pass soon. */
  reschedule(cause: PassCause): void {
    this.pass.note(cause);
    this.requestPass();
  }

  /** Asks for a scheduling pass soon; many requests in one tick make one pass, run only if due (pass-hints.ts). */
  requestPass(): void {
    this.trigger.request();
  }

  /** Number of pending jobs in the queue. */
  pendingCount(): number {
    return this.queue.size;
  }

  /** A pass if one is due (pass-hints.ts; a skip is counted in `passStats`), then its launches and stops. */
  runPass(): void {
    this.trigger.run(false);
  }

  /** A pass now over every queued job, whatever the hints say (the benchmark's baseline). */
  forcePass(): void {
    this.trigger.run(true);
  }

  /** True when the host runs MPS control daemons: `mps` shares are then driver limits per process. */
  get mpsAvailable(): boolean {
    return this.deps.mps != null;
  }

  /** The default host limits of jobs (job-host-limits.ts). */
  get jobHostLimits(): JobHostLimitSettings {
    return this.deps.settings.jobHostLimits ?? NO_JOB_HOST_LIMITS;
  }

  /**
   * The host limits `job` runs (or would run) under on this host, and for a running job what the kernel counted
   * against them so far (null when not running or not known).
   */
  hostLimitsOf(job: JobRecord): EnforcedHostLimits & { readonly events: HostLimitEvents | null } {
    const { launcher } = this.deps;
    const events =
      job.state === 'running' && job.process !== null && launcher.limitEvents !== undefined
        ? launcher.limitEvents(job.process)
        : null;
    return { ...enforcedHostLimits(job, this.jobHostLimits, launcher.enforcement), events };
  }

  /** True when GPU `uuid` has a running MPS daemon (its MPS limits are enforced by the driver). */
  hasMpsDaemon(uuid: string): boolean {
    return this.deps.mps?.running().includes(uuid) ?? false;
  }

  /** Records a stop intent and stops the job's process (preemption: its signal and grace period). */
  async stopJob(jobId: number, intent: StopIntent): Promise<void> {
    await this.runningSet.stop(jobId, intent);
  }

  /** One monitor tick: held launch writes, every running job (exit, lost process, time limit), the drain. */
  monitor(): void {
    this.launches.retryHeldWrites();
    this.attempts.check();
    this.drainState.check(this.running.size);
  }

  /** Stops taking new jobs; `whenDrained` runs once no job is running. */
  drain(whenDrained: () => void): void {
    this.drainState.begin(whenDrained);
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
}

/**
 * The standalone control plane: takes jobs, places them with the scheduler core, launches them
 * through the process launcher, watches them to the end, and keeps every change in the store (the
 * truth) so a restart loses nothing. Timers and I/O come from the injected ports; see
 * docs/server.md for the lifecycle.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ServerScheduler, type GpuDevice, type Placement } from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { ProcessHandle, ProcessOutcome } from '../ports/process-launcher.js';
import type { JobChange, JobRecord } from '../ports/state-store.js';
import { decideAttemptEnd, type StopIntent } from './attempt-end.js';
import { buildJobEnvironment } from './job-environment.js';
import type { ControlPlaneDeps } from './ports-bundle.js';
import { TimesliceRotator } from './timeslice-rotator.js';
import { JobQueue } from './job-queue.js';
import { visibleDevicesOf } from './visible-devices.js';
import { PassStats } from './pass-stats.js';
import { describePlacement } from './placement-reason.js';
import { mpsPipeFor, stopIdleMpsDaemons } from './mps-agent.js';
import { PREEMPTION_REQUESTED, reconcileJobs } from './reconcile.js';
import { adoptExistingInstances, prepareMigInstances } from './mig-agent.js';
import { sweepJobDirectories } from './log-files.js';
import { buildPassPolicy, type PassPolicy } from './pass-policy.js';
import { decidePreemption } from './preemption-driver.js';
import { PlaneEvents } from './plane-events.js';
import { QosTracker } from '../qos/qos-tracker.js';
import { publishQosChanges } from '../qos/qos-publish.js';
import { generateToken, tokenDigest } from '../auth/tokens.js';
import { LatestUsage } from '../usage/latest-usage.js';

/** Why a running job is being stopped by gpushare (decides its final state). */

/** The control plane of one server. */
export class ControlPlane {
  readonly scheduler: ServerScheduler;
  readonly passStats = new PassStats();
  /** Passes, MIG reconfigurations and GPU changes (job transitions: see observed-store.ts). */
  readonly events: PlaneEvents;
  /** QoS targets and reports of running jobs (docs/qos.md). */
  readonly qos: QosTracker;
  /** The latest measured GPU usage (kept by the usage poller, src/app/usage/usage-poller.ts). */
  readonly usage = new LatestUsage();
  /** GPUs reconfigured (MIG instances destroyed or created) since the server started. */
  migReconfigurations = 0;
  /** Jobs waiting to run, with their waiting reasons. */
  private readonly queue = new JobQueue();
  private readonly running = new Map<number, JobRecord>();
  private readonly intents = new Map<number, StopIntent>();
  /** Preemptions in flight: preemptor id → its victims. */
  private readonly preemptors = new Map<number, readonly number[]>();
  private readonly rotator: TimesliceRotator;
  private inventory = new Map<number, InventoryGpu>();
  private cordoned: Set<string>;
  private timers: NodeJS.Timeout[] = [];
  private passQueued = false;
  private stopped = false;
  private drainingFlag = false;
  private onDrained: (() => void) | null = null;
  /** The server's URL, given to jobs as GPUSHARE_URL (known after listen). */
  private serverUrl: string | null = null;
  private serverUrlKnown: Promise<void> = Promise.resolve();
  private resolveServerUrl: (() => void) | null = null;

  constructor(readonly deps: ControlPlaneDeps) {
    const { settings } = deps;
    this.events = deps.events ?? new PlaneEvents();
    this.qos = new QosTracker({ nowMs: deps.nowMs, violationSeconds: settings.qosViolationSeconds ?? 60 });
    this.cordoned = new Set(deps.store.listCordonedGpus());
    for (const gpu of deps.initialGpus) this.inventory.set(gpu.index, gpu);
    this.scheduler = new ServerScheduler(this.gpuDevices(), { hostCpuMilli: settings.hostCpuMilli, hostMemoryMiB: settings.hostMemoryMiB, timesliceOvercommitRatio: settings.timesliceOvercommitRatio, rng: deps.rng });
    this.rotator = new TimesliceRotator(deps.launcher, { periodMs: settings.timeslicePeriodMs });
  }

  /** True once `drain` was called. */
  get draining(): boolean {
    return this.drainingFlag;
  }

  /** GPUs as the scheduler sees them: schedulable = healthy and not cordoned. */
  gpuDevices(): GpuDevice[] {
    return [...this.inventory.values()].map((g) => ({ index: g.index, uuid: g.uuid, model: g.model, gpuMemoryMiB: g.gpuMemoryMiB, migEnabled: g.migEnabled, schedulable: g.healthy && !this.cordoned.has(g.uuid) }));
  }

  /** The latest inventory record of each GPU, by index. */
  inventoryGpus(): InventoryGpu[] {
    return [...this.inventory.values()].sort((a, b) => a.index - b.index);
  }

  /** True when GPU `uuid` is cordoned. */
  isCordoned(uuid: string): boolean {
    return this.cordoned.has(uuid);
  }

  /** The waiting reason of a pending job (not stored: recomputed every pass). */
  waitingReason(jobId: number): string | null {
    return this.queue.reasonOf(jobId);
  }

  /** From now on, launches wait until `setServerUrl` (so every job gets GPUSHARE_URL); call before `start`. */
  awaitServerUrl(): void {
    if (this.serverUrl === null && this.resolveServerUrl === null) this.serverUrlKnown = new Promise((resolve) => (this.resolveServerUrl = resolve));
  }

  /** The server's URL as jobs reach it (`GPUSHARE_URL`), e.g. `http://127.0.0.1:7070`; releases waiting launches. */
  setServerUrl(url: string): void {
    this.serverUrl = url;
    this.resolveServerUrl?.();
    this.resolveServerUrl = null;
  }

  /** Re-adopts or settles every job the store says is active, then starts the timers. */
  async start(): Promise<void> {
    const { store, mig } = this.deps;
    if (mig) await adoptExistingInstances(mig, this.scheduler, this.gpuDevices(), (gpu, error) => this.deps.logger.warn({ gpu, err: error }, 'reading the MIG instances failed'));
    await reconcileJobs(this);
    for (const job of store.listJobs({ states: ['pending', 'preempted'] })) this.enqueue(job);
    const { settings } = this.deps;
    this.timers.push(setInterval(() => this.monitor(), settings.monitorIntervalMs));
    this.timers.push(setInterval(() => this.requestPass(), settings.scheduleIntervalMs));
    this.timers.push(setInterval(() => publishQosChanges(this, this.qos.check()), settings.monitorIntervalMs));
    this.timers.push(setInterval(() => this.sweepRetention(), Math.min(settings.logRetentionMs, 3_600_000)));
    this.requestPass();
  }

  /** Stops timers and thaws time-sliced jobs; running jobs keep running (re-adopted on the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.rotator.stop();
  }

  /** Adds a stored pending job to the in-memory queue. */
  enqueue(job: JobRecord): void {
    this.queue.add(job);
  }

  /** Removes a job from the in-memory queue (cancelled while pending). */
  dequeue(jobId: number): void {
    this.queue.remove(jobId);
  }

  /** Asks for a scheduling pass soon; many requests in one tick make one pass. */
  requestPass(): void {
    if (this.passQueued || this.stopped) return;
    this.passQueued = true;
    setImmediate(() => {
      this.passQueued = false;
      if (!this.stopped) this.runPass();
    });
  }

  /** Number of pending jobs in the queue. */
  pendingCount(): number {
    return this.queue.size;
  }

  /**
   * One scheduling pass over every pending job; placements are stored (pending → scheduled) in one
   * transaction and then launched.
   */
  runPass(): void {
    if (this.drainingFlag || this.queue.size === 0) return;
    const started = performance.now();
    const { store, settings } = this.deps;
    const now = this.deps.nowMs();
    const active = store.listJobs({ states: ['scheduled', 'running'] });
    const qosViolators = settings.qosProtection === 'none' ? [] : this.qos.violatingJobs();
    const policy = buildPassPolicy({ active, tenants: store.listTenants(), devices: this.gpuDevices(), hostCpuMilli: settings.hostCpuMilli, nowMs: now, timeLimitSecondsOf: (id) => this.queue.timeLimitOf(id), sizeCache: this.queue.sizes, qosViolators });
    const { placed, waiting, protectedWaiting } = this.scheduler.runPass(this.queue.all(), policy.options);
    for (const [id, reason] of waiting) this.queue.setReason(id, reason);
    this.refreshPreemptorReasons();
    // A job kept off protected GPUs waits for the QoS violation to end, not for a preemption.
    this.preemptIfNeeded(policy, protectedWaiting.size === 0 ? waiting : new Map([...waiting].filter(([id]) => !protectedWaiting.has(id))), now);
    const durationMs = performance.now() - started;
    this.passStats.record(durationMs, this.queue.size);
    this.events.emit({ type: 'pass', durationMs, pendingJobs: this.queue.size, placedJobs: placed.length });
    if (placed.length === 0) return;
    const changes: JobChange[] = placed.map(({ jobId, placement }) => ({ jobId, atMs: now, expectState: this.queue.stateOf(jobId), to: 'scheduled', reason: describePlacement(placement, this.queue.get(jobId), this.inventory), patch: { placement, reason: null } }));
    try {
      this.deps.store.applyJobChanges(changes);
    } catch (error) {
      for (const { jobId } of placed) this.scheduler.release(jobId);
      this.deps.logger.error({ err: error }, 'storing placements failed; they were undone');
      return;
    }
    for (const { jobId } of placed) {
      this.dequeue(jobId);
      void this.launch(jobId);
    }
  }

  /**
   * Starts at most one preemption (see preemption-driver.ts) when no other is in flight: victims get
   * the preemption signal in this pass and their capacity returns when they exit or their grace
   * period ends.
   */
  private preemptIfNeeded(policy: PassPolicy, waiting: ReadonlyMap<number, string>, nowMs: number): void {
    if (waiting.size === 0 || [...this.intents.values()].some((i) => i.kind === 'preempted')) return;
    const { settings, store } = this.deps;
    const decision = decidePreemption({
      waitingIds: [...waiting.keys()], pendingOf: (id) => this.queue.get(id), policy, scheduler: this.scheduler, devices: this.gpuDevices(), nowMs,
      running: [...this.running.values()].filter((j) => !this.intents.has(j.id)),
      preemptionCountOf: (id) => store.listAttempts(id).filter((a) => a.endReason === 'preempted').length,
      minRunSeconds: settings.preemptionMinRunMs / 1000, maxPreemptionsPerJob: settings.maxPreemptionsPerJob, maxPreemptorsTried: 1,
    });
    if (!decision) return;
    const preemptor = this.queue.get(decision.preemptorId)!;
    this.deps.logger.info({ ...decision }, 'preempting');
    this.preemptors.set(preemptor.id, decision.victimIds);
    const reason = `preempted by job ${preemptor.id} (priority ${preemptor.priority}, tenant ${preemptor.tenant})`;
    // The intent is stored with the victim (reason `preemption requested: …`) so that a restart
    // during the checkpoint still ends the attempt as preempted.
    try {
      store.applyJobChanges(decision.victimIds.map((jobId) => ({ jobId, atMs: nowMs, expectState: 'running' as const, patch: { reason: `${PREEMPTION_REQUESTED}: ${reason}` } })));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'recording the preemption failed; the victims are stopped anyway');
    }
    for (const victimId of decision.victimIds) void this.stopJob(victimId, { kind: 'preempted', reason });
    this.refreshPreemptorReasons();
  }

  /** Shows `preempting job(s) …` on preemptors whose victims are still checkpointing; forgets the others. */
  private refreshPreemptorReasons(): void {
    for (const [preemptorId, victims] of this.preemptors) {
      const stopping = victims.filter((id) => this.intents.get(id)?.kind === 'preempted');
      if (stopping.length === 0 || !this.queue.has(preemptorId)) this.preemptors.delete(preemptorId);
      else this.queue.setReason(preemptorId, `preempting job(s) ${stopping.join(', ')}: waiting for them to checkpoint and exit`);
    }
  }

  /** Starts the next attempt of a scheduled job and records it as running. */
  async launch(jobId: number): Promise<void> {
    const { store, launcher, logger } = this.deps;
    await this.serverUrlKnown;
    let job = store.getJob(jobId)!;
    const attempt = job.attempt + 1;
    let placement = job.placement!;
    const jobDirectory = this.jobDirectory(jobId);
    const simulated = placement.gpus.some((g) => this.inventory.get(g.index)?.simulated ?? true);
    const resume = store.listAttempts(jobId).some((a) => a.endReason === 'preempted');
    const mpsPipeDirectory = await mpsPipeFor(this.deps.mps, this.deps.logger, placement);
    if (mpsPipeDirectory) {
      placement = { ...placement, gpus: placement.gpus.map((g) => ({ ...g, mpsClient: true })) };
      store.applyJobChanges([{ jobId, atMs: this.deps.nowMs(), expectState: 'scheduled', patch: { placement } }]);
    }
    // The attempt's report token: only its digest is stored; it stops working when the attempt ends.
    const reportToken = generateToken();
    store.applyJobChanges([{ jobId, atMs: this.deps.nowMs(), expectState: 'scheduled', patch: { reportTokenDigest: tokenDigest(reportToken) } }]);
    const environment = buildJobEnvironment({ reportToken, serverUrl: this.serverUrl, resume, mpsPipeDirectory, jobId, attempt, placement, visibleDevices: visibleDevicesOf(placement, this.inventory), jobEnvironment: { GPUSHARE_CHECKPOINT_DIR: join(jobDirectory, 'checkpoint'), ...job.environment }, serverEnvironment: this.deps.serverEnvironment, simulated });
    let handle: ProcessHandle;
    try {
      if (placement.mode === 'mig' && this.deps.mig) {
        const prepared = await prepareMigInstances(this.deps.mig, placement);
        this.migReconfigurations += prepared.reconfigured;
        if (prepared.reconfigured > 0) this.events.emit({ type: 'mig-reconfigured', gpuIndices: placement.gpus.map((g) => g.index), count: prepared.reconfigured });
        placement = prepared.placement;
        store.applyJobChanges([{ jobId, atMs: this.deps.nowMs(), expectState: 'scheduled', patch: { placement } }]);
        job = store.getJob(jobId)!;
        environment.CUDA_VISIBLE_DEVICES = visibleDevicesOf(placement, this.inventory).join(',');
      }
      mkdirSync(join(jobDirectory, 'checkpoint'), { recursive: true });
      handle = await launcher.start({ jobId, attempt, argv: job.command, workingDirectory: job.workingDirectory, environment, jobDirectory, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB });
    } catch (error) {
      logger.warn({ jobId, err: error }, 'launch failed');
      this.scheduler.release(jobId);
      store.applyJobChanges([{ jobId, atMs: this.deps.nowMs(), expectState: 'scheduled', to: 'failed', reason: `launch failed: ${(error as Error).message}`, patch: { attempt, endedAtMs: this.deps.nowMs(), reportTokenDigest: null } }]);
      this.requestPass();
      return;
    }
    const now = this.deps.nowMs();
    store.applyJobChanges([{ jobId, atMs: now, expectState: 'scheduled', to: 'running', reason: `attempt ${attempt} started (pid ${handle.supervisorPid})`, patch: { attempt, process: handle, startedAtMs: now }, startAttempt: attempt }]);
    this.adoptRunning(store.getJob(jobId)!);
    if (this.intents.has(jobId)) void this.stopProcess(jobId);
  }

  /** True when GPU `uuid` has a running MPS daemon (its MPS limits are enforced by the driver). */
  hasMpsDaemon(uuid: string): boolean {
    return this.deps.mps?.running().includes(uuid) ?? false;
  }

  /** Tracks a running job (after launch or re-adoption). */
  adoptRunning(job: JobRecord): void {
    this.running.set(job.id, job);
    if (job.qos) this.qos.track({ jobId: job.id, tenant: job.tenant, priority: job.priority, gpuIndices: job.placement?.gpus.map((g) => g.index) ?? [], targets: job.qos });
    // A re-adopted MPS client: find its GPU's daemon again (a live one is reused, not restarted).
    if (job.placement?.mode === 'mps' && job.placement.gpus[0]?.mpsClient && this.deps.mps && !this.deps.mps.running().includes(job.placement.gpus[0].uuid)) {
      void this.deps.mps.ensureDaemon({ key: job.placement.gpus[0].uuid }).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'MPS daemon not found again'));
    }
    if (job.placement?.mode === 'timeslice') this.refreshRotation(job.placement);
  }

  /** Records a stop intent and stops the job's process (preemption: its signal and grace period). */
  async stopJob(jobId: number, intent: StopIntent): Promise<void> {
    const current = this.intents.get(jobId);
    // A cancel wins over a preemption in progress (the job must not resume); otherwise the first intent stands.
    if (current === undefined || (intent.kind === 'cancelled' && current.kind === 'preempted')) this.intents.set(jobId, intent);
    else return;
    if (this.running.has(jobId)) await this.stopProcess(jobId);
  }

  /** Restores a stop intent stored before a restart (no signal is sent here). */
  restoreIntent(jobId: number, intent: StopIntent): void {
    this.intents.set(jobId, intent);
  }

  /** Sends the stop of a restored intent again (a re-adopted job that was being stopped). */
  async resumeStop(jobId: number): Promise<void> {
    if (this.running.has(jobId) && this.intents.has(jobId)) await this.stopProcess(jobId);
  }

  /** Jobs being stopped by gpushare and why (cancel, time limit, preemption), by id. */
  stopIntent(jobId: number): StopIntent | undefined {
    return this.intents.get(jobId);
  }

  /** Checks every running job for exit, lost processes and time limits. */
  monitor(): void {
    const now = this.deps.nowMs();
    for (const job of [...this.running.values()]) {
      try {
        this.monitorJob(job, now);
      } catch (error) {
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

  private monitorJob(job: JobRecord, now: number): void {
    const { launcher } = this.deps;
    const handle = job.process!;
    const outcome = launcher.readOutcome(handle);
    if (outcome) {
      this.finish(job, outcome);
      return;
    }
    if (!launcher.isAlive(handle)) {
      const late = launcher.readOutcome(handle);
      this.finish(job, late ?? null);
      return;
    }
    if (job.timeLimitSeconds !== null && job.startedAtMs !== null && now - job.startedAtMs > job.timeLimitSeconds * 1000 && !this.intents.has(job.id)) {
      this.deps.logger.info({ jobId: job.id }, 'time limit reached');
      void this.stopJob(job.id, { kind: 'time-limit' });
    }
  }

  /**
   * Settles a finished attempt: `outcome` null means the process vanished without a record (`lost`).
   * Failed attempts with retries left go back to the queue.
   */
  finish(job: JobRecord, outcome: (Pick<ProcessOutcome, 'exitCode' | 'signal'> & { endedAtMs?: number }) | null): void {
    // The time the process really ended (recorded by its supervisor), not when the server noticed.
    const now = outcome?.endedAtMs ?? this.deps.nowMs();
    // Every earlier attempt that ended, except by preemption, was a failure (a success ends the job).
    const failuresBefore = this.deps.store.listAttempts(job.id).filter((a) => a.endReason !== null && a.endReason !== 'preempted').length;
    const { to, reason, endReason, terminal } = decideAttemptEnd(outcome, this.intents.get(job.id), failuresBefore, job.retries);
    this.deps.store.applyJobChanges([{
      jobId: job.id, atMs: now, expectState: job.state, to, reason,
      patch: { process: null, exitCode: outcome?.exitCode ?? null, signal: outcome?.signal ?? null, reportTokenDigest: null, ...(terminal ? { endedAtMs: now } : {}) },
      endAttempt: { attempt: job.attempt, exitCode: outcome?.exitCode ?? null, signal: outcome?.signal ?? null, endReason },
    }]);
    this.running.delete(job.id);
    this.qos.forget(job.id);
    this.intents.delete(job.id);
    this.scheduler.release(job.id);
    if (job.placement?.mode === 'timeslice') {
      this.rotator.remove(job.id);
      this.refreshRotation(job.placement);
    }
    if (job.process) void this.deps.launcher.cleanup(job.process).catch(() => undefined);
    if (job.placement) stopIdleMpsDaemons(this.deps.mps, this.deps.logger, job.placement, [...this.running.values()]);
    if (!terminal) this.enqueue(this.deps.store.getJob(job.id)!);
    this.requestPass();
  }

  /** Stops taking new jobs; `whenDrained` runs once no job is running. */
  drain(whenDrained: () => void): void {
    this.drainingFlag = true;
    this.onDrained = whenDrained;
    this.monitor();
  }

  /** Running jobs, by id. */
  runningJobs(): JobRecord[] {
    return [...this.running.values()].sort((a, b) => a.id - b.id);
  }

  /** `<dataDir>/jobs/<id>`. */
  jobDirectory(jobId: number): string {
    return join(this.deps.settings.dataDir, 'jobs', String(jobId));
  }

  /** Applies a new GPU list (health poll, cordon) to the scheduler and reschedules. */
  updateGpus(gpus: readonly InventoryGpu[] | null, cordoned?: Iterable<string>): void {
    if (gpus) {
      const next = new Map(this.inventory);
      for (const gpu of gpus) next.set(gpu.index, gpu);
      this.inventory = next;
    }
    if (cordoned) this.cordoned = new Set(cordoned);
    this.queue.sizes.clear();
    this.scheduler.setGpus(this.gpuDevices());
    this.events.emit({ type: 'gpus' });
    this.requestPass();
  }

  private async stopProcess(jobId: number): Promise<void> {
    const job = this.running.get(jobId);
    if (!job?.process) return;
    void this.rotator.remove(jobId);
    const { settings } = this.deps;
    const preempting = this.intents.get(jobId)?.kind === 'preempted';
    await this.deps.launcher.stop(job.process, preempting ? settings.preemptionSignal : 'SIGTERM', preempting ? settings.preemptionGraceMs : settings.stopGraceMs).catch((error: unknown) => this.deps.logger.warn({ jobId, err: error }, 'stop failed'));
  }

  private refreshRotation(placement: Placement): void {
    for (const gpu of placement.gpus) {
      const jobs = [...this.running.values()].filter((j) => j.placement?.mode === 'timeslice' && j.placement.gpus.some((g) => g.index === gpu.index) && !this.intents.has(j.id));
      this.rotator.setRunnable(`gpu-${gpu.index}`, jobs.map((j) => ({ jobId: j.id, gpuMilli: j.placement!.gpus.find((g) => g.index === gpu.index)!.gpuMilli, handle: j.process! })));
    }
  }

  private sweepRetention(): void {
    sweepJobDirectories(this.deps.store, (id) => this.jobDirectory(id), this.deps.nowMs() - this.deps.settings.logRetentionMs);
  }
}

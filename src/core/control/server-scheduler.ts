/**
 * The scheduler of one GPU server: keeps what every GPU holds and places pending jobs with the
 * same core as the simulator (the `default` policy: FGD gradient plus gpushare's tie-breaks).
 *
 * GPUs that are not in MIG mode are grouped by model into one scheduling node each (a job's GPUs
 * are all of one model); host CPU and memory are checked here against the server's totals. MIG
 * GPUs are placed by slices (see mig-placement.ts). Each GPU runs one sharing mode at a time: an
 * empty GPU takes any mode; a GPU with jobs takes only jobs of the same mode; `exclusive` needs an
 * empty GPU. Nothing here does I/O; the caller persists the outcome.
 */
import { InvariantViolation } from '../model/errors.js';
import type { Rng } from '../random/rng.js';
import { FailedSearches } from './failed-searches.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { Assignment, Placement } from '../model/assignment.js';
import { checkHold } from './hold-check.js';
import type { EffectiveMode, JobRequest } from '../model/request.js';
import { MigLayouts, migShareOf } from './mig-placement.js';
import { smallestProfileFor } from '../mig/mig-allocator.js';
import { ModelGroups } from './model-groups.js';
import { QueueOrderCache } from './queue-order-cache.js';
import type { PassOptions, PassResult } from './pass-options.js';
import { mayBackfill, NO_BLOCKED_JOB, reservedStartMs, type BackfillReservation } from '../queue/backfill.js';
import { fallbackMode, resolveMode } from '../sharing/share-accounting.js';
import { placeShared } from './shared-placement.js';

/** Settings of a server scheduler. */
export interface ServerSchedulerOptions {
  /** Host CPU of the server in milli-cores. */
  readonly hostCpuMilli: number;
  /** Host memory of the server in MiB. */
  readonly hostMemoryMiB: number;
  /** How far `timeslice` GPUs may overcommit compute (≥ 1; 1 = not at all). */
  readonly timesliceOvercommitRatio: number;
  /** Tie-break randomness (seeded by the caller). */
  readonly rng: Rng;
}

/** Outcome of trying one job now. */
export type PlaceOutcome =
  | { readonly kind: 'placed'; readonly placement: Placement }
  | { readonly kind: 'waiting'; readonly reason: string };

/** What one GPU holds, for views and metrics. */
export interface GpuUsage {
  readonly device: GpuDevice;
  /** Mode of the jobs on it; null when it holds none (MIG GPUs always report `mig`). */
  readonly mode: EffectiveMode | null;
  readonly allocatedGpuMilli: number;
  readonly allocatedGpuMemoryMiB: number;
  readonly jobIds: readonly number[];
}

/** Live placement state of one server. */
export class ServerScheduler {
  /** Devices, model groups of the non-MIG GPUs and the core scheduler over them. */
  private readonly groups: ModelGroups;
  private readonly held = new Map<number, Assignment>();
  private readonly mig = new MigLayouts();
  /** The GPU list as last given (before vanished or mode-changed GPUs with held jobs are kept as they were). */
  private given = new Map<number, GpuDevice>();
  /** The jobs of the last pass in queue order. */
  private readonly queue = new QueueOrderCache();
  private freeCpuMilli: number;
  private freeHostMemoryMiB: number;

  /** @throws InvariantViolation when the overcommit ratio is below 1 or a device index repeats */
  constructor(gpus: readonly GpuDevice[], private readonly options: ServerSchedulerOptions) {
    if (!(options.timesliceOvercommitRatio >= 1)) throw new InvariantViolation(`timesliceOvercommitRatio must be ≥ 1, got ${options.timesliceOvercommitRatio}`);
    this.freeCpuMilli = options.hostCpuMilli;
    this.freeHostMemoryMiB = options.hostMemoryMiB;
    this.groups = new ModelGroups(options.rng);
    this.setGpus(gpus);
  }

  /**
   * Replaces the GPU list (health, cordon, MIG mode changes, new or vanished GPUs) and keeps every
   * held allocation. A GPU that holds jobs stays known even when it vanished, marked unschedulable;
   * a GPU whose MIG mode changed while it holds jobs of the old mode keeps the old mode, also
   * unschedulable. Either takes its new state once its last job is released.
   * @throws InvariantViolation when a device index repeats or a held allocation no longer fits (nothing is changed then)
   */
  setGpus(gpus: readonly GpuDevice[]): void {
    const given = new Map<number, GpuDevice>();
    for (const g of gpus) {
      if (given.has(g.index)) throw new InvariantViolation(`GPU index ${g.index} listed twice`);
      given.set(g.index, g);
    }
    const devices = this.groups.devices;
    const effective = new Map<number, GpuDevice>();
    for (const g of given.values()) {
      const old = devices.get(g.index);
      const heldInMig = old !== undefined && old.jobs.size > 0 ? old.mode === 'mig' : null;
      effective.set(g.index, heldInMig !== null && heldInMig !== g.migEnabled ? { ...g, migEnabled: heldInMig, schedulable: false } : g);
    }
    for (const state of devices.values()) {
      if (!effective.has(state.device.index) && state.jobs.size > 0) effective.set(state.device.index, { ...state.device, schedulable: false });
    }
    this.groups.rebuild([...effective.values()], this.held.values());
    this.given = given;
  }

  /** The GPUs as scheduled, by index: as last given, plus those kept for their jobs (see `setGpus`). */
  gpus(): GpuDevice[] {
    return [...this.groups.devices.values()].map((d) => d.device).sort((a, b) => a.index - b.index);
  }

  /**
   * Records an allocation that already exists (a running job re-adopted after a restart, or a
   * placement just made). @throws InvariantViolation when it does not fit (over-commit) or the job is already held
   */
  hold(allocation: Assignment): void {
    const devices = this.groups.devices;
    checkHold(allocation, this.held, devices, this.mig);
    const { placement } = allocation;
    if (placement.mode === 'mig') {
      this.mig.hold(allocation.jobId, placement.gpus, (i) => devices.get(i)!.device);
    } else {
      this.groups.commit(placement, true);
    }
    this.freeCpuMilli -= allocation.cpuMilli;
    this.freeHostMemoryMiB -= allocation.hostMemoryMiB;
    for (const gpu of placement.gpus) {
      const state = devices.get(gpu.index)!;
      state.mode = placement.mode;
      state.jobs.add(allocation.jobId);
    }
    this.held.set(allocation.jobId, allocation);
  }

  /** Frees what job `jobId` holds; a no-op for a job that holds nothing. */
  release(jobId: number): void {
    const allocation = this.held.get(jobId);
    if (!allocation) return;
    this.held.delete(jobId);
    const { placement } = allocation;
    if (placement.mode === 'mig') this.mig.release(jobId);
    else this.groups.commit(placement, false);
    this.freeCpuMilli += allocation.cpuMilli;
    this.freeHostMemoryMiB += allocation.hostMemoryMiB;
    let stale = false;
    for (const gpu of placement.gpus) {
      const state = this.groups.devices.get(gpu.index);
      if (!state) continue;
      state.jobs.delete(jobId);
      if (state.jobs.size === 0 && !state.device.migEnabled) state.mode = null;
      // The GPU was kept as it was (vanished, or its MIG mode changed) only for its jobs.
      if (state.jobs.size === 0 && this.given.get(gpu.index) !== state.device) stale = true;
    }
    if (stale) this.setGpus([...this.given.values()]);
  }

  /** True when job `jobId` holds resources here. */
  isHeld(jobId: number): boolean {
    return this.held.has(jobId);
  }

  /**
   * Tries to place `job` now; on success the allocation is held at once (so later jobs of the same
   * pass see it). Never throws for a job that does not fit: returns `waiting` with a reason.
   */
  tryPlace(job: JobRequest): PlaceOutcome {
    return this.attempt(job, null);
  }

  /**
   * One scheduling pass: every pending job is tried in queue order, not only the head, so small
   * jobs use capacity a large blocked job cannot. With `options.backfill`, once a job is blocked for
   * lack of capacity, a later job starts ahead of it only if its time limit ends before the blocked
   * job's reserved start (EASY backfill); `options.admit` (quotas) is checked before each job;
   * `options.protectedGpus` keeps a job off the GPUs it names.
   * @returns placements made (already held), the waiting reason of every other job, the blocked job,
   *   and the jobs that wait only for protected GPUs
   */
  runPass(pending: readonly JobRequest[], options: PassOptions = {}): PassResult {
    const ordered = this.queue.order(pending, options.compare);
    const placed: { jobId: number; placement: Placement }[] = [];
    const waitingReasons = new Map<number, string>();
    const failed = new FailedSearches();
    let blocked: JobRequest | null = null;
    let blockedPool = new Set<number>();
    let gpusOutsidePool = false;
    let reservation: BackfillReservation = NO_BLOCKED_JOB;
    const protectedWaiting = new Set<number>();
    for (const job of ordered) {
      const refused = options.admit?.(job) ?? null;
      if (refused !== null) {
        waitingReasons.set(job.id, refused);
        continue;
      }
      const mustNotDelay = blocked !== null && options.backfill !== undefined && !mayBackfill({ timeLimitSeconds: options.backfill.timeLimitSecondsOf(job) }, reservation, options.backfill.nowMs);
      if (mustNotDelay && !gpusOutsidePool) {
        // Every GPU is one the blocked job may use: nothing can start ahead of it (no search needed).
        waitingReasons.set(job.id, backfillReason(blocked!, reservation, options.backfill!.timeLimitSecondsOf(job)));
        continue;
      }
      const guarded = options.protectedGpus?.(job) ?? null;
      const excluded = guarded !== null && guarded.size > 0 ? guarded : null;
      // The memo of failed searches assumes every job sees the same GPUs: not kept for exclusions.
      const outcome = this.attempt(job, excluded === null ? failed : null, excluded);
      if (outcome.kind === 'waiting' && excluded !== null && this.fitsWithout(job, [])) {
        // It would fit if the protected GPUs took it: it waits for them, and blocks nobody.
        waitingReasons.set(job.id, protectionReason(excluded));
        protectedWaiting.add(job.id);
        continue;
      }
      if (outcome.kind === 'placed' && mustNotDelay && outcome.placement.gpus.some((g) => blockedPool.has(g.index))) {
        // It would take GPUs the blocked job waits for: undo (EASY backfill). A job on GPUs the
        // blocked job can never use cannot delay it and keeps its place.
        this.release(job.id);
        waitingReasons.set(job.id, backfillReason(blocked!, reservation, options.backfill!.timeLimitSecondsOf(job)));
        continue;
      }
      if (outcome.kind === 'placed') {
        placed.push({ jobId: job.id, placement: outcome.placement });
        options.onPlaced?.(job, outcome.placement);
        continue;
      }
      waitingReasons.set(job.id, outcome.reason);
      if (!blocked) {
        blocked = job;
        blockedPool = this.gpusUsableBy(job);
        gpusOutsidePool = this.gpus().some((d) => !blockedPool.has(d.index));
        if (options.backfill) {
          const { running, nowMs } = options.backfill;
          reservation = { blocked: true, reservedStartMs: reservedStartMs(job, running, (released) => this.fitsWithout(job, released), nowMs) };
        }
      }
    }
    return { placed, waiting: waitingReasons, blockedJobId: blocked?.id ?? null, protectedWaiting };
  }

  /**
   * Tells the scheduler which GPU instances exist on MIG GPU `index` (read from the GPU): those not
   * held by a job are idle and may be reused or destroyed for other shapes.
   */
  adoptMigInstances(index: number, instances: readonly MigInstance[]): void {
    this.mig.adoptIdle(index, instances);
  }

  /** Idle MIG instances of GPU `index`, by start. */
  idleMigInstances(index: number): MigInstance[] {
    return this.mig.idleOn(index);
  }

  /**
   * GPUs `job` could ever run on (whatever they hold now): MIG GPUs whose profiles cover it for
   * `mig`, GPUs not in MIG mode with enough memory for the other modes (both for a strict job that
   * may fall back to whole GPUs).
   */
  gpusUsableBy(job: JobRequest): Set<number> {
    const usable = new Set<number>();
    const modes = [resolveMode(job.gpu), fallbackMode(job.gpu)].filter((m): m is EffectiveMode => m !== null);
    for (const device of this.gpus()) {
      for (const mode of modes) {
        const ok = mode === 'mig'
          ? device.migEnabled && smallestProfileFor(device.model, migShareOf(job.gpu)) !== undefined
          : !device.migEnabled && (job.gpu.gpuMemoryMiB ?? 0) <= device.gpuMemoryMiB;
        if (ok) usable.add(device.index);
      }
    }
    return usable;
  }

  /** Per-GPU usage, by device index. */
  usage(): GpuUsage[] {
    return this.gpus().map((device) => {
      const state = this.groups.devices.get(device.index)!;
      let milli = 0;
      let memory = 0;
      for (const jobId of state.jobs) {
        const gpu = this.held.get(jobId)!.placement.gpus.find((g) => g.index === device.index)!;
        milli += gpu.accountedGpuMilli;
        memory += gpu.gpuMemoryMiB;
      }
      return { device, mode: device.migEnabled ? 'mig' : state.mode, allocatedGpuMilli: milli, allocatedGpuMemoryMiB: memory, jobIds: [...state.jobs].sort((a, b) => a - b) };
    });
  }

  /**
   * What-if for preemption (src/core/preemption): true when `job` could be placed now if the jobs
   * `victimIds` held nothing. Decided by the real placement (per GPU compute, memory, mode and MIG
   * slices; host CPU and memory) on a scratch copy: a server scheduler over the same GPUs that holds
   * every allocation but the victims'. So this scheduler is left exactly as it was: nothing is
   * released or held here, its rng is not drawn from (the copy's is a constant) and its policy's
   * online workload learner is not fed. A victim's GPU that is kept only for its jobs (vanished, or
   * its MIG mode changed: see `setGpus`) stays unschedulable in the copy, so the answer may be a
   * conservative false there. Ids that hold nothing are ignored. Costs one `hold` per allocation.
   * @throws InvariantViolation when `job` itself holds resources here
   */
  fitsWithout(job: JobRequest, victimIds: readonly number[]): boolean {
    if (this.held.has(job.id)) throw new InvariantViolation(`job ${job.id} holds resources; a what-if places a job that holds none`);
    const constant: Rng = { nextUint32: () => 0, intn: () => 0, nextFloat: () => 0 };
    const scratch = new ServerScheduler(this.gpus(), { ...this.options, rng: constant });
    const victims = new Set(victimIds);
    for (const allocation of this.held.values()) if (!victims.has(allocation.jobId)) scratch.hold(allocation);
    return scratch.tryPlace(job).kind === 'placed';
  }

  /** `tryPlace`, with an optional memo of the GPU searches that failed in this pass (see failed-searches.ts). */
  private attempt(job: JobRequest, failed: FailedSearches | null, excluded: ReadonlyMap<number, string> | null = null): PlaceOutcome {
    if (job.cpuMilli > this.freeCpuMilli) return waiting(`waiting for host CPU: needs ${job.cpuMilli} cpuMilli, ${this.freeCpuMilli} free`);
    if (job.hostMemoryMiB > this.freeHostMemoryMiB) return waiting(`waiting for host memory: needs ${job.hostMemoryMiB} MiB, ${this.freeHostMemoryMiB} free`);
    const placement = this.search(job, resolveMode(job.gpu), failed, excluded);
    if (typeof placement === 'string') {
      const fallback = fallbackMode(job.gpu);
      if (fallback === null) return waiting(placement);
      const whole = this.search(job, fallback, failed, excluded);
      if (typeof whole === 'string') return waiting(`strict isolation: no MIG instance (${placement}) and no whole GPU (${whole})`);
      return this.holdPlaced(job, whole, failed);
    }
    return this.holdPlaced(job, placement, failed);
  }

  /**
   * Finds a placement in `mode`, using and feeding the pass's memo of failed searches; GPUs in
   * `excluded` (by index) are not used.
   */
  private search(job: JobRequest, mode: EffectiveMode, failed: FailedSearches | null, excluded: ReadonlyMap<number, string> | null): Placement | string {
    const known = failed?.reasonFor(mode, job.gpu);
    if (known !== undefined) return known;
    const devices = excluded === null ? this.gpus() : this.gpus().map((d) => (excluded.has(d.index) ? { ...d, schedulable: false } : d));
    const placement = mode === 'mig' ? this.mig.place(job, devices) : placeShared(job, mode, this.groups, this.options.timesliceOvercommitRatio, excluded);
    if (typeof placement === 'string') failed?.record(mode, job.gpu, placement);
    return placement;
  }

  private holdPlaced(job: JobRequest, placement: Placement, failed: FailedSearches | null): PlaceOutcome {
    this.hold({ jobId: job.id, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, placement });
    failed?.clear();
    return { kind: 'placed', placement };
  }
}

function backfillReason(blocked: JobRequest, reservation: BackfillReservation, timeLimitSeconds: number | null): string {
  if (timeLimitSeconds === null) return `waiting behind job ${blocked.id}: only jobs with a time limit may start ahead of a blocked job`;
  const at = reservation.blocked && reservation.reservedStartMs !== null ? `its reserved start at ${new Date(reservation.reservedStartMs).toISOString()}` : 'its reserved start';
  return `waiting behind job ${blocked.id}: a ${timeLimitSeconds} s time limit would not end before ${at}`;
}

/** `GPU 0 is protected: job 7 misses its QoS target` (one clause per GPU, by index). */
function protectionReason(excluded: ReadonlyMap<number, string>): string {
  return [...excluded].sort(([a], [b]) => a - b).map(([index, why]) => `GPU ${index} is protected: ${why}`).join('; ');
}

function waiting(reason: string): PlaceOutcome {
  return { kind: 'waiting', reason };
}

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
import { NodeState } from '../model/node.js';
import type { PodRequest } from '../model/request.js';
import { findPolicy } from '../policies/registry.js';
import type { Rng } from '../random/rng.js';
import { Scheduler } from '../framework/scheduler.js';
import type { GpuDevice, HeldAllocation, PlacedGpu, Placement } from './gpu-device.js';
import type { EffectiveMode, PendingJob } from './job.js';
import { accountedGpuMilli, reservedGpuMemoryMiB, resolveMode } from './share-accounting.js';
import { MigLayouts } from './mig-placement.js';
import { compareQueueOrder } from './queue-order.js';

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

interface ModelGroup {
  readonly model: string;
  readonly node: NodeState;
  readonly deviceIndices: readonly number[];
}

interface DeviceState {
  device: GpuDevice;
  mode: EffectiveMode | null;
  readonly jobs: Set<number>;
  group: ModelGroup | null;
  /** Position of the device inside its group's node. */
  local: number;
}

/** Live placement state of one server. */
export class ServerScheduler {
  private readonly devices = new Map<number, DeviceState>();
  private groups: ModelGroup[] = [];
  private scheduler!: Scheduler;
  private readonly held = new Map<number, HeldAllocation>();
  private readonly mig = new MigLayouts();
  /** The GPU list as last given (before vanished or mode-changed GPUs with held jobs are kept as they were). */
  private given = new Map<number, GpuDevice>();
  /** The jobs of the last pass in queue order (see `queueOrder`). */
  private lastOrder: readonly PendingJob[] = [];
  private freeCpuMilli: number;
  private freeHostMemoryMiB: number;

  /** @throws InvariantViolation when the overcommit ratio is below 1 or a device index repeats */
  constructor(gpus: readonly GpuDevice[], private readonly options: ServerSchedulerOptions) {
    if (!(options.timesliceOvercommitRatio >= 1)) throw new InvariantViolation(`timesliceOvercommitRatio must be ≥ 1, got ${options.timesliceOvercommitRatio}`);
    this.freeCpuMilli = options.hostCpuMilli;
    this.freeHostMemoryMiB = options.hostMemoryMiB;
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
    const effective = new Map<number, GpuDevice>();
    for (const g of given.values()) {
      const old = this.devices.get(g.index);
      const heldInMig = old !== undefined && old.jobs.size > 0 ? old.mode === 'mig' : null;
      effective.set(g.index, heldInMig !== null && heldInMig !== g.migEnabled ? { ...g, migEnabled: heldInMig, schedulable: false } : g);
    }
    for (const state of this.devices.values()) {
      if (!effective.has(state.device.index) && state.jobs.size > 0) effective.set(state.device.index, { ...state.device, schedulable: false });
    }
    this.rebuild([...effective.values()]);
    this.given = given;
  }

  /** The GPUs as scheduled, by index: as last given, plus those kept for their jobs (see `setGpus`). */
  gpus(): GpuDevice[] {
    return [...this.devices.values()].map((d) => d.device).sort((a, b) => a.index - b.index);
  }

  /**
   * Records an allocation that already exists (a running job re-adopted after a restart, or a
   * placement just made). @throws InvariantViolation when it does not fit (over-commit) or the job is already held
   */
  hold(allocation: HeldAllocation): void {
    this.checkHold(allocation);
    const { placement } = allocation;
    if (placement.mode === 'mig') {
      this.mig.hold(allocation.jobId, placement.gpus, (i) => this.devices.get(i)!.device);
    } else {
      this.commitToGroups(placement, true);
    }
    this.freeCpuMilli -= allocation.cpuMilli;
    this.freeHostMemoryMiB -= allocation.hostMemoryMiB;
    for (const gpu of placement.gpus) {
      const state = this.devices.get(gpu.index)!;
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
    else this.commitToGroups(placement, false);
    this.freeCpuMilli += allocation.cpuMilli;
    this.freeHostMemoryMiB += allocation.hostMemoryMiB;
    let stale = false;
    for (const gpu of placement.gpus) {
      const state = this.devices.get(gpu.index);
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
  tryPlace(job: PendingJob): PlaceOutcome {
    return this.attempt(job, null);
  }

  /**
   * One scheduling pass: every pending job, in queue order (priority, then submit time, then id),
   * is tried, not only the head, so small jobs use capacity a large blocked job cannot.
   * @returns placements made (already held) and the waiting reason of every other job
   */
  runPass(pending: readonly PendingJob[]): { placed: { jobId: number; placement: Placement }[]; waiting: Map<number, string> } {
    const ordered = this.queueOrder(pending);
    const placed: { jobId: number; placement: Placement }[] = [];
    const waitingReasons = new Map<number, string>();
    const failed: FailedSearches = new Map();
    for (const job of ordered) {
      const outcome = this.attempt(job, failed);
      if (outcome.kind === 'placed') placed.push({ jobId: job.id, placement: outcome.placement });
      else waitingReasons.set(job.id, outcome.reason);
    }
    return { placed, waiting: waitingReasons };
  }

  /** Per-GPU usage, by device index. */
  usage(): GpuUsage[] {
    return this.gpus().map((device) => {
      const state = this.devices.get(device.index)!;
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
   * `pending` in queue order. The order is total (ids are unique), so the result does not depend on
   * the input's order; starting from the previous pass's order (jobs still pending, then new ones)
   * makes the sort a near-linear merge when the queue changed little, instead of n log n comparator
   * calls (about half of a pass over 10,000 jobs).
   */
  private queueOrder(pending: readonly PendingJob[]): PendingJob[] {
    const rest = new Set(pending);
    if (rest.size !== pending.length) return [...pending].sort(compareQueueOrder);
    const ordered = this.lastOrder.filter((job) => rest.delete(job));
    for (const job of rest) ordered.push(job);
    ordered.sort(compareQueueOrder);
    this.lastOrder = ordered;
    return ordered;
  }

  /**
   * `tryPlace`, with an optional memo of GPU searches that failed in this pass. A search depends only
   * on the GPU request (mode, gpuCount, gpuMilli, gpuMemoryMiB) and the GPU state, and one that fails
   * changes nothing (no policy call, no rng draw), so a request equal to one that failed since the
   * last placement fails again with the same reason; any placement clears the memo. On a busy server
   * most of a long queue waits, and its jobs come in few shapes, so this saves most searches (MIG
   * searches check layouts per GPU and start) and most reason strings.
   */
  private attempt(job: PendingJob, failed: FailedSearches | null): PlaceOutcome {
    if (job.cpuMilli > this.freeCpuMilli) return waiting(`waiting for host CPU: needs ${job.cpuMilli} cpuMilli, ${this.freeCpuMilli} free`);
    if (job.hostMemoryMiB > this.freeHostMemoryMiB) return waiting(`waiting for host memory: needs ${job.hostMemoryMiB} MiB, ${this.freeHostMemoryMiB} free`);
    const mode = resolveMode(job.gpu);
    const { gpuCount, gpuMilli, gpuMemoryMiB } = job.gpu;
    // The key is one number per (gpuCount, gpuMilli, mode), unique for gpuMilli 0..1000; other requests are not memoized.
    const key = Number.isSafeInteger(gpuCount) && Number.isInteger(gpuMilli) && gpuMilli >= 0 && gpuMilli <= 1000 ? (gpuCount * 1001 + gpuMilli) * 4 + MODE_KEY[mode] : null;
    const memo = key === null ? undefined : failed?.get(gpuMemoryMiB);
    const known = key === null ? undefined : memo?.get(key);
    if (known !== undefined) return waiting(known);
    const placement = mode === 'mig' ? this.mig.place(job, this.gpus()) : this.placeShared(job, mode);
    if (typeof placement === 'string') {
      if (failed && key !== null) {
        if (memo) memo.set(key, placement);
        else failed.set(gpuMemoryMiB, new Map([[key, placement]]));
      }
      return waiting(placement);
    }
    this.hold({ jobId: job.id, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, placement });
    failed?.clear();
    return { kind: 'placed', placement };
  }

  private placeShared(job: PendingJob, mode: EffectiveMode): Placement | string {
    const { gpuCount, gpuMilli } = job.gpu;
    const accounted = accountedGpuMilli(mode, gpuMilli, this.options.timesliceOvercommitRatio);
    // 1. Which model groups have enough GPUs that qualify now (same test as the core's filter).
    const candidates: { group: ModelGroup; request: PodRequest }[] = [];
    let bestCount = 0;
    for (const group of this.groups) {
      const modelMemoryMiB = group.node.spec.gpuMemoryMiB ?? 0;
      // An explicit memory request must fit the model also where the whole GPU is reserved (exclusive).
      if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
      const memory = reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB);
      let count = 0;
      for (let local = 0; local < group.deviceIndices.length; local++) {
        // Capacity first: it is two array reads, and on a busy server it rules most GPUs out.
        const ok = group.node.gpuFreeMilli[local]! >= accounted && group.node.gpuFreeMemoryMiB[local]! >= memory && this.qualifies(group.deviceIndices[local]!, mode);
        if (ok) count++;
      }
      bestCount = Math.max(bestCount, count);
      if (count >= gpuCount) candidates.push({ group, request: { cpuMilli: 0, hostMemoryMiB: 0, gpuCount, gpuMilli: accounted, gpuMemoryMiB: memory, allowedGpuModels: [] } });
    }
    if (candidates.length === 0) {
      return `waiting for ${gpuCount} GPU(s) of one model with ${accounted} free milli-GPU and ${job.gpu.gpuMemoryMiB ?? 'proportional'}${job.gpu.gpuMemoryMiB === null ? '' : ' MiB'} free memory in mode ${mode}; at most ${bestCount} qualify now`;
    }
    // 2. Requests whose memory follows the GPU differ per model: take the smallest model that fits.
    //    Otherwise the policy chooses among all qualifying models.
    const perModel = mode === 'exclusive' || job.gpu.gpuMemoryMiB === null;
    const chosen = perModel ? [candidates[0]!] : candidates;
    for (const group of this.groups) {
      const enabled = chosen.some((c) => c.group === group);
      for (let local = 0; local < group.deviceIndices.length; local++) {
        group.node.setGpuEligible(local, enabled && this.qualifies(group.deviceIndices[local]!, mode));
      }
    }
    const decision = this.scheduler.schedule(chosen[0]!.request);
    if (decision.kind !== 'placed') throw new InvariantViolation(`job ${job.id}: the core rejected a placement its filter allowed`);
    const group = this.groups[decision.nodeIndex]!;
    const request = chosen.find((c) => c.group === group)!.request;
    const gpus: PlacedGpu[] = decision.gpuIndices.map((local) => {
      const device = this.devices.get(group.deviceIndices[local]!)!.device;
      return { index: device.index, uuid: device.uuid, gpuMilli, accountedGpuMilli: accounted, gpuMemoryMiB: request.gpuMemoryMiB, mig: null };
    });
    return { mode, gpus: gpus.sort((a, b) => a.index - b.index) };
  }

  /**
   * Throws, changing nothing, when `allocation` cannot be held: the job is held already, the
   * placement names no GPU, a GPU twice or an unknown GPU, a GPU runs another mode, `exclusive`
   * meets a GPU with jobs, a share differs between its GPUs, or a GPU's compute, memory or MIG
   * slices would be over-committed.
   */
  private checkHold(allocation: HeldAllocation): void {
    const { jobId, placement } = allocation;
    if (this.held.has(jobId)) throw new InvariantViolation(`job ${jobId} is already held`);
    const first = placement.gpus[0];
    if (first === undefined) throw new InvariantViolation(`job ${jobId}: placement without GPUs`);
    const seen = new Set<number>();
    for (const gpu of placement.gpus) {
      if (seen.has(gpu.index)) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} listed twice`);
      seen.add(gpu.index);
      const state = this.devices.get(gpu.index);
      if (!state) throw new InvariantViolation(`job ${jobId}: no GPU ${gpu.index}`);
      if (state.mode !== null && state.mode !== placement.mode) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} runs ${state.mode}, not ${placement.mode}`);
      if (placement.mode === 'mig') continue;
      if (!state.group) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is in MIG mode; it cannot hold a ${placement.mode} share`);
      if (placement.mode === 'exclusive' && state.jobs.size > 0) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is not empty; exclusive needs the whole GPU`);
      if (gpu.accountedGpuMilli !== first.accountedGpuMilli || gpu.gpuMemoryMiB !== first.gpuMemoryMiB) throw new InvariantViolation(`job ${jobId}: the share on GPU ${gpu.index} differs from that on GPU ${first.index}`);
      const { node } = state.group;
      if (node.gpuFreeMilli[state.local]! < gpu.accountedGpuMilli || node.gpuFreeMemoryMiB[state.local]! < gpu.gpuMemoryMiB) {
        throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} has ${node.gpuFreeMilli[state.local]} milli-GPU and ${node.gpuFreeMemoryMiB[state.local]} MiB free, the job holds ${gpu.accountedGpuMilli} and ${gpu.gpuMemoryMiB}`);
      }
    }
    if (placement.mode === 'mig') this.mig.check(jobId, placement.gpus, (i) => this.devices.get(i)!.device);
  }

  /** Mode and health rules of one non-MIG device (capacity is the core's business). */
  private qualifies(index: number, mode: EffectiveMode): boolean {
    const state = this.devices.get(index)!;
    if (!state.device.schedulable) return false;
    if (mode === 'exclusive') return state.jobs.size === 0;
    return state.mode === null || state.mode === mode;
  }

  private commitToGroups(placement: Placement, take: boolean): void {
    const byGroup = new Map<ModelGroup, number[]>();
    for (const gpu of placement.gpus) {
      const state = this.devices.get(gpu.index)!;
      if (!state.group) throw new InvariantViolation(`GPU ${gpu.index} is in MIG mode; it cannot hold a ${placement.mode} share`);
      byGroup.set(state.group, [...(byGroup.get(state.group) ?? []), state.local]);
    }
    const first = placement.gpus[0]!;
    for (const [group, locals] of byGroup) {
      const request: PodRequest = { cpuMilli: 0, hostMemoryMiB: 0, gpuCount: locals.length, gpuMilli: first.accountedGpuMilli, gpuMemoryMiB: first.gpuMemoryMiB, allowedGpuModels: [] };
      for (let local = 0; local < group.deviceIndices.length; local++) group.node.setGpuEligible(local, true);
      if (take) this.scheduler.commit(request, this.groups.indexOf(group), locals);
      else this.scheduler.uncommit(request, this.groups.indexOf(group), locals);
    }
  }

  /** Rebuilds devices, groups and the core scheduler for `gpus`; on failure restores the previous state and rethrows. */
  private rebuild(gpus: readonly GpuDevice[]): void {
    const previous = new Map(this.devices);
    const previousGroups = this.groups;
    const previousScheduler = this.scheduler;
    try {
      this.build(gpus, previous);
    } catch (error) {
      this.devices.clear();
      for (const [index, state] of previous) this.devices.set(index, state);
      this.groups = previousGroups;
      this.scheduler = previousScheduler;
      throw error;
    }
  }

  private build(gpus: readonly GpuDevice[], previous: ReadonlyMap<number, DeviceState>): void {
    this.devices.clear();
    const models = new Map<string, GpuDevice[]>();
    for (const device of [...gpus].sort((a, b) => a.index - b.index)) {
      if (this.devices.has(device.index)) throw new InvariantViolation(`GPU index ${device.index} listed twice`);
      const old = previous.get(device.index);
      // A GPU keeps the mode of the jobs it holds; an empty one takes its mode from its MIG state.
      const mode = old !== undefined && old.jobs.size > 0 ? old.mode : device.migEnabled ? 'mig' : null;
      this.devices.set(device.index, { device, mode, jobs: new Set(old?.jobs ?? []), group: null, local: 0 });
      if (!device.migEnabled) models.set(device.model, [...(models.get(device.model) ?? []), device]);
    }
    this.groups = [...models.entries()]
      .map(([model, devices], i) => ({
        model,
        node: new NodeState(i, { name: `gpus/${model}`, cpuMilli: 0, hostMemoryMiB: 0, gpuCount: devices.length, gpuModel: model, gpuMemoryMiB: Math.min(...devices.map((d) => d.gpuMemoryMiB)) }),
        deviceIndices: devices.map((d) => d.index),
      }))
      .sort((a, b) => (a.node.spec.gpuMemoryMiB ?? 0) - (b.node.spec.gpuMemoryMiB ?? 0) || a.model.localeCompare(b.model));
    this.groups = this.groups.map((g, i) => ({ ...g, node: new NodeState(i, g.node.spec) }));
    for (const group of this.groups) {
      group.deviceIndices.forEach((index, local) => {
        const state = this.devices.get(index)!;
        state.group = group;
        state.local = local;
      });
    }
    const policy = findPolicy('default')!.create({ nodeCount: this.groups.length });
    this.scheduler = new Scheduler({ nodes: this.groups.map((g) => g.node), nodeRank: Int32Array.from(this.groups.map((_, i) => i)) }, policy, this.options.rng);
    // Re-apply held allocations to the fresh nodes (MIG layouts keep their own state).
    for (const allocation of this.held.values()) {
      if (allocation.placement.mode !== 'mig') this.commitToGroups(allocation.placement, true);
    }
  }
}

/** Waiting reasons of failed GPU searches, by gpuMemoryMiB (null included), then by `attempt`'s key. */
type FailedSearches = Map<number | null, Map<number, string>>;

const MODE_KEY: Readonly<Record<EffectiveMode, number>> = { exclusive: 0, mps: 1, timeslice: 2, mig: 3 };

function waiting(reason: string): PlaceOutcome {
  return { kind: 'waiting', reason };
}

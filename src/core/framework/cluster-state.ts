/**
 * The working state of one scheduling pass, derived from a `ClusterSnapshot`: what every GPU of
 * every node holds (mode, jobs, MIG instances), the free host resources of each node, and the
 * scheduling units the cycle chooses among (unit-groups.ts). A pass places jobs on it one by one,
 * so later jobs see earlier placements; `mark` and `undoTo` roll it back exactly (a `Statement`'s
 * checkpoint and rollback, a what-if for preemption or backfill). Nothing here does I/O; the
 * caller applies the outcome (a `Plan`).
 *
 * Rules (docs/sharing-modes.md): each GPU runs one sharing mode at a time: an empty GPU takes any
 * mode; a GPU with jobs takes only jobs of the same mode; `exclusive` needs an empty GPU; MIG GPUs
 * are placed by slices (mig-layouts.ts). A GPU that holds jobs of another MIG mode than it has now
 * (its mode was changed while in use) keeps the mode of its jobs and takes no new job. A GPU holding
 * `mps` jobs takes `mps` jobs of their tenant only (`mpsOneTenantPerGpu`, docs/decisions/0014).
 * With `modeViews` each job's node is chosen on a view of its mode (mode-views.ts), and with
 * `migModeOnDemand` empty GPUs switch into MIG mode for `mig` jobs (mig-switching.ts): the
 * simulator's hybrid sharing (docs/simulator.md).
 */
import { InvariantViolation } from '../model/errors.js';
import type { Assignment, Placement } from '../model/assignment.js';
import type { ClusterSnapshot } from '../model/cluster.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { EffectiveMode, JobRequest } from '../model/request.js';
import type { Rng } from '../random/rng.js';
import { smallestProfileFor } from '../mig/mig-allocator.js';
import { fallbackMode, resolveMode } from '../sharing/share-accounting.js';
import type { SchedulingProfile } from './extension-points.js';
import type { FailedSearches } from './failed-searches.js';
import { checkHold } from './hold-check.js';
import { MigLayouts, migShareOf } from './mig-layouts.js';
import { placeSwitchingIntoMig } from './mig-switching.js';
import { ModeViews } from './mode-views.js';
import { rankNodes, type NodeRanking } from './node-ranking.js';
import { placeOnGpus, placeShared, sharedFits, type GpuExclusion, type SharedPlacement } from './shared-placement.js';
import { waitReason, WAIT_CODES, type WaitReason } from '../model/status.js';
import { MIXED_MPS_TENANTS, UnitGroups, type DeviceState, type NodeEntry } from './unit-groups.js';

/** No schedulable MIG GPU has a profile that covers the request. */
const NO_MIG_GPU: WaitReason = waitReason(WAIT_CODES.noMigGpu);
/** How a cluster state is built. */
export interface ClusterStateOptions {
  /** The policy that chooses among units, for a cluster of that many units (policies/registry.ts). */
  readonly profile: (unitCount: number) => SchedulingProfile;
  /** Tie-break randomness of the policy. */
  readonly rng: Rng;
  /** How far `timeslice` GPUs may overcommit compute (≥ 1; 1 = not at all). */
  readonly timesliceOvercommitRatio: number;
  /** Tie-break rank per node, lower wins (the simulator's seeded ranks); default: node order. */
  readonly nodeRank?: Int32Array;
  /**
   * One tenant per MPS GPU (an MPS control daemon serves one Unix user at a time, and jobs run under
   * their tenant's uid): a GPU holding `mps` jobs of tenant A takes `mps` jobs of A only until it
   * is empty; a job kept off such GPUs waits with `mps-tenant`. @defaultValue true
   */
  readonly mpsOneTenantPerGpu?: boolean;
  /**
   * Choose each job's node on a view of its mode, where GPUs the mode cannot use show no room
   * (mode-views.ts); a `mig` job then goes to the node the policy chooses (not the cheapest MIG
   * option over all nodes), on the GPUs the MIG allocator picks there. Applies to `tryPlace` without
   * `excluded` GPUs or `onlyNode`; `fits`, `rankNodes` and the rest keep the units' rules. Needs the
   * cluster's GPUs to be of one model. @defaultValue false
   */
  readonly modeViews?: boolean;
  /**
   * With `modeViews`: a `mig` job that finds no room on its node's MIG GPUs switches empty GPUs of
   * the node into MIG mode (mig-switching.ts); every GPU then belongs to its unit whatever its mode
   * (unit-groups.ts). What-if questions (`fits`) do not switch. @defaultValue false
   */
  readonly migModeOnDemand?: boolean;
}

/** Outcome of trying one job now. */
export type PlaceOutcome =
  | { readonly kind: 'placed'; readonly node: string; readonly nodeIndex: number; readonly placement: Placement }
  | { readonly kind: 'waiting'; readonly reason: WaitReason };

/** What one GPU holds, for views and metrics. */
export interface GpuUsage {
  readonly node: string;
  readonly device: GpuDevice;
  /** Mode of the jobs on it; null when it holds none (MIG GPUs always report `mig`). */
  readonly mode: EffectiveMode | null;
  readonly allocatedGpuMilli: number;
  readonly allocatedGpuMemoryMiB: number;
  readonly jobIds: readonly number[];
}

const NOTHING_TO_RESTORE: readonly (() => void)[] = [];

/** One number per GPU of the cluster: `nodeIndex × 4096 + GPU index`. */
export function gpuKey(nodeIndex: number, gpuIndex: number): number {
  return nodeIndex * 4096 + gpuIndex;
}

/** Live placement state of a cluster during a pass. */
export class ClusterState {
  readonly groups: UnitGroups;
  private readonly migs: MigLayouts[];
  private readonly held = new Map<number, Assignment>();
  /** Tenant of every held job (the one-tenant-per-MPS-GPU rule). */
  private readonly tenantOf = new Map<number, string>();
  private readonly nodeIndex = new Map<string, number>();
  private readonly undo: (() => void)[] = [];
  private recording = false;
  /** The mode views (`modeViews`); null without. */
  private readonly views: ModeViews | null;

  /**
   * @throws InvariantViolation when the overcommit ratio is below 1, a node name or GPU index
   *   repeats, an assignment names a node or GPU the snapshot lacks, the held assignments
   *   over-commit something, `migModeOnDemand` is set without `modeViews`, or `modeViews` meets GPUs
   *   of several models
   */
  constructor(
    snapshot: ClusterSnapshot,
    private readonly options: ClusterStateOptions,
  ) {
    if (!(options.timesliceOvercommitRatio >= 1))
      throw new InvariantViolation(`timesliceOvercommitRatio must be ≥ 1, got ${options.timesliceOvercommitRatio}`);
    if (options.migModeOnDemand === true && options.modeViews !== true)
      throw new InvariantViolation('migModeOnDemand needs modeViews');
    snapshot.nodes.forEach((node, i) => {
      if (this.nodeIndex.has(node.name)) throw new InvariantViolation(`node ${node.name} listed twice`);
      this.nodeIndex.set(node.name, i);
    });
    // A GPU whose MIG mode changed while it holds jobs of the old mode keeps the old mode, unschedulable.
    const heldInMig = new Map<string, boolean>();
    for (const { assignment } of snapshot.active) {
      for (const gpu of assignment.placement.gpus)
        heldInMig.set(`${assignment.node}/${gpu.index}`, assignment.placement.mode === 'mig');
    }
    const nodes = snapshot.nodes.map((node) => ({
      node,
      gpus: node.gpus.map((g) => {
        const mig = heldInMig.get(`${node.name}/${g.index}`);
        return mig !== undefined && mig !== g.migEnabled ? { ...g, migEnabled: mig, schedulable: false } : g;
      }),
    }));
    this.groups = new UnitGroups(
      nodes,
      options.profile,
      options.rng,
      options.nodeRank,
      options.mpsOneTenantPerGpu ?? true,
      options.migModeOnDemand ?? false,
    );
    this.migs = nodes.map(({ gpus }) => {
      const layouts = new MigLayouts();
      for (const g of gpus) if (g.migEnabled && g.migInstances) layouts.adoptIdle(g.index, g.migInstances);
      return layouts;
    });
    this.views =
      options.modeViews === true
        ? new ModeViews(this.groups, {
            profile: options.profile,
            rng: options.rng,
            ...(options.nodeRank ? { nodeRank: options.nodeRank } : {}),
            timesliceOvercommitRatio: options.timesliceOvercommitRatio,
            migModeOnDemand: options.migModeOnDemand ?? false,
            migSlicesInUse: (n, index) => this.migs[n]!.slicesInUse(index),
          })
        : null;
    for (const { request, assignment } of snapshot.active) this.hold(assignment, request.tenant);
  }

  /** The node entries (devices, units, free host), in snapshot order. */
  get nodes(): readonly NodeEntry[] {
    return this.groups.nodes;
  }

  /** Index of node `name` in the snapshot. @throws InvariantViolation for an unknown node */
  indexOf(name: string): number {
    const index = this.nodeIndex.get(name);
    if (index === undefined) throw new InvariantViolation(`no node ${name} in the cluster`);
    return index;
  }

  /** Starts recording changes so that `undoTo` can roll them back; returns the current position. */
  mark(): number {
    this.recording = true;
    return this.undo.length;
  }

  /** Rolls every change made since `mark` returned `position` back, newest first. */
  undoTo(position: number): void {
    const undo = this.undo;
    while (undo.length > position) undo.pop()!();
  }

  /** Stops recording (the changes made so far stay). */
  stopRecording(): void {
    this.recording = false;
    this.undo.length = 0;
  }

  /**
   * Records an assignment that already exists (a running job, or a placement just made) of a job of
   * `tenant`. Jobs of several tenants on one MPS GPU (placed without the one-tenant rule) are held;
   * that GPU then takes no new `mps` job until they are gone.
   * @throws InvariantViolation when it does not fit (over-commit), names an unknown node or GPU, or the job is already
   * held
   */
  hold(assignment: Assignment, tenant: string): void {
    const n = this.indexOf(assignment.node);
    const entry = this.groups.nodes[n]!;
    checkHold(assignment, this.held, entry.devices, this.migs[n]!);
    if (entry.freeCpuMilli < assignment.cpuMilli || entry.freeHostMemoryMiB < assignment.hostMemoryMiB) {
      throw new InvariantViolation(
        `job ${assignment.jobId}: node ${assignment.node} has ${entry.freeCpuMilli} cpuMilli and ` +
          `${entry.freeHostMemoryMiB} MiB host memory free, the job holds ${assignment.cpuMilli} and ` +
          `${assignment.hostMemoryMiB}`,
      );
    }
    this.holdOn(n, assignment, tenant);
  }

  /** Holds an assignment known to fit (a placement this state just found), without checking it again. */
  private holdOn(n: number, assignment: Assignment, tenant: string): void {
    const entry = this.groups.nodes[n]!;
    const mig = assignment.placement.mode === 'mig';
    const restore =
      mig && this.recording ? assignment.placement.gpus.map((g) => this.migs[n]!.saveGpu(g.index)) : NOTHING_TO_RESTORE;
    if (mig) this.migs[n]!.hold(assignment.jobId, assignment.placement.gpus, (i) => entry.devices.get(i)!.device);
    this.take(n, assignment, tenant);
    if (this.recording) {
      this.undo.push(() => {
        this.give(n, assignment);
        for (const r of restore) r();
      });
    }
  }

  /** Frees what job `jobId` holds (MIG instances stay on their GPUs, idle); a no-op for a job that holds nothing. */
  release(jobId: number): void {
    const assignment = this.held.get(jobId);
    if (!assignment) return;
    const n = this.indexOf(assignment.node);
    const mig = assignment.placement.mode === 'mig';
    const restore =
      mig && this.recording ? assignment.placement.gpus.map((g) => this.migs[n]!.saveGpu(g.index)) : NOTHING_TO_RESTORE;
    const tenant = this.tenantOf.get(jobId)!;
    this.give(n, assignment);
    if (mig) this.migs[n]!.release(jobId);
    if (this.recording) {
      this.undo.push(() => {
        for (const r of restore) r();
        this.take(n, assignment, tenant);
      });
    }
  }

  /** Node choices on a mode view that the chosen node refused (`modeViews`; 0 without). */
  get viewRefusals(): number {
    return this.views?.refusals ?? 0;
  }

  /** True when job `jobId` holds resources here. */
  isHeld(jobId: number): boolean {
    return this.held.has(jobId);
  }

  /** What job `jobId` holds; undefined when nothing. */
  assignmentOf(jobId: number): Assignment | undefined {
    return this.held.get(jobId);
  }

  /**
   * Tries to place `job` now; on success the assignment is held at once (so later jobs of the same
   * pass see it). Never throws for a job that does not fit: returns `waiting` with a reason.
   * @param failed the pass's memo of failed searches (fed and used; cleared by a placement)
   * @param excluded GPUs the job must not use
   * @param onlyNode place on this node (snapshot index) only, looking at no other (the Kubernetes extender's bind)
   */
  tryPlace(
    job: JobRequest,
    failed: FailedSearches | null = null,
    excluded: GpuExclusion | null = null,
    onlyNode: number | null = null,
  ): PlaceOutcome {
    const first = this.search(job, resolveMode(job.gpu), failed, excluded, onlyNode);
    let found = first;
    if (!('placement' in first)) {
      const fallback = fallbackMode(job.gpu);
      if (fallback === null) return { kind: 'waiting', reason: first };
      const whole = this.search(job, fallback, failed, excluded, onlyNode);
      if (!('placement' in whole)) {
        return {
          kind: 'waiting',
          reason: waitReason(WAIT_CODES.strictIsolation, { mig: first, whole }),
        };
      }
      found = whole;
    }
    const { nodeIndex, placement } = found as { nodeIndex: number; placement: Placement };
    const node = this.groups.nodes[nodeIndex]!.node.name;
    this.holdOn(
      nodeIndex,
      { jobId: job.id, node, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, placement },
      job.tenant,
    );
    failed?.clear();
    return { kind: 'placed', node, nodeIndex, placement };
  }

  /**
   * True when `job` could be placed now (with `excluded` GPUs unused), without placing it, asking
   * the policy or drawing from the rng: for what-if questions under `mark`/`undoTo`.
   */
  fits(job: JobRequest, excluded: GpuExclusion | null = null): boolean {
    const modes = [resolveMode(job.gpu), fallbackMode(job.gpu)].filter((m): m is EffectiveMode => m !== null);
    return modes.some((mode) => {
      if (mode !== 'mig') return sharedFits(job, mode, this.groups, this.options.timesliceOvercommitRatio, excluded);
      const found = this.placeMig(job, excluded);
      return found !== null && 'placement' in found;
    });
  }

  /**
   * Which of the nodes `nodeIndices` could take `job` now, each with the policy's score, and why the
   * others cannot (node-ranking.ts). Holds nothing and draws nothing from the rng.
   * @param migReuseOnly only idle MIG instances count (agents that do not reconfigure MIG)
   */
  rankNodes(job: JobRequest, nodeIndices: readonly number[], migReuseOnly = false): NodeRanking {
    return rankNodes(job, this.groups, nodeIndices, {
      timesliceOvercommitRatio: this.options.timesliceOvercommitRatio,
      migs: this.migs,
      migReuseOnly,
    });
  }

  /**
   * GPUs (`gpuKey`) `job` could ever run on, whatever they hold now: MIG GPUs whose profiles cover
   * it for `mig`, GPUs not in MIG mode with enough memory for the other modes (both for a strict job
   * that may fall back to whole GPUs).
   */
  gpusUsableBy(job: JobRequest): Set<number> {
    const usable = new Set<number>();
    const modes = [resolveMode(job.gpu), fallbackMode(job.gpu)].filter((m): m is EffectiveMode => m !== null);
    for (const entry of this.groups.nodes) {
      for (const { device } of entry.devices.values()) {
        for (const mode of modes) {
          const ok =
            mode === 'mig'
              ? device.migEnabled && smallestProfileFor(device.model, migShareOf(job.gpu)) !== undefined
              : !device.migEnabled && (job.gpu.gpuMemoryMiB ?? 0) <= device.gpuMemoryMiB;
          if (ok) usable.add(gpuKey(entry.index, device.index));
        }
      }
    }
    return usable;
  }

  /** Idle MIG instances of GPU `index` of node `node`, by start. */
  idleMigInstances(node: string, index: number): MigInstance[] {
    return this.migs[this.indexOf(node)]!.idleOn(index);
  }

  /** Per-GPU usage of every node (or only `node`), by node then GPU index. */
  usage(node?: string): GpuUsage[] {
    const entries = node === undefined ? this.groups.nodes : [this.groups.nodes[this.indexOf(node)]!];
    return entries.flatMap((entry) =>
      [...entry.devices.values()]
        .sort((a, b) => a.device.index - b.device.index)
        .map((state) => {
          let milli = 0;
          let memory = 0;
          for (const jobId of state.jobs) {
            const gpu = this.held.get(jobId)!.placement.gpus.find((g) => g.index === state.device.index)!;
            milli += gpu.accountedGpuMilli;
            memory += gpu.gpuMemoryMiB;
          }
          return {
            node: entry.node.name,
            device: state.device,
            mode: state.device.migEnabled ? 'mig' : state.mode,
            allocatedGpuMilli: milli,
            allocatedGpuMemoryMiB: memory,
            jobIds: [...state.jobs].sort((a, b) => a - b),
          };
        }),
    );
  }

  /** Takes what `assignment` (a job of `tenant`) holds on node `n` (MIG slots are the caller's business). */
  private take(n: number, assignment: Assignment, tenant: string): void {
    const entry = this.groups.nodes[n]!;
    const { placement } = assignment;
    if (placement.mode === 'mig') {
      entry.freeCpuMilli -= assignment.cpuMilli;
      entry.freeHostMemoryMiB -= assignment.hostMemoryMiB;
      this.groups.syncHost(entry);
    } else {
      this.groups.commit(n, placement, assignment, true);
    }
    const mps = placement.mode === 'mps';
    for (const gpu of placement.gpus) {
      const state = entry.devices.get(gpu.index)!;
      this.groups.setMode(state, placement.mode);
      if (mps)
        this.groups.setMpsTenant(
          state,
          state.jobs.size === 0 || state.mpsTenant === tenant ? tenant : MIXED_MPS_TENANTS,
        );
      state.jobs.add(assignment.jobId);
    }
    this.held.set(assignment.jobId, assignment);
    this.tenantOf.set(assignment.jobId, tenant);
    this.views?.refresh(n);
  }

  /** Gives back what `assignment` holds on node `n` (MIG slots are the caller's business). */
  private give(n: number, assignment: Assignment): void {
    const entry = this.groups.nodes[n]!;
    const { placement } = assignment;
    this.held.delete(assignment.jobId);
    this.tenantOf.delete(assignment.jobId);
    if (placement.mode === 'mig') {
      entry.freeCpuMilli += assignment.cpuMilli;
      entry.freeHostMemoryMiB += assignment.hostMemoryMiB;
      this.groups.syncHost(entry);
    } else {
      this.groups.commit(n, placement, assignment, false);
    }
    for (const gpu of placement.gpus) {
      const state = entry.devices.get(gpu.index)!;
      state.jobs.delete(assignment.jobId);
      if (state.jobs.size === 0 && !state.device.migEnabled) this.groups.setMode(state, null);
      if (state.mpsTenant !== null && (state.jobs.size === 0 || state.mpsTenant === MIXED_MPS_TENANTS))
        this.groups.setMpsTenant(state, this.mpsTenantOf(state.jobs));
    }
    this.views?.refresh(n);
  }

  /** The tenant of the jobs `jobs` (of one MPS GPU): null for none, `MIXED_MPS_TENANTS` for several. */
  private mpsTenantOf(jobs: ReadonlySet<number>): string | null {
    let tenant: string | null = null;
    for (const id of jobs) {
      const t = this.tenantOf.get(id)!;
      if (tenant !== null && t !== tenant) return MIXED_MPS_TENANTS;
      tenant = t;
    }
    return tenant;
  }

  /** Finds a placement in `mode`, using and feeding the pass's memo of failed searches. */
  private search(
    job: JobRequest,
    mode: EffectiveMode,
    failed: FailedSearches | null,
    excluded: GpuExclusion | null,
    onlyNode: number | null = null,
  ): { nodeIndex: number; placement: Placement } | WaitReason {
    const known = failed?.reasonFor(mode, job);
    if (known !== undefined) return known;
    const found =
      this.views !== null && excluded === null && onlyNode === null
        ? this.placeByView(job, mode)
        : mode === 'mig'
          ? this.placeMig(job, excluded, onlyNode)
          : placeShared(
              job,
              mode,
              this.groups,
              this.options.timesliceOvercommitRatio,
              excluded,
              onlyNode === null ? null : this.groups.nodes[onlyNode]!.units,
            );
    if (found !== null && 'placement' in found) return found;
    const reason = this.hostReason(job) ?? found ?? NO_MIG_GPU;
    failed?.record(mode, job, reason);
    return reason;
  }

  /**
   * `modeViews`: the placement on the best node of the job's mode view that takes it (mode-views.ts):
   * a shared job on the GPUs the view's cycle chose (else on the GPUs the units' cycle chooses on that
   * node), a `mig` job where the MIG allocator puts it on that node, switching GPUs into MIG mode
   * when `migModeOnDemand` allows; or why no node does.
   */
  private placeByView(job: JobRequest, mode: EffectiveMode): SharedPlacement | WaitReason {
    const ratio = this.options.timesliceOvercommitRatio;
    const placed = this.views!.place(job, mode, (n, gpuIndices): SharedPlacement | null => {
      if (mode === 'mig') return this.placeMigOn(job, n);
      const chosen = placeOnGpus(job, mode, this.groups, ratio, n, gpuIndices);
      if (chosen !== null) return chosen;
      const onNode = placeShared(job, mode, this.groups, ratio, null, this.groups.nodes[n]!.units);
      return 'placement' in onNode ? onNode : null;
    });
    if (placed !== null) return placed;
    return mode === 'mig'
      ? waitReason(WAIT_CODES.migCapacity, { gpuCount: job.gpu.gpuCount })
      : waitReason(WAIT_CODES.gpuCapacity, {
          gpuCount: job.gpu.gpuCount,
          gpuMilli: job.gpu.gpuMilli,
          gpuMemoryMiB: job.gpu.gpuMemoryMiB,
          mode,
        });
  }

  /** A `mig` job on node `n` alone: its MIG GPUs first, then (`migModeOnDemand`) empty GPUs switched into MIG mode. */
  private placeMigOn(job: JobRequest, n: number): SharedPlacement | null {
    const onNode = (): Placement | null => {
      const found = this.placeMig(job, null, n);
      return found !== null && 'placement' in found ? found.placement : null;
    };
    const first = onNode();
    if (first !== null || this.options.migModeOnDemand !== true)
      return first === null ? null : { nodeIndex: n, placement: first };
    const switchable = [...this.groups.nodes[n]!.devices.values()]
      .filter((s) => !s.device.migEnabled && s.device.schedulable && s.jobs.size === 0)
      .sort((a, b) => a.device.index - b.device.index);
    const placement = placeSwitchingIntoMig(switchable, (s, enabled) => this.setMigMode(n, s, enabled), onNode);
    return placement === null ? null : { nodeIndex: n, placement };
  }

  /** Switches an empty GPU of node `n` into MIG mode or back (`migModeOnDemand`), undoably. */
  private setMigMode(n: number, state: DeviceState, enabled: boolean): void {
    this.groups.setMigEnabled(state, enabled);
    // No view refresh here: a switch that stays is followed by the job's hold, which refreshes the node.
    if (this.recording)
      this.undo.push(() => {
        this.groups.setMigEnabled(state, !enabled);
        this.views?.refresh(n);
      });
  }

  /** The best MIG placement over all nodes (cheapest, then fullest GPUs, then node order), or why none. */
  private placeMig(
    job: JobRequest,
    excluded: GpuExclusion | null,
    onlyNode: number | null = null,
  ): { nodeIndex: number; placement: Placement } | WaitReason | null {
    let best: { nodeIndex: number; placement: Placement; cost: number; usedSlices: number } | null = null;
    let anyProfile = false;
    let withRoom = 0;
    for (const entry of onlyNode === null ? this.groups.nodes : [this.groups.nodes[onlyNode]!]) {
      if (entry.freeCpuMilli < job.cpuMilli || entry.freeHostMemoryMiB < job.hostMemoryMiB) continue;
      const devices = [...entry.devices.values()].map((s) =>
        excluded?.(entry.index, s.device.index) === true ? { ...s.device, schedulable: false } : s.device,
      );
      const option = this.migs[entry.index]!.place(job, devices);
      if (option.kind === 'waiting') {
        anyProfile ||= option.anyProfile;
        withRoom = Math.max(withRoom, option.withRoom);
        continue;
      }
      anyProfile = true;
      if (
        best === null ||
        option.cost < best.cost ||
        (option.cost === best.cost && option.usedSlices > best.usedSlices)
      )
        best = { nodeIndex: entry.index, ...option };
    }
    if (best !== null) return { nodeIndex: best.nodeIndex, placement: best.placement };
    if (!anyProfile) return null;
    return waitReason(WAIT_CODES.migCapacity, { gpuCount: job.gpu.gpuCount, withRoom });
  }

  /** Why no node can take the job for lack of host CPU or memory; null when some node has both. */
  private hostReason(job: JobRequest): WaitReason | null {
    let cpu = 0;
    let memory = 0;
    for (const entry of this.groups.nodes) {
      if (entry.freeCpuMilli >= job.cpuMilli && entry.freeHostMemoryMiB >= job.hostMemoryMiB) return null;
      cpu = Math.max(cpu, entry.freeCpuMilli);
      memory = Math.max(memory, entry.freeHostMemoryMiB);
    }
    if (job.cpuMilli > cpu) return waitReason(WAIT_CODES.hostCpu, { neededCpuMilli: job.cpuMilli, freeCpuMilli: cpu });
    if (job.hostMemoryMiB > memory)
      return waitReason(WAIT_CODES.hostMemory, { neededHostMemoryMiB: job.hostMemoryMiB, freeHostMemoryMiB: memory });
    return null;
  }
}

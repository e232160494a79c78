/**
 * Node choice per sharing mode (`ClusterStateOptions.modeViews`): the policy scores each node as a
 * job of its mode sees it, where a GPU that runs another mode is no room at all rather than masked
 * room. Without views the cycle runs over the units, whose GPUs show what they hold whatever their
 * mode, and GPUs the mode cannot use are masked out (shared-placement.ts).
 *
 * A view is one `NodeState` per cluster node (all its GPUs, by index; the cluster's GPUs are of one
 * model) and a `Scheduler` with the cluster's policy over them. Per GPU it shows, as used milli-GPU
 * (and, in the MIG view, used memory slices):
 * - `plain` (jobs in `exclusive` mode and jobs without GPUs): what the GPU holds — its shares'
 *   accounted milli-GPU, or for a GPU in MIG mode round(1000 × compute slices of its instances in
 *   use / compute slices of the GPU);
 * - `mps`, `timeslice`: the same on a GPU that is empty or runs that mode (and, for `mps` under the
 *   one-tenant rule, whose MPS jobs are of the job's tenant: one view per tenant, `mps:<tenant>`),
 *   1000 on any other;
 * - `mig`: on a GPU in MIG mode (or, with `migModeOnDemand`, an empty GPU that may switch into it)
 *   its compute slices in use as above and its memory slices in use; 1000 and every memory slice on
 *   any other. A `mig` job asks for round(1000 × compute slices / slices of the GPU) milli-GPU and
 *   the memory slices of the smallest profile that covers it.
 * An unschedulable GPU shows 1000 in every view. A view is built when a job first needs it, and the
 * cluster state refreshes a node in every view after each change of the node (`refresh`).
 *
 * `place` asks the view's cycle for the best node and lets the caller try to place there (the GPUs
 * the cycle chose for a shared job; the MIG allocator's choice for a `mig` job). When the node
 * refuses (a MIG layout with enough free slices but no valid start), it is masked in the view and
 * the next best node is asked, until one accepts or none is feasible (`refusals` counts them).
 */
import { InvariantViolation } from '../model/errors.js';
import type { EffectiveMode, JobRequest } from '../model/request.js';
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import { migGeometry, type MigGeometry } from '../mig/mig-profiles.js';
import { smallestProfileFor } from '../mig/mig-allocator.js';
import type { Rng } from '../random/rng.js';
import { accountedGpuMilli } from '../sharing/share-accounting.js';
import type { SchedulingProfile } from './extension-points.js';
import { migShareOf } from './mig-layouts.js';
import { createNodeStates, type NodeSpec, type NodeState } from './node-state.js';
import type { ResourceDemand } from './resource-demand.js';
import { Scheduler } from './scheduler.js';
import type { DeviceState, UnitGroups } from './unit-groups.js';

/** Compute and memory slices of the MIG instances in use on one GPU. */
export interface MigSlicesInUse {
  readonly computeSlices: number;
  readonly memorySlices: number;
}

/** How the views are set up. */
export interface ModeViewsOptions {
  /** The cluster's policy, for a cluster of that many nodes (one instance per view). */
  readonly profile: (nodeCount: number) => SchedulingProfile;
  readonly rng: Rng;
  /** Tie-break rank per node, lower wins; default: node order. */
  readonly nodeRank?: Int32Array;
  readonly timesliceOvercommitRatio: number;
  /** An empty GPU counts as room for a `mig` job (it may be switched into MIG mode). */
  readonly migModeOnDemand: boolean;
  /** Slices of the MIG instances in use on GPU `gpuIndex` of node `nodeIndex` (zeros when none). */
  readonly migSlicesInUse: (nodeIndex: number, gpuIndex: number) => MigSlicesInUse;
}

/** One view: its nodes, its cycle, and what was committed on each node to show its usage. */
interface View {
  readonly key: string;
  readonly nodes: readonly NodeState[];
  readonly scheduler: Scheduler;
  readonly applied: { readonly demand: ResourceDemand; readonly gpus: readonly number[] }[][];
}

const NO_SLICES: MigSlicesInUse = { computeSlices: 0, memorySlices: 0 };

/** The views of one cluster state's nodes, built on demand. */
export class ModeViews {
  /** Node choices the chosen node refused (each cost one more choice). */
  refusals = 0;
  private readonly views = new Map<string, View>();
  /** Device indices of each node's GPUs, ascending: view GPU `j` of node `n` is GPU `deviceIndices[n][j]`. */
  private readonly deviceIndices: readonly (readonly number[])[];
  private readonly model: string | null;
  private readonly geometry: MigGeometry | undefined;
  private readonly nodeRank: Int32Array;

  /** @throws InvariantViolation when the cluster's GPUs are of more than one model */
  constructor(
    private readonly groups: UnitGroups,
    private readonly options: ModeViewsOptions,
  ) {
    const models = new Set(groups.nodes.flatMap((entry) => [...entry.devices.values()].map((d) => d.device.model)));
    if (models.size > 1)
      throw new InvariantViolation(`mode views need GPUs of one model; the cluster has ${[...models].join(', ')}`);
    this.model = models.size === 0 ? null : [...models][0]!;
    this.geometry = this.model === null ? undefined : migGeometry(this.model);
    this.deviceIndices = groups.nodes.map((entry) => [...entry.devices.keys()].sort((a, b) => a - b));
    this.nodeRank = options.nodeRank ?? Int32Array.from(groups.nodes, (_, n) => n);
  }

  /** The view a job of `mode` chooses its node on. */
  private keyOf(job: JobRequest, mode: EffectiveMode): string {
    if (job.gpu.gpuCount === 0 || mode === 'exclusive') return 'plain';
    const tenant = this.groups.mpsTenantFor(mode, job.tenant);
    return tenant === null ? mode : `mps:${tenant}`;
  }

  /**
   * Places `job` in `mode` on the best node of its view that accepts it: `tryNode(n, gpuIndices)`
   * places on node `n` (the GPUs the view's cycle chose, as device indices) or returns null to
   * refuse. @returns `tryNode`'s placement, or null when no node of the view has room
   */
  place<T>(
    job: JobRequest,
    mode: EffectiveMode,
    tryNode: (nodeIndex: number, gpuIndices: number[]) => T | null,
  ): T | null {
    const demand = this.demandOf(job, mode);
    if (demand === null) return null;
    const view = this.view(this.keyOf(job, mode));
    const masked: number[] = [];
    let result: T | null = null;
    for (;;) {
      const decision = view.scheduler.schedule(demand);
      if (decision.kind !== 'placed') break;
      const n = decision.nodeIndex;
      const indices = this.deviceIndices[n]!;
      result = tryNode(
        n,
        decision.gpuIndices.map((j) => indices[j]!),
      );
      if (result !== null || demand.gpuCount === 0) break;
      this.refusals++;
      this.setNodeEligible(view, n, false);
      masked.push(n);
    }
    for (const n of masked) this.setNodeEligible(view, n, true);
    return result;
  }

  /** Shows node `nodeIndex` as it is now in every view built so far. */
  refresh(nodeIndex: number): void {
    for (const view of this.views.values()) this.sync(view, nodeIndex);
  }

  /** What a job of `mode` asks of a view's node; null for a `mig` job no MIG profile of the GPUs covers. */
  private demandOf(job: JobRequest, mode: EffectiveMode): ResourceDemand | null {
    const base = {
      cpuMilli: job.cpuMilli,
      hostMemoryMiB: job.hostMemoryMiB,
      gpuCount: job.gpu.gpuCount,
      gpuMemoryMiB: 0,
      allowedGpuModels: job.gpu.gpuCount === 0 ? [] : (job.gpu.allowedGpuModels ?? []),
    };
    if (job.gpu.gpuCount === 0) return { ...base, gpuMilli: 0 };
    if (mode !== 'mig')
      return { ...base, gpuMilli: accountedGpuMilli(mode, job.gpu.gpuMilli, this.options.timesliceOvercommitRatio) };
    const profile = this.model === null ? undefined : smallestProfileFor(this.model, migShareOf(job.gpu));
    if (profile === undefined) return null;
    return { ...base, gpuMilli: this.sliceMilli(profile.computeSlices), gpuMemoryMiB: profile.memorySlices };
  }

  /** milli-GPU of `slices` compute slices: round(1000 × slices / compute slices of the GPU). */
  private sliceMilli(slices: number): number {
    return Math.round((GPU_MILLI_PER_GPU * slices) / this.geometry!.computeSlices);
  }

  private view(key: string): View {
    let view = this.views.get(key);
    if (view !== undefined) return view;
    const memorySlices = key === 'mig' ? (this.geometry?.memorySlices ?? null) : null;
    const specs: NodeSpec[] = this.groups.nodes.map((entry, n) => ({
      name: entry.node.name,
      cpuMilli: entry.node.hostCpuMilli,
      hostMemoryMiB: entry.node.hostMemoryMiB,
      gpuCount: this.deviceIndices[n]!.length,
      gpuModel: this.deviceIndices[n]!.length === 0 ? null : this.model,
      // The MIG view counts GPU "memory" in memory slices.
      gpuMemoryMiB: memorySlices,
    }));
    const nodes = createNodeStates(specs);
    view = {
      key,
      nodes,
      scheduler: new Scheduler(
        { nodes, nodeRank: this.nodeRank },
        this.options.profile(nodes.length),
        this.options.rng,
      ),
      applied: nodes.map(() => []),
    };
    this.views.set(key, view);
    for (let n = 0; n < nodes.length; n++) this.sync(view, n);
    return view;
  }

  /** Makes node `n` of `view` show the node's usage: gives back what it took last time, takes the usage now. */
  private sync(view: View, n: number): void {
    const applied = view.applied[n]!;
    for (const a of applied) view.scheduler.uncommit(a.demand, n, a.gpus);
    applied.length = 0;
    const entry = this.groups.nodes[n]!;
    const node = entry.node;
    const take = (demand: ResourceDemand, gpus: readonly number[]): void => {
      view.scheduler.commit(demand, n, gpus);
      applied.push({ demand, gpus });
    };
    const cpuMilli = node.hostCpuMilli - entry.freeCpuMilli;
    const hostMemoryMiB = node.hostMemoryMiB - entry.freeHostMemoryMiB;
    if (cpuMilli > 0 || hostMemoryMiB > 0)
      take({ cpuMilli, hostMemoryMiB, gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0, allowedGpuModels: [] }, []);
    const indices = this.deviceIndices[n]!;
    for (let j = 0; j < indices.length; j++) {
      const state = entry.devices.get(indices[j]!)!;
      const [milli, memory] = this.taken(view.key, n, state);
      if (milli > 0 || memory > 0)
        take(
          { cpuMilli: 0, hostMemoryMiB: 0, gpuCount: 1, gpuMilli: milli, gpuMemoryMiB: memory, allowedGpuModels: [] },
          [j],
        );
    }
  }

  /** [milli-GPU, memory slices] of a GPU that the view's mode cannot use (see the module comment). */
  private taken(key: string, n: number, state: DeviceState): [number, number] {
    const device = state.device;
    const allMemory = key === 'mig' ? (this.geometry?.memorySlices ?? 0) : 0;
    if (!device.schedulable) return [GPU_MILLI_PER_GPU, allMemory];
    const slices = device.migEnabled ? this.options.migSlicesInUse(n, device.index) : NO_SLICES;
    const used = device.migEnabled
      ? this.sliceMilli(slices.computeSlices)
      : GPU_MILLI_PER_GPU - state.unit!.state.gpuFreeMilli[state.local]!;
    let usable: boolean;
    if (key === 'plain') usable = true;
    else if (key === 'mig')
      usable =
        device.migEnabled || (this.options.migModeOnDemand && this.geometry !== undefined && state.jobs.size === 0);
    else {
      const mode = key.startsWith('mps') ? 'mps' : key;
      const tenant = key.startsWith('mps:') ? key.slice(4) : null;
      usable =
        !device.migEnabled &&
        (state.mode === null || state.mode === mode) &&
        (tenant === null || state.mpsTenant === null || state.mpsTenant === tenant);
    }
    if (!usable) return [GPU_MILLI_PER_GPU, allMemory];
    return [used, key === 'mig' ? slices.memorySlices : 0];
  }

  private setNodeEligible(view: View, n: number, eligible: boolean): void {
    const node = view.nodes[n]!;
    for (let j = 0; j < node.gpuEligible.length; j++) node.setGpuEligible(j, eligible);
  }
}

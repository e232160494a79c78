/**
 * The GPUs of a cluster as the framework's cycle schedules them. Every GPU has a device state
 * (its mode and the jobs it holds). GPUs not in MIG mode are grouped into scheduling units, one
 * per (node, GPU model), because a job's GPUs are GPUs of one model on one node: each unit is one
 * `NodeState` of the cycle (framework/scheduler.ts), and one `Scheduler` with the cluster's policy
 * runs over all units. A trace node of the simulator is one unit; the standalone server is one
 * node with a unit per model (ordered by GPU memory, then model name). The units of one node share
 * its host CPU and memory: after every change the node's free host amounts are written to each of
 * them (`syncFreeHost`). MIG GPUs belong to no unit (mig-layouts.ts accounts them in slices), unless
 * GPUs may switch MIG mode on demand (`migInUnits`): then every GPU is in its unit whatever its
 * mode, and one in MIG mode takes no share (it is blocked for every shared mode).
 */
import { InvariantViolation } from '../model/errors.js';
import type { PlacedGpu, Placement } from '../model/assignment.js';
import type { ClusterNode } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { EffectiveMode } from '../model/request.js';
import type { Rng } from '../random/rng.js';
import { syncFreeHost } from './allocation.js';
import type { SchedulingProfile } from './extension-points.js';
import { NodeState } from './node-state.js';
import type { ResourceDemand } from './resource-demand.js';
import { Scheduler } from './scheduler.js';

/** The GPUs of one model on one node that are not in MIG mode: one scheduling node of the cycle. */
export interface SchedulingUnit {
  /** Position in the unit list, which is also its `state.index`. */
  readonly index: number;
  readonly nodeIndex: number;
  /** GPU model; null for the GPU-less unit of a node without GPUs outside MIG mode. */
  readonly model: string | null;
  readonly state: NodeState;
  /** GPU index (on its node) of each GPU slot of `state`. */
  readonly deviceIndices: readonly number[];
}

/** What one GPU holds now. */
export interface DeviceState {
  /** The GPU; replaced (never mutated) when it switches MIG mode, with `UnitGroups.setMigEnabled`. */
  device: GpuDevice;
  readonly nodeIndex: number;
  /** Mode of the jobs on it; null when it holds none (a MIG GPU is always `mig`). Change with `UnitGroups.setMode`. */
  mode: EffectiveMode | null;
  /** Ids of the jobs it holds. */
  readonly jobs: Set<number>;
  /**
   * Tenant of the `mps` jobs on it (one MPS daemon serves one Unix user, so one tenant per MPS GPU);
   * `MIXED_MPS_TENANTS` when jobs of several tenants hold it (placed before the rule), null when it
   * holds no `mps` job. Change with `UnitGroups.setMpsTenant`.
   */
  mpsTenant: string | null;
  /** Its unit; null for a GPU in MIG mode (unless `migInUnits`). */
  readonly unit: SchedulingUnit | null;
  /** Position of the GPU inside its unit's `NodeState`. */
  readonly local: number;
}

/** One node with its GPUs' states, units and free host resources. */
export interface NodeEntry {
  readonly index: number;
  readonly node: ClusterNode;
  /** By GPU index. */
  readonly devices: ReadonlyMap<number, DeviceState>;
  readonly units: readonly SchedulingUnit[];
  freeCpuMilli: number;
  freeHostMemoryMiB: number;
}

/** `DeviceState.mpsTenant` of a GPU whose `mps` jobs belong to several tenants: it takes no tenant's new job. */
export const MIXED_MPS_TENANTS = '\u0000mixed';

/** Modes a GPU outside MIG mode can run. */
const SHARED_MODES = ['exclusive', 'mps', 'timeslice'] as const;

/** Devices, units and the cycle's scheduler of a cluster. */
export class UnitGroups {
  readonly nodes: readonly NodeEntry[];
  readonly units: readonly SchedulingUnit[];
  readonly scheduler: Scheduler;
  /**
   * Per mode, GPUs outside MIG mode that cannot take that mode whatever their capacity (unschedulable, or running
   * another mode).
   */
  private readonly blocked = { exclusive: 0, mps: 0, timeslice: 0 };
  /**
   * True after a search masked GPUs out (`NodeState.setGpuEligible`): the next search that needs no mask unmasks them.
   */
  private masked = false;
  /**
   * GPUs outside MIG mode that hold `mps` jobs, in all and by `mpsTenant` (the fast path's test of the one-tenant
   * rule).
   */
  private mpsGpus = 0;
  private readonly mpsGpusByTenant = new Map<string, number>();

  /**
   * @param nodes each node with the GPUs to schedule (already adjusted for held jobs: see cluster-state.ts)
   * @param profileOf the policy for a cluster of that many units
   * @param nodeRank tie-break rank per node (lower wins); default: node order. Units of one node rank in unit order.
   * @param mpsOneTenantPerGpu the one-tenant-per-MPS-GPU rule (docs/decisions/0014): a GPU holding `mps` jobs of one
   * tenant takes `mps` jobs of that tenant only
   * @param migInUnits GPUs in MIG mode join their units too (GPUs that may switch MIG mode on demand, `setMigEnabled`)
   * @throws InvariantViolation when a GPU index repeats on a node
   */
  constructor(
    nodes: readonly { node: ClusterNode; gpus: readonly GpuDevice[] }[],
    profileOf: (unitCount: number) => SchedulingProfile,
    rng: Rng,
    nodeRank?: Int32Array,
    readonly mpsOneTenantPerGpu = true,
    readonly migInUnits = false,
  ) {
    const units: SchedulingUnit[] = [];
    const ranks: number[] = [];
    const inUnit = (g: GpuDevice): boolean => migInUnits || !g.migEnabled;
    const maxUnits = Math.max(1, ...nodes.map(({ gpus }) => new Set(gpus.filter(inUnit).map((g) => g.model)).size));
    this.nodes = nodes.map(({ node, gpus }, nodeIndex) => {
      const devices = new Map<number, DeviceState>();
      const byModel = new Map<string, GpuDevice[]>();
      for (const device of [...gpus].sort((a, b) => a.index - b.index)) {
        if (devices.has(device.index))
          throw new InvariantViolation(`node ${node.name}: GPU index ${device.index} listed twice`);
        devices.set(device.index, {
          device,
          nodeIndex,
          mode: device.migEnabled ? 'mig' : null,
          jobs: new Set(),
          mpsTenant: null,
          unit: null,
          local: 0,
        });
        if (inUnit(device)) byModel.set(device.model, [...(byModel.get(device.model) ?? []), device]);
      }
      const groups = [...byModel.entries()]
        .map(([model, list]) => ({
          model: model as string | null,
          list,
          memory: Math.min(...list.map((d) => d.gpuMemoryMiB)),
        }))
        .sort((a, b) => a.memory - b.memory || (a.model ?? '').localeCompare(b.model ?? ''));
      if (groups.length === 0) groups.push({ model: null, list: [], memory: 0 });
      const nodeUnits = groups.map(({ model, list, memory }, k): SchedulingUnit => {
        const index = units.length;
        const state = new NodeState(index, {
          name: groups.length === 1 ? node.name : `${node.name}/${model}`,
          cpuMilli: node.hostCpuMilli,
          hostMemoryMiB: node.hostMemoryMiB,
          gpuCount: list.length,
          gpuModel: model,
          gpuMemoryMiB: model === null || memory <= 0 ? null : memory,
        });
        const unit = { index, nodeIndex, model, state, deviceIndices: list.map((d) => d.index) };
        units.push(unit);
        ranks.push(nodeRank ? nodeRank[nodeIndex]! * maxUnits + k : index);
        list.forEach((d, local) => devices.set(d.index, { ...devices.get(d.index)!, unit, local }));
        return unit;
      });
      for (const state of devices.values()) if (state.unit !== null) this.countBlocked(state, state.mode, +1);
      return {
        index: nodeIndex,
        node,
        devices,
        units: nodeUnits,
        freeCpuMilli: node.hostCpuMilli,
        freeHostMemoryMiB: node.hostMemoryMiB,
      };
    });
    this.units = units;
    this.scheduler = new Scheduler(
      { nodes: units.map((u) => u.state), nodeRank: Int32Array.from(ranks) },
      profileOf(units.length),
      rng,
    );
  }

  /** The state of GPU `index` of node `nodeIndex`; undefined when there is none. */
  device(nodeIndex: number, index: number): DeviceState | undefined {
    return this.nodes[nodeIndex]?.devices.get(index);
  }

  /** Sets the mode of a GPU's jobs (null: none), keeping the per-mode counts of blocked GPUs. */
  setMode(state: DeviceState, mode: EffectiveMode | null): void {
    if (state.mode === mode) return;
    if (state.unit !== null && state.device.schedulable) {
      this.countBlocked(state, state.mode, -1);
      this.countBlocked(state, mode, +1);
    }
    state.mode = mode;
  }

  /**
   * Switches an empty GPU into MIG mode or out of it (`migInUnits` only), keeping the per-mode counts of blocked GPUs.
   * @throws InvariantViolation for a GPU outside the units or one that holds jobs
   */
  setMigEnabled(state: DeviceState, enabled: boolean): void {
    if (state.device.migEnabled === enabled) return;
    if (state.unit === null || state.jobs.size > 0)
      throw new InvariantViolation(
        `GPU ${state.device.index} of node ${this.nodes[state.nodeIndex]!.node.name} cannot switch MIG mode: ` +
          (state.unit === null ? 'it belongs to no unit' : 'it holds jobs'),
      );
    this.countBlocked(state, state.mode, -1);
    state.device = { ...state.device, migEnabled: enabled };
    state.mode = enabled ? 'mig' : null;
    this.countBlocked(state, state.mode, +1);
  }

  /** Sets the tenant of a GPU's `mps` jobs (see `DeviceState.mpsTenant`), keeping the counts of the fast path. */
  setMpsTenant(state: DeviceState, tenant: string | null): void {
    if (state.mpsTenant === tenant) return;
    if (state.mpsTenant !== null) {
      this.mpsGpus--;
      const left = this.mpsGpusByTenant.get(state.mpsTenant)! - 1;
      if (left === 0) this.mpsGpusByTenant.delete(state.mpsTenant);
      else this.mpsGpusByTenant.set(state.mpsTenant, left);
    }
    if (tenant !== null) {
      this.mpsGpus++;
      this.mpsGpusByTenant.set(tenant, (this.mpsGpusByTenant.get(tenant) ?? 0) + 1);
    }
    state.mpsTenant = tenant;
  }

  /**
   * The tenant whose `mps` jobs the one-tenant rule applies to for `tenant`'s job in `mode`: `tenant`
   * for an `mps` job while the rule is on, null (no tenant check) otherwise.
   */
  mpsTenantFor(mode: EffectiveMode, tenant: string): string | null {
    return mode === 'mps' && this.mpsOneTenantPerGpu ? tenant : null;
  }

  /**
   * True when every GPU outside MIG mode may take `mode` now as far as health, modes and (for `mps`
   * with `tenant` non-null) the tenant of its MPS jobs go: only capacity decides.
   */
  noneBlocked(mode: EffectiveMode, tenant: string | null = null): boolean {
    if (mode === 'mig') return true;
    if (this.blocked[mode] !== 0) return false;
    return tenant === null || this.mpsGpusOfOthers(tenant) === 0;
  }

  /** GPUs holding `mps` jobs of tenants other than `tenant` (or of several tenants). */
  mpsGpusOfOthers(tenant: string): number {
    return this.mpsGpus - (this.mpsGpusByTenant.get(tenant) ?? 0);
  }

  /** Masks GPUs in or out for the next cycle (`eligible(unit, local)`), and remembers that a mask is set. */
  mask(eligible: (unit: SchedulingUnit, local: number) => boolean): void {
    for (const unit of this.units)
      for (let local = 0; local < unit.deviceIndices.length; local++)
        unit.state.setGpuEligible(local, eligible(unit, local));
    this.masked = true;
  }

  /**
   * Masks the GPUs of `units` only (`eligible(unit, local)`), for a cycle that looks at those units
   * alone (`Scheduler.rankAmong`); the other units keep whatever mask they had, and the next search
   * sets or clears the mask of every unit.
   */
  maskOnly(units: Iterable<SchedulingUnit>, eligible: (unit: SchedulingUnit, local: number) => boolean): void {
    for (const unit of units)
      for (let local = 0; local < unit.deviceIndices.length; local++)
        unit.state.setGpuEligible(local, eligible(unit, local));
    this.masked = true;
  }

  /** Makes every GPU eligible again after a masked search (a no-op when none is masked). */
  unmask(): void {
    if (!this.masked) return;
    for (const unit of this.units)
      for (let local = 0; local < unit.deviceIndices.length; local++) unit.state.setGpuEligible(local, true);
    this.masked = false;
  }

  /**
   * Takes (`take` true) or gives back a non-MIG placement's shares on its units, the host resources
   * with them (on the first unit), then tells the node's other units what host is left.
   * @throws InvariantViolation when a GPU of the placement is in MIG mode, or on over-commit
   */
  commit(
    nodeIndex: number,
    placement: Placement,
    host: { cpuMilli: number; hostMemoryMiB: number },
    take: boolean,
  ): void {
    const entry = this.nodes[nodeIndex]!;
    const { gpus } = placement;
    // A placement without GPUs (the simulator's CPU-only pods) takes host resources on the node's first unit.
    const firstUnit = gpus.length === 0 ? entry.units[0]! : entry.devices.get(gpus[0]!.index)?.unit;
    if (!firstUnit)
      throw new InvariantViolation(
        `GPU ${gpus[0]!.index} of node ${entry.node.name} is in MIG mode; it cannot hold a ${placement.mode} share`,
      );
    // Almost always one unit (a job's GPUs are of one model); a re-adopted placement may span more.
    let locals: number[] = [];
    let rest: PlacedGpu[] | null = null;
    for (const gpu of gpus) {
      const state = entry.devices.get(gpu.index)!;
      if (state.unit === firstUnit) locals.push(state.local);
      else (rest ??= []).push(gpu);
    }
    this.commitOn(firstUnit, locals, gpus[0], host, take);
    if (rest !== null) {
      const byUnit = new Map<SchedulingUnit, number[]>();
      for (const gpu of rest) {
        const state = entry.devices.get(gpu.index)!;
        if (!state.unit)
          throw new InvariantViolation(
            `GPU ${gpu.index} of node ${entry.node.name} is in MIG mode; it cannot hold a ${placement.mode} share`,
          );
        locals = byUnit.get(state.unit) ?? [];
        locals.push(state.local);
        byUnit.set(state.unit, locals);
      }
      for (const [unit, list] of byUnit) this.commitOn(unit, list, gpus[0], { cpuMilli: 0, hostMemoryMiB: 0 }, take);
    }
    entry.freeCpuMilli = firstUnit.state.freeCpuMilli;
    entry.freeHostMemoryMiB = firstUnit.state.freeHostMemoryMiB;
    if (entry.units.length > 1) this.syncHost(entry);
  }

  /** Commits (or uncommits) one unit's part of a placement through the cycle (so Reserve plugins see it). */
  private commitOn(
    unit: SchedulingUnit,
    locals: number[],
    first: PlacedGpu | undefined,
    host: { cpuMilli: number; hostMemoryMiB: number },
    take: boolean,
  ): void {
    const demand: ResourceDemand = {
      cpuMilli: host.cpuMilli,
      hostMemoryMiB: host.hostMemoryMiB,
      gpuCount: locals.length,
      gpuMilli: first?.accountedGpuMilli ?? 0,
      gpuMemoryMiB: first?.gpuMemoryMiB ?? 0,
      allowedGpuModels: [],
    };
    if (this.masked) for (const local of locals) unit.state.setGpuEligible(local, true);
    if (take) this.scheduler.commit(demand, unit.index, locals);
    else this.scheduler.uncommit(demand, unit.index, locals);
  }

  /** Writes the node's free host amounts to each of its units (see the module comment). */
  syncHost(entry: NodeEntry): void {
    for (const unit of entry.units) syncFreeHost(unit.state, entry.freeCpuMilli, entry.freeHostMemoryMiB);
  }

  private countBlocked(state: DeviceState, mode: EffectiveMode | null, delta: number): void {
    for (const m of SHARED_MODES) {
      const blocks =
        !state.device.schedulable || state.device.migEnabled || (m !== 'exclusive' && mode !== null && mode !== m);
      if (blocks) this.blocked[m] += delta;
    }
  }
}

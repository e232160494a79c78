/**
 * The GPUs of one server as the core schedules them: what every GPU holds (mode, jobs) and, for
 * GPUs not in MIG mode, one scheduling node per model (a job's GPUs are all of one model), ordered
 * by GPU memory then model name, with the core scheduler (the `default` policy) over those nodes.
 * Rebuilt as a whole when the GPU list changes; MIG GPUs are accounted elsewhere (mig-placement.ts).
 */
import { InvariantViolation } from '../model/errors.js';
import { NodeState } from '../framework/node-state.js';
import type { ResourceDemand } from '../framework/resource-demand.js';
import { findPolicy } from '../policies/registry.js';
import type { Rng } from '../random/rng.js';
import { Scheduler } from '../framework/scheduler.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { Assignment, Placement } from '../model/assignment.js';
import type { EffectiveMode } from '../model/request.js';

/** The GPUs of one model that are not in MIG mode, as one scheduling node of the core. */
export interface ModelGroup {
  readonly model: string;
  /** The scheduling node: one GPU slot per device, each with the smallest memory of the model's GPUs. */
  readonly node: NodeState;
  /** Device index of each GPU slot of the node. */
  readonly deviceIndices: readonly number[];
}

/** What one GPU of the server holds now. */
export interface DeviceState {
  device: GpuDevice;
  /** Mode of the jobs on it; null when it holds none (a MIG GPU with no jobs is `mig`). */
  mode: EffectiveMode | null;
  /** Ids of the jobs it holds. */
  readonly jobs: Set<number>;
  /** Its model group; null for a GPU in MIG mode. */
  group: ModelGroup | null;
  /** Position of the device inside its group's node. */
  local: number;
}

/** The devices, model groups and core scheduler of one server. */
export class ModelGroups {
  /** State of every GPU, by device index. */
  readonly devices = new Map<number, DeviceState>();
  private groupList: ModelGroup[] = [];
  private core!: Scheduler;

  /** @param rng tie-break randomness of the core scheduler */
  constructor(private readonly rng: Rng) {}

  /** The model groups, in node order (smallest GPU memory first, then model name). */
  get groups(): readonly ModelGroup[] {
    return this.groupList;
  }

  /** The core scheduler over the groups' nodes (its node index is the group's position). */
  get scheduler(): Scheduler {
    return this.core;
  }

  /**
   * Rebuilds devices, groups and the core scheduler for `gpus`: every device keeps the jobs it held
   * and their mode, and the non-MIG allocations in `held` are applied again to the fresh nodes.
   * @throws InvariantViolation when a device index repeats or a held allocation no longer fits (the previous state is restored then)
   */
  rebuild(gpus: readonly GpuDevice[], held: Iterable<Assignment>): void {
    const previous = new Map(this.devices);
    const previousGroups = this.groupList;
    const previousScheduler = this.core;
    try {
      this.build(gpus, previous, held);
    } catch (error) {
      this.devices.clear();
      for (const [index, state] of previous) this.devices.set(index, state);
      this.groupList = previousGroups;
      this.core = previousScheduler;
      throw error;
    }
  }

  /**
   * Takes (`take` true) or gives back the shares of a non-MIG placement on its groups' nodes.
   * @throws InvariantViolation when a GPU of the placement is in MIG mode, or on over-commit
   */
  commit(placement: Placement, take: boolean): void {
    const byGroup = new Map<ModelGroup, number[]>();
    for (const gpu of placement.gpus) {
      const state = this.devices.get(gpu.index)!;
      if (!state.group) throw new InvariantViolation(`GPU ${gpu.index} is in MIG mode; it cannot hold a ${placement.mode} share`);
      byGroup.set(state.group, [...(byGroup.get(state.group) ?? []), state.local]);
    }
    const first = placement.gpus[0]!;
    for (const [group, locals] of byGroup) {
      const request: ResourceDemand = { cpuMilli: 0, hostMemoryMiB: 0, gpuCount: locals.length, gpuMilli: first.accountedGpuMilli, gpuMemoryMiB: first.gpuMemoryMiB, allowedGpuModels: [] };
      for (let local = 0; local < group.deviceIndices.length; local++) group.node.setGpuEligible(local, true);
      if (take) this.core.commit(request, this.groupList.indexOf(group), locals);
      else this.core.uncommit(request, this.groupList.indexOf(group), locals);
    }
  }

  private build(gpus: readonly GpuDevice[], previous: ReadonlyMap<number, DeviceState>, held: Iterable<Assignment>): void {
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
    this.groupList = [...models.entries()]
      .map(([model, devices], i) => ({
        model,
        node: new NodeState(i, { name: `gpus/${model}`, cpuMilli: 0, hostMemoryMiB: 0, gpuCount: devices.length, gpuModel: model, gpuMemoryMiB: Math.min(...devices.map((d) => d.gpuMemoryMiB)) }),
        deviceIndices: devices.map((d) => d.index),
      }))
      .sort((a, b) => (a.node.spec.gpuMemoryMiB ?? 0) - (b.node.spec.gpuMemoryMiB ?? 0) || a.model.localeCompare(b.model));
    this.groupList = this.groupList.map((g, i) => ({ ...g, node: new NodeState(i, g.node.spec) }));
    for (const group of this.groupList) {
      group.deviceIndices.forEach((index, local) => {
        const state = this.devices.get(index)!;
        state.group = group;
        state.local = local;
      });
    }
    const policy = findPolicy('default')!.create({ nodeCount: this.groupList.length });
    this.core = new Scheduler({ nodes: this.groupList.map((g) => g.node), nodeRank: Int32Array.from(this.groupList.map((_, i) => i)) }, policy, this.rng);
    // Re-apply held allocations to the fresh nodes (MIG layouts keep their own state).
    for (const allocation of held) {
      if (allocation.placement.mode !== 'mig') this.commit(allocation.placement, true);
    }
  }
}

/**
 * Placement of `mig` jobs on the GPUs in MIG mode of one node. GPU instances (GIs) persist: a GI made for a job
 * stays when the job ends, idle, for the next job of that profile. Each GPU of a job gets one GI of
 * the smallest profile that covers the request, found in this order of cost:
 * 1. an idle GI of that profile (nothing changes);
 * 2. a new GI in free slices, at the start that keeps the largest free block (src/core/mig);
 * 3. a reconfiguration: idle GIs destroyed to make room, the fewest possible
 *    (src/core/mig/plan-reconfiguration.ts); GIs in use are never touched.
 * A job's GPUs are distinct GPUs of one model. MIG GPUs are accounted in slices, never in milli-GPU.
 */
import { InvariantViolation } from '../model/errors.js';
import {
  choosePlacement,
  isValidLayout,
  smallestProfileFor,
  type MigGpuInstance,
  type MigShareRequest,
} from '../mig/mig-allocator.js';
import { planMigReconfiguration } from '../mig/plan-reconfiguration.js';
import type { MigProfile } from '../mig/mig-profiles.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { MigChanges, PlacedGpu, Placement } from '../model/assignment.js';
import type { GpuRequest, JobRequest } from '../model/request.js';

/**
 * What a request asks of a MIG profile. MIG partitions memory together with compute, so a request
 * without `gpuMemoryMiB` (memory in proportion to its compute) is served by the profile its compute
 * needs and gets that profile's memory; a proportional MiB figure of the whole GPU would exceed the
 * usable memory of the matching profile (the 7g of an A100-80GB has 79 of its 80 GiB).
 */
export function migShareOf(gpu: GpuRequest): MigShareRequest {
  return { gpuMilli: gpu.gpuMilli, gpuMemoryMiB: gpu.gpuMemoryMiB ?? 0 };
}

/** One GI of a GPU and the job using it (null: idle). */
interface GiSlot {
  readonly instance: MigInstance;
  jobId: number | null;
}

const NO_CHANGES: MigChanges = { destroy: [], create: [] };
const sameGi = (a: { start: number; profileId: number }, b: { start: number; profileId: number }) =>
  a.start === b.start && a.profileId === b.profileId;
const asLayout = (slots: readonly GiSlot[]): MigGpuInstance[] =>
  slots.map((s) => ({
    profileId: s.instance.profileId,
    start: s.instance.start,
    size: s.instance.size,
    inUse: s.jobId !== null,
  }));

/** The cheapest MIG placement a node offers a job, or why it offers none. */
export type MigOption =
  | { readonly kind: 'placed'; readonly placement: Placement; readonly cost: number; readonly usedSlices: number }
  | { readonly kind: 'waiting'; readonly anyProfile: boolean; readonly withRoom: number };

/** The GPU instances of every MIG GPU of one node, idle and in use. */
export class MigLayouts {
  private readonly byGpu = new Map<number, GiSlot[]>();

  /** A function that puts GPU `index`'s instances back as they are now (for a rollback). */
  saveGpu(index: number): () => void {
    const saved = this.byGpu.get(index)?.map((slot) => ({ ...slot }));
    return () => {
      if (saved === undefined) this.byGpu.delete(index);
      else
        this.byGpu.set(
          index,
          saved.map((slot) => ({ ...slot })),
        );
    };
  }

  /**
   * Sets the idle GIs that exist on GPU `index` (read from the GPU at start): replaces the idle ones
   * known, keeps the ones held by jobs.
   */
  adoptIdle(index: number, instances: readonly MigInstance[]): void {
    const held = (this.byGpu.get(index) ?? []).filter((s) => s.jobId !== null);
    const idle = instances
      .filter((i) => !held.some((s) => sameGi(s.instance, i)))
      .map((instance) => ({ instance, jobId: null }));
    this.byGpu.set(index, [...held, ...idle]);
  }

  /**
   * Throws, changing nothing, when the instances cannot be held: a GPU without an instance, a GPU
   * not in MIG mode, a destroy of a GI in use, or a result that breaks the GPU's layout.
   */
  check(jobId: number, gpus: readonly PlacedGpu[], deviceOf: (index: number) => GpuDevice): void {
    for (const gpu of gpus) {
      if (!gpu.mig) throw new InvariantViolation(`job ${jobId}: mig placement without an instance on GPU ${gpu.index}`);
      const device = deviceOf(gpu.index);
      if (!device.migEnabled) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is not in MIG mode`);
      const slots = this.after(gpu, jobId);
      if (!isValidLayout(device.model, asLayout(slots))) {
        throw new InvariantViolation(
          `job ${jobId}: MIG instance ${gpu.mig.profileName} at ${gpu.mig.start}:${gpu.mig.size} does not ` +
            `fit the layout of GPU ${gpu.index} (${device.model})`,
        );
      }
    }
  }

  /**
   * Records instances that exist (a placement or a re-adopted job). @throws InvariantViolation as `check` (nothing is
   * recorded then)
   */
  hold(jobId: number, gpus: readonly PlacedGpu[], deviceOf: (index: number) => GpuDevice): void {
    this.check(jobId, gpus, deviceOf);
    for (const gpu of gpus) this.byGpu.set(gpu.index, this.after(gpu, jobId));
  }

  /** Frees the instances of `jobId`: they stay on their GPUs, idle. */
  release(jobId: number): void {
    for (const slots of this.byGpu.values()) for (const slot of slots) if (slot.jobId === jobId) slot.jobId = null;
  }

  /** Instances on GPU `index` held by jobs, by start. */
  instancesOn(index: number): MigInstance[] {
    return (this.byGpu.get(index) ?? [])
      .filter((s) => s.jobId !== null)
      .map((s) => s.instance)
      .sort((a, b) => a.start - b.start);
  }

  /** Σ compute slices and Σ memory slices of the instances in use on GPU `index` (zeros when none). */
  slicesInUse(index: number): { computeSlices: number; memorySlices: number } {
    let computeSlices = 0;
    let memorySlices = 0;
    for (const slot of this.byGpu.get(index) ?? []) {
      if (slot.jobId === null) continue;
      computeSlices += slot.instance.computeSlices;
      memorySlices += slot.instance.size;
    }
    return { computeSlices, memorySlices };
  }

  /** Idle instances on GPU `index`, by start. */
  idleOn(index: number): MigInstance[] {
    return (this.byGpu.get(index) ?? [])
      .filter((s) => s.jobId === null)
      .map((s) => s.instance)
      .sort((a, b) => a.start - b.start);
  }

  /**
   * Finds `gpuCount` schedulable MIG GPUs of one model that can each give `job` a GI, cheapest
   * first (reuse, then create, then fewest idle GIs destroyed), then the fullest GPUs so whole GPUs
   * stay free. @returns the placement (not yet held; `migChanges` says what to change) with its
   * cost (its dearest GPU's) and the used slices of its first GPU (to compare nodes), or why it waits
   */
  place(job: JobRequest, devices: readonly GpuDevice[]): MigOption {
    const options: {
      device: GpuDevice;
      instance: MigInstance;
      changes: MigChanges;
      cost: number;
      usedSlices: number;
      memoryMiB: number;
    }[] = [];
    let anyProfile = false;
    const share = migShareOf(job.gpu);
    for (const device of devices) {
      if (!device.migEnabled || !device.schedulable) continue;
      const profile = smallestProfileFor(device.model, share);
      if (!profile) continue;
      anyProfile = true;
      const option = this.optionOn(device, profile, job.id);
      if (option)
        options.push({
          device,
          ...option,
          usedSlices: this.instancesOn(device.index).reduce((sum, i) => sum + i.size, 0),
          memoryMiB: profile.usableMemoryMiB,
        });
    }
    options.sort((a, b) => a.cost - b.cost || b.usedSlices - a.usedSlices || a.device.index - b.device.index);
    const perModel = new Map<string, number>();
    for (const o of options) perModel.set(o.device.model, (perModel.get(o.device.model) ?? 0) + 1);
    const model = options.find((o) => perModel.get(o.device.model)! >= job.gpu.gpuCount)?.device.model;
    if (model === undefined) return { kind: 'waiting', anyProfile, withRoom: Math.max(0, ...perModel.values()) };
    const chosen = options.filter((o) => o.device.model === model).slice(0, job.gpu.gpuCount);
    const gpus = chosen.map(({ device, instance, changes, memoryMiB }): PlacedGpu => ({
      index: device.index,
      uuid: device.uuid,
      gpuMilli: job.gpu.gpuMilli,
      accountedGpuMilli: 0,
      // The whole instance's memory is the job's: MIG partitions memory in hardware.
      gpuMemoryMiB: memoryMiB,
      mig: instance,
      migChanges: changes,
    }));
    return {
      kind: 'placed',
      placement: { mode: 'mig', gpus: gpus.sort((a, b) => a.index - b.index) },
      // One instance to create makes the placement a creation (`mig-reuse-only` refuses it).
      cost: Math.max(...chosen.map((c) => c.cost)),
      usedSlices: chosen[0]!.usedSlices,
    };
  }

  /** The cheapest way to get a GI of `profile` on `device`: cost 0 reuse, 1 create, 2 + n destroy n idle GIs. */
  private optionOn(
    device: GpuDevice,
    profile: MigProfile,
    jobId: number,
  ): { instance: MigInstance; changes: MigChanges; cost: number } | null {
    const slots = this.byGpu.get(device.index) ?? [];
    const toInstance = (start: number): MigInstance => ({
      profileId: profile.profileId,
      profileName: profile.name,
      start,
      size: profile.memorySlices,
      computeSlices: profile.computeSlices,
    });
    const idle = slots
      .filter((s) => s.jobId === null && s.instance.profileId === profile.profileId)
      .sort((a, b) => b.instance.start - a.instance.start)[0];
    if (idle) return { instance: idle.instance, changes: NO_CHANGES, cost: 0 };
    const start = choosePlacement(device.model, asLayout(slots), profile);
    if (start !== null)
      return {
        instance: toInstance(start),
        changes: { destroy: [], create: [{ start, profileId: profile.profileId }] },
        cost: 1,
      };
    const plan = planMigReconfiguration({
      gpus: [{ gpuIndex: device.index, model: device.model, gis: asLayout(slots), schedulable: true }],
      queue: [{ jobId, profile, gpuEquivalents: 1 }],
    });
    const assignment = plan.assignments[0];
    if (!assignment) return null;
    return {
      instance: toInstance(assignment.start),
      changes: {
        destroy: plan.destroy.map(({ start: s, profileId }) => ({ start: s, profileId })),
        create: plan.create.map(({ start: s, profileId }) => ({ start: s, profileId })),
      },
      cost: 2 + plan.destroy.length,
    };
  }

  /** GPU `gpu.index`'s slots after `gpu.migChanges` and the job taking its GI. */
  private after(gpu: PlacedGpu, jobId: number): GiSlot[] {
    const changes = gpu.migChanges ?? NO_CHANGES;
    const slots: GiSlot[] = [];
    for (const slot of this.byGpu.get(gpu.index) ?? []) {
      if (!changes.destroy.some((d) => sameGi(d, slot.instance))) {
        slots.push({ ...slot });
        continue;
      }
      if (slot.jobId !== null)
        throw new InvariantViolation(
          `job ${jobId}: would destroy the GI at ${slot.instance.start} on GPU ${gpu.index}, which job ` +
            `${slot.jobId} uses`,
        );
    }
    const mine = slots.find((s) => sameGi(s.instance, gpu.mig!));
    if (mine) {
      if (mine.jobId !== null && mine.jobId !== jobId)
        throw new InvariantViolation(
          `job ${jobId}: the GI at ${gpu.mig!.start} on GPU ${gpu.index} is used by job ${mine.jobId}`,
        );
      mine.jobId = jobId;
    } else {
      slots.push({ instance: gpu.mig!, jobId });
    }
    return slots;
  }
}

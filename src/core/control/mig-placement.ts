/**
 * Placement of `mig` jobs on GPUs in MIG mode: each GPU of the job gets one GPU instance of the
 * smallest profile that covers the request, at the start that keeps the largest free block for
 * later (src/core/mig). A job's GPUs are distinct GPUs of one model. MIG GPUs are accounted in
 * slices and placements, never in milli-GPU.
 */
import { InvariantViolation } from '../model/errors.js';
import { choosePlacement, isValidLayout, smallestProfileFor, type MigShareRequest } from '../mig/mig-allocator.js';
import type { GpuDevice, MigInstance, PlacedGpu, Placement } from './gpu-device.js';
import type { GpuRequest, PendingJob } from './job.js';

/**
 * What a request asks of a MIG profile. MIG partitions memory together with compute, so a request
 * without `gpuMemoryMiB` (memory in proportion to its compute) is served by the profile its compute
 * needs and gets that profile's memory; a proportional MiB figure of the whole GPU would exceed the
 * usable memory of the matching profile (the 7g of an A100-80GB has 79 of its 80 GiB).
 */
export function migShareOf(gpu: GpuRequest): MigShareRequest {
  return { gpuMilli: gpu.gpuMilli, gpuMemoryMiB: gpu.gpuMemoryMiB ?? 0 };
}

interface HeldInstance {
  readonly jobId: number;
  readonly gpuIndex: number;
  readonly instance: MigInstance;
}

/** The GPU instances held on every MIG GPU of a server. */
export class MigLayouts {
  private readonly byGpu = new Map<number, HeldInstance[]>();

  /**
   * Throws, changing nothing, when the instances cannot be held: a GPU without an instance, a GPU
   * not in MIG mode, or an instance that breaks its GPU's layout (overlap, wrong start, too many).
   */
  check(jobId: number, gpus: readonly PlacedGpu[], deviceOf: (index: number) => GpuDevice): void {
    for (const gpu of gpus) {
      if (!gpu.mig) throw new InvariantViolation(`job ${jobId}: mig placement without an instance on GPU ${gpu.index}`);
      const device = deviceOf(gpu.index);
      if (!device.migEnabled) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is not in MIG mode`);
      const layout = [...this.instancesOn(gpu.index), gpu.mig].map((i) => ({ profileId: i.profileId, start: i.start, size: i.size, inUse: true }));
      if (!isValidLayout(device.model, layout)) {
        throw new InvariantViolation(`job ${jobId}: MIG instance ${gpu.mig.profileName} at ${gpu.mig.start}:${gpu.mig.size} does not fit the layout of GPU ${gpu.index} (${device.model})`);
      }
    }
  }

  /** Records instances that exist (a placement or a re-adopted job). @throws InvariantViolation as `check` (nothing is recorded then) */
  hold(jobId: number, gpus: readonly PlacedGpu[], deviceOf: (index: number) => GpuDevice): void {
    this.check(jobId, gpus, deviceOf);
    for (const gpu of gpus) {
      this.byGpu.set(gpu.index, [...(this.byGpu.get(gpu.index) ?? []), { jobId, gpuIndex: gpu.index, instance: gpu.mig! }]);
    }
  }

  /** Frees the instances of `jobId`. */
  release(jobId: number): void {
    for (const [index, held] of this.byGpu) this.byGpu.set(index, held.filter((h) => h.jobId !== jobId));
  }

  /** Instances on GPU `index`, by start. */
  instancesOn(index: number): MigInstance[] {
    return (this.byGpu.get(index) ?? []).map((h) => h.instance).sort((a, b) => a.start - b.start);
  }

  /**
   * Finds `gpuCount` schedulable MIG GPUs of one model that can each take one more instance for
   * `job`, preferring the fullest GPUs (most used memory slices, then lower index) so whole GPUs stay
   * free; the model is that of the first preferred GPU whose model has enough such GPUs.
   * @returns the placement (not yet held), or the reason it waits
   */
  place(job: PendingJob, devices: readonly GpuDevice[]): Placement | string {
    const options: { device: GpuDevice; instance: MigInstance; usedSlices: number; memoryMiB: number }[] = [];
    let anyProfile = false;
    const share = migShareOf(job.gpu);
    for (const device of devices) {
      if (!device.migEnabled || !device.schedulable) continue;
      const profile = smallestProfileFor(device.model, share);
      if (!profile) continue;
      anyProfile = true;
      const held = this.instancesOn(device.index);
      const start = choosePlacement(device.model, held.map((i) => ({ profileId: i.profileId, start: i.start, size: i.size, inUse: true })), profile);
      if (start === null) continue;
      const usedSlices = held.reduce((sum, i) => sum + i.size, 0);
      options.push({ device, usedSlices, instance: { profileId: profile.profileId, profileName: profile.name, start, size: profile.memorySlices, computeSlices: profile.computeSlices }, memoryMiB: profile.usableMemoryMiB });
    }
    options.sort((a, b) => b.usedSlices - a.usedSlices || a.device.index - b.device.index);
    const perModel = new Map<string, number>();
    for (const o of options) perModel.set(o.device.model, (perModel.get(o.device.model) ?? 0) + 1);
    const model = options.find((o) => perModel.get(o.device.model)! >= job.gpu.gpuCount)?.device.model;
    if (model === undefined) {
      return anyProfile
        ? `waiting for ${job.gpu.gpuCount} MIG GPU(s) of one model with room for the instance; ${Math.max(0, ...perModel.values())} have room now`
        : 'waiting for a schedulable MIG GPU whose profiles cover the request';
    }
    const gpus = options.filter((o) => o.device.model === model).slice(0, job.gpu.gpuCount).map(({ device, instance, memoryMiB }): PlacedGpu => ({
      index: device.index,
      uuid: device.uuid,
      gpuMilli: job.gpu.gpuMilli,
      accountedGpuMilli: 0,
      // The whole instance's memory is the job's: MIG partitions memory in hardware.
      gpuMemoryMiB: memoryMiB,
      mig: instance,
    }));
    return { mode: 'mig', gpus: gpus.sort((a, b) => a.index - b.index) };
  }
}

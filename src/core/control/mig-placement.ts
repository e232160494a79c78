/**
 * Placement of `mig` jobs on GPUs in MIG mode: each GPU of the job gets one GPU instance of the
 * smallest profile that covers the request, at the start that keeps the largest free block for
 * later (src/core/mig). MIG GPUs are accounted in slices and placements, never in milli-GPU.
 */
import { InvariantViolation } from '../model/errors.js';
import { choosePlacement, smallestProfileFor } from '../mig/mig-allocator.js';
import type { GpuDevice, MigInstance, PlacedGpu, Placement } from './gpu-device.js';
import type { PendingJob } from './job.js';

interface HeldInstance {
  readonly jobId: number;
  readonly gpuIndex: number;
  readonly instance: MigInstance;
}

/** The GPU instances held on every MIG GPU of a server. */
export class MigLayouts {
  private readonly byGpu = new Map<number, HeldInstance[]>();

  /** Records instances that exist (a placement or a re-adopted job). @throws InvariantViolation for a non-MIG placement */
  hold(jobId: number, gpus: readonly PlacedGpu[], deviceOf: (index: number) => GpuDevice): void {
    for (const gpu of gpus) {
      if (!gpu.mig) throw new InvariantViolation(`job ${jobId}: mig placement without an instance on GPU ${gpu.index}`);
      if (!deviceOf(gpu.index).migEnabled) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is not in MIG mode`);
      this.byGpu.set(gpu.index, [...(this.byGpu.get(gpu.index) ?? []), { jobId, gpuIndex: gpu.index, instance: gpu.mig }]);
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
   * Finds `gpuCount` schedulable MIG GPUs that can each take one more instance for `job`, preferring
   * the fullest GPUs (fewest free memory slices) so whole GPUs stay free.
   * @returns the placement (not yet held), or the reason it waits
   */
  place(job: PendingJob, devices: readonly GpuDevice[]): Placement | string {
    const options: { device: GpuDevice; instance: MigInstance; usedSlices: number; memoryMiB: number }[] = [];
    let anyProfile = false;
    for (const device of devices) {
      if (!device.migEnabled || !device.schedulable) continue;
      const gpuMemoryMiB = job.gpu.gpuMemoryMiB ?? Math.floor((job.gpu.gpuMilli * device.gpuMemoryMiB) / 1000);
      const profile = smallestProfileFor(device.model, { gpuMilli: job.gpu.gpuMilli, gpuMemoryMiB });
      if (!profile) continue;
      anyProfile = true;
      const held = this.instancesOn(device.index);
      const start = choosePlacement(device.model, held.map((i) => ({ profileId: i.profileId, start: i.start, size: i.size, inUse: true })), profile);
      if (start === null) continue;
      const usedSlices = held.reduce((sum, i) => sum + i.size, 0);
      options.push({ device, usedSlices, instance: { profileId: profile.profileId, profileName: profile.name, start, size: profile.memorySlices, computeSlices: profile.computeSlices }, memoryMiB: profile.usableMemoryMiB });
    }
    if (options.length < job.gpu.gpuCount) {
      return anyProfile
        ? `waiting for ${job.gpu.gpuCount} MIG GPU(s) with room for the instance; ${options.length} have room now`
        : 'waiting for a schedulable MIG GPU whose profiles cover the request';
    }
    options.sort((a, b) => b.usedSlices - a.usedSlices || a.device.index - b.device.index);
    const gpus = options.slice(0, job.gpu.gpuCount).map(({ device, instance, memoryMiB }): PlacedGpu => ({
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

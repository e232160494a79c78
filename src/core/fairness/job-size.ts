/**
 * A job's size in GPU-equivalents (gpu-equivalents.ts) on a cluster: held jobs by where they run,
 * queued jobs by the smallest GPU model they could run on.
 */
import type { Placement } from '../model/assignment.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest } from '../model/request.js';
import { migGeometry } from '../mig/mig-profiles.js';
import { smallestProfileFor } from '../mig/mig-allocator.js';
import { resolveMode } from '../sharing/share-accounting.js';
import { gpuEquivalents } from './gpu-equivalents.js';

/**
 * Size of a placed job: its mode, memory per GPU and MIG instance as placed.
 * @param device the first GPU of the placement (its model and memory); undefined when unknown
 */
export function placedGpuEquivalents(gpu: GpuRequest, placement: Placement, device: GpuDevice | undefined): number {
  const first = placement.gpus[0];
  if (!first) return 0;
  const modelMemoryMiB = device?.gpuMemoryMiB ?? first.gpuMemoryMiB;
  return gpuEquivalents(
    {
      gpuCount: placement.gpus.length,
      gpuMilli: gpu.gpuMilli,
      gpuMemoryMiB: placement.mode === 'mig' ? null : first.gpuMemoryMiB,
      mode: placement.mode,
      migComputeSlices: first.mig?.computeSlices ?? null,
      gpuComputeSlices: device ? (migGeometry(device.model)?.computeSlices ?? 7) : 7,
    },
    modelMemoryMiB,
  );
}

/** What a queued job's size depends on of a GPU: its model, its memory (MiB) and whether it is in MIG mode. */
export type GpuKind = Pick<GpuDevice, 'model' | 'gpuMemoryMiB' | 'migEnabled'>;

/** The distinct kinds of `devices`, in the order first seen. */
export function gpuKindsOf(devices: readonly GpuKind[]): GpuKind[] {
  const kinds = new Map<string, GpuKind>();
  for (const d of devices) {
    const key = `${d.model}/${d.gpuMemoryMiB}/${d.migEnabled}`;
    if (!kinds.has(key)) kinds.set(key, { model: d.model, gpuMemoryMiB: d.gpuMemoryMiB, migEnabled: d.migEnabled });
  }
  return [...kinds.values()];
}

/**
 * Size of a queued job on the smallest GPU model it could run on (MIG GPUs for `mig`, the others
 * otherwise); with no such GPU, its compute share alone.
 */
export function queuedGpuEquivalents(gpu: GpuRequest, devices: readonly GpuKind[]): number {
  const mode = resolveMode(gpu);
  const eligible = devices.filter((d) => (mode === 'mig') === d.migEnabled);
  if (mode === 'mig') {
    let best = Number.POSITIVE_INFINITY;
    for (const d of eligible) {
      const profile = smallestProfileFor(d.model, { gpuMilli: gpu.gpuMilli, gpuMemoryMiB: gpu.gpuMemoryMiB ?? 0 });
      const slices = migGeometry(d.model)?.computeSlices ?? 7;
      if (profile)
        best = Math.min(
          best,
          gpuEquivalents(
            { ...gpu, gpuMemoryMiB: null, migComputeSlices: profile.computeSlices, gpuComputeSlices: slices },
            d.gpuMemoryMiB,
          ),
        );
    }
    return Number.isFinite(best) ? best : gpuEquivalents({ ...gpu, gpuMemoryMiB: null }, 1);
  }
  const fitting = eligible.filter((d) => gpu.gpuMemoryMiB === null || gpu.gpuMemoryMiB <= d.gpuMemoryMiB);
  if (fitting.length === 0) return gpuEquivalents({ ...gpu, gpuMemoryMiB: null }, 1);
  const smallest = Math.min(...fitting.map((d) => d.gpuMemoryMiB));
  return gpuEquivalents({ ...gpu, mode }, smallest);
}

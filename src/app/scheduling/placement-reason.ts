/**
 * The reason stored with a job's `scheduled` transition: where it was placed, in which mode, and
 * for `auto` jobs why that mode (src/core/sharing/select-mode.ts).
 */
import { migGeometry, selectMode, type JobRequest, type Placement } from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';

/** The scheduled transition's reason: where, in which mode, and why that mode for `auto` jobs. */
export function describePlacement(
  placement: Placement,
  job: JobRequest | undefined,
  inventory: { gpu(index: number): InventoryGpu | undefined },
): string {
  const gpus = placement.gpus.map((g) => `GPU ${g.index}${g.mig ? ` (${g.mig.profileName})` : ''}`).join(', ');
  const where = `placed on ${gpus} in mode ${placement.mode}`;
  if (!job || job.gpu.mode !== 'auto') return where;
  const device = inventory.gpu(placement.gpus[0]!.index);
  if (job.gpu.isolation === 'strict' && placement.mode === 'exclusive' && job.gpu.gpuMilli < 1000) {
    const why =
      device && migGeometry(device.model)
        ? 'no MIG instance could hold it now'
        : `${device?.model ?? 'the GPU'} has no MIG`;
    return `${where}: strict isolation: ${why}, so a whole GPU`;
  }
  if (!device) return where;
  const request = {
    gpuMilli: job.gpu.gpuMilli,
    gpuMemoryMiB: job.gpu.gpuMemoryMiB,
    isolation: job.gpu.isolation ?? 'standard',
  };
  return `${where}: ${selectMode(request, device.model, device.gpuMemoryMiB).reason}`;
}

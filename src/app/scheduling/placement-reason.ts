/**
 * The reason stored with a job's `scheduled` transition: where it was placed, in which mode, and
 * for `auto` jobs why that mode (src/core/sharing/select-mode.ts), as a `placed` reason.
 */
import {
  JOB_EVENT_CODES,
  jobEventReason,
  migGeometry,
  selectMode,
  type JobEventReason,
  type JobRequest,
  type Placement,
} from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';

/** The scheduled transition's reason: the GPUs (index, MIG profile), the mode, and why that mode for `auto` jobs. */
export function describePlacement(
  placement: Placement,
  job: JobRequest | undefined,
  inventory: { gpu(index: number): InventoryGpu | undefined },
): JobEventReason {
  const placed = (modeChoice: string | null): JobEventReason =>
    jobEventReason(JOB_EVENT_CODES.placed, {
      gpus: placement.gpus.map((g) => ({ gpuIndex: g.index, migProfile: g.mig?.profileName ?? null })),
      mode: placement.mode,
      modeChoice,
    });
  if (!job || job.gpu.mode !== 'auto') return placed(null);
  const device = inventory.gpu(placement.gpus[0]!.index);
  if (job.gpu.isolation === 'strict' && placement.mode === 'exclusive' && job.gpu.gpuMilli < 1000) {
    const why =
      device && migGeometry(device.model)
        ? 'no MIG instance could hold it now'
        : `${device?.model ?? 'the GPU'} has no MIG`;
    return placed(`strict isolation: ${why}, so a whole GPU`);
  }
  if (!device) return placed(null);
  const request = {
    gpuMilli: job.gpu.gpuMilli,
    gpuMemoryMiB: job.gpu.gpuMemoryMiB,
    isolation: job.gpu.isolation ?? 'standard',
  };
  return placed(selectMode(request, device.model, device.gpuMemoryMiB).reason);
}

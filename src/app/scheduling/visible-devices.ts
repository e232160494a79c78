/**
 * The device names a job's `CUDA_VISIBLE_DEVICES` lists: the GPU UUID for whole and shared GPUs,
 * the MIG device UUID for a MIG instance. Real MIG devices are looked up in the inventory (from
 * `nvidia-smi -L`) by profile; simulated ones get a stable made-up `MIG-<uuid>` derived from the
 * GPU UUID and the instance's placement (format as `nvidia-smi -L` prints on R470+).
 */
import { createHash } from 'node:crypto';
import type { Placement, PlacedGpu } from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';

/** One device name per placed GPU, in placement order. */
export function visibleDevicesOf(placement: Placement, inventory: ReadonlyMap<number, InventoryGpu>): string[] {
  return placement.gpus.map((gpu) => (gpu.mig ? migDeviceUuid(gpu, inventory.get(gpu.index)) : gpu.uuid));
}

/** The MIG device UUID of a placed MIG instance. */
export function migDeviceUuid(gpu: PlacedGpu, inventoryGpu: InventoryGpu | undefined): string {
  if (gpu.migDeviceUuid) return gpu.migDeviceUuid;
  const mig = gpu.mig!;
  if (inventoryGpu && !inventoryGpu.simulated) {
    const match = inventoryGpu.migDevices.find(
      (d) => d.profile === mig.profileName || d.profile.endsWith(`.${mig.profileName}`),
    );
    if (match) return match.uuid;
  }
  const hex = createHash('sha256').update(`${gpu.uuid}/${mig.profileId}/${mig.start}`).digest('hex');
  return `MIG-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

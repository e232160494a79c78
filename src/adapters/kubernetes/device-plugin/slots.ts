/**
 * The devices the node agent's device plugin advertises for `gpushare.io/gpu-slot`: `slotsPerGpu`
 * slots per discovered GPU, with ids `gpu<index>-slot<k>`. A slot only lets a container start on a
 * gpushare node: the GPUs the container gets come from its pod's assignment, never from the slot's
 * id. A slot is as healthy as the GPU it is numbered after, so an unhealthy GPU lowers the node's
 * allocatable slots (the kubelet's rule for Unhealthy devices).
 */
import { RESOURCES } from '../schema/names.js';
import { DEVICE_HEALTH, type Device } from './wire-types.js';

/** Default slots per GPU: the most GPU pods one GPU is expected to share. */
export const DEFAULT_SLOTS_PER_GPU = 16;
/** Largest `slotsPerGpu` accepted. */
export const MAX_SLOTS_PER_GPU = 1000;
/** The kubelet's limit on a device id's length. */
export const MAX_DEVICE_ID_LENGTH = 63;

/** A GPU as the device plugin numbers its slots: its index and UUID. */
export interface SlotGpu {
  readonly index: number;
  readonly uuid: string;
}

/** Id of slot `k` (0-based) of GPU `gpuIndex`: `gpu<index>-slot<k>`. */
export function slotId(gpuIndex: number, k: number): string {
  return `gpu${gpuIndex}-slot${k}`;
}

const SLOT_ID = /^gpu(0|[1-9]\d*)-slot(0|[1-9]\d*)$/;

/** The GPU index and slot number of a slot id; null when `id` is not a slot id. */
export function parseSlotId(id: string): { gpuIndex: number; k: number } | null {
  const m = SLOT_ID.exec(id);
  return m ? { gpuIndex: Number(m[1]), k: Number(m[2]) } : null;
}

/**
 * Checks `slotsPerGpu`.
 * @throws RangeError naming `slotsPerGpu` and the allowed range when it is not an integer in 1..1000
 */
export function checkSlotsPerGpu(slotsPerGpu: number): void {
  if (!Number.isInteger(slotsPerGpu) || slotsPerGpu < 1 || slotsPerGpu > MAX_SLOTS_PER_GPU) {
    throw new RangeError(`slotsPerGpu must be an integer from 1 to ${MAX_SLOTS_PER_GPU}, got ${slotsPerGpu}`);
  }
}

/**
 * The full device list: for each GPU by ascending index, its slots 0..slotsPerGpu-1, `Healthy` when
 * `isHealthy(gpuIndex)`, else `Unhealthy`.
 */
export function slotDevices(
  gpus: readonly SlotGpu[],
  slotsPerGpu: number,
  isHealthy: (gpuIndex: number) => boolean,
): Device[] {
  const devices: Device[] = [];
  for (const gpu of [...gpus].sort((a, b) => a.index - b.index)) {
    const health = isHealthy(gpu.index) ? DEVICE_HEALTH.healthy : DEVICE_HEALTH.unhealthy;
    for (let k = 0; k < slotsPerGpu; k++) devices.push({ ID: slotId(gpu.index, k), health });
  }
  return devices;
}

/**
 * Checks that what the plugin advertises equals what was discovered: `gpus.length × slotsPerGpu`
 * devices, ids unique, at most 63 characters, each the slot of a discovered GPU, every GPU index
 * listed once.
 * @throws Error whose message names the discovered count, the advertised count and the first
 *   offending id or index
 */
export function checkAdvertisedDevices(
  devices: readonly Device[],
  gpus: readonly SlotGpu[],
  slotsPerGpu: number,
): void {
  const indices = new Set<number>();
  for (const g of gpus) {
    if (indices.has(g.index)) throw new Error(`discovered GPUs list index ${g.index} twice: cannot number its slots`);
    indices.add(g.index);
  }
  const expected = gpus.length * slotsPerGpu;
  if (devices.length !== expected) {
    throw new Error(
      `the device plugin advertises ${devices.length} ${RESOURCES.gpuSlot} devices, but ${gpus.length} ` +
        `GPUs were discovered × ${slotsPerGpu} slots per GPU = ${expected}`,
    );
  }
  const seen = new Set<string>();
  for (const d of devices) {
    if (seen.has(d.ID)) throw new Error(`the device plugin advertises device id ${d.ID} twice`);
    seen.add(d.ID);
    if (d.ID.length > MAX_DEVICE_ID_LENGTH)
      throw new Error(`device id ${d.ID} is longer than the kubelet's ${MAX_DEVICE_ID_LENGTH} characters`);
    const slot = parseSlotId(d.ID);
    if (slot === null || !indices.has(slot.gpuIndex) || slot.k >= slotsPerGpu) {
      throw new Error(
        `the device plugin advertises ${d.ID}, which is no slot 0..${slotsPerGpu - 1} of a discovered GPU ` +
          `(indices ${[...indices].sort((a, b) => a - b).join(', ')})`,
      );
    }
  }
}

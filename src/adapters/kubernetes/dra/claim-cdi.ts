/**
 * The CDI spec of a prepared claim: one spec per claim, kind `gpushare.io/claim`, one CDI device
 * per allocated device named `<claimUID>-<device>`, every device carrying the claim's container
 * edits (so a container given any of them sees all the claim's GPUs, whichever device's edits
 * the runtime applies last). The edits are the device plugin's (device-plugin/cdi-spec.ts
 * containerEditsFor): CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, GPUSHARE_MODE,
 * GPUSHARE_GPU_COUNT, GPUSHARE_GPU_MILLI, GPUSHARE_GPU_MEMORY_MIB and, for `mps`, the MPS thread
 * percentage, pinned memory limit and pipe directory; except that a share with 0 milli-GPU
 * (compute not reserved) gets no thread percentage and a share with 0 MiB (memory not reserved)
 * no pinned memory limit. Pure.
 *
 * Facts: CDI names are `vendor/class=name`; transient specs are named `<vendor>-<class>_<id>`
 * (cncf-tags/container-device-interface pkg/parser, pkg/cdi/spec.go; ../shared docs
 * K8S-DRA-CONTRACTS.md §3.3).
 */
import { SCHEMA_VERSION } from '../schema/names.js';
import type { AssignedGpu, PodAssignment } from '../schema/pod-assignment.js';
import {
  CDI_VERSION,
  containerEditsFor,
  type CdiContainerEdits,
  type CdiSpec,
  type MpsPipeDirectories,
} from '../device-plugin/cdi-spec.js';
import type { AllocatedDevice } from './claim-allocation.js';

/** The CDI kind of the driver's claim specs. */
export const DRA_CDI_KIND = 'gpushare.io/claim';

/** A device of a claim, ready: its allocation and, for `mig`, the MIG device UUID. */
export interface ReadyDevice {
  readonly allocated: AllocatedDevice;
  /** The MIG device's UUID (`MIG-…`) for `mig`; null otherwise. */
  readonly migDeviceUuid: string | null;
}

/** The CDI device name of a claim's device, e.g. `<uid>-gpu-0-shared`. */
export function claimCdiDeviceName(claimUid: string, device: string): string {
  return `${claimUid}-${device}`;
}

/** The fully qualified CDI id, e.g. `gpushare.io/claim=<uid>-gpu-0-shared`. */
export function claimCdiDeviceId(claimUid: string, device: string): string {
  return `${DRA_CDI_KIND}=${claimCdiDeviceName(claimUid, device)}`;
}

/** File name of a claim's spec in the CDI directory: `gpushare.io-claim_<uid>.json`. */
export function claimCdiSpecFileName(claimUid: string): string {
  return `gpushare.io-claim_${claimUid}.json`;
}

/** The device id a container gets for a ready device: the MIG device UUID, else the GPU's. */
export function deviceIdOf(device: ReadyDevice): string {
  return device.migDeviceUuid ?? device.allocated.gpu.uuid;
}

/** The mode of the claim's edits: mps or timeslice when a share says so, mig when all are MIG, else exclusive. */
export function claimMode(devices: readonly ReadyDevice[]): PodAssignment['mode'] {
  const modes = new Set(devices.map((d) => d.allocated.mode));
  if (modes.has('mps')) return 'mps';
  if (modes.has('timeslice')) return 'timeslice';
  if (modes.size === 1 && modes.has('mig')) return 'mig';
  return 'exclusive';
}

/**
 * The assignment the edits are made from: one entry per device id (shares of one GPU in one claim
 * are summed, at most 1000 milli-GPU and the GPU's memory).
 * @throws RangeError for a claim without devices
 */
export function claimAssignment(nodeName: string, devices: readonly ReadyDevice[]): PodAssignment {
  if (devices.length === 0) throw new RangeError('a claim without devices has no container edits');
  const byId = new Map<string, AssignedGpu>();
  for (const d of devices) {
    const a = d.allocated;
    const id = deviceIdOf(d);
    const earlier = byId.get(id);
    if (earlier !== undefined) {
      byId.set(id, {
        ...earlier,
        gpuMilli: Math.min(1000, earlier.gpuMilli + a.gpuMilli),
        accountedGpuMilli: Math.min(1000, earlier.accountedGpuMilli + a.gpuMilli),
        gpuMemoryMiB: Math.min(a.gpu.gpuMemoryMiB, earlier.gpuMemoryMiB + a.memoryMiB),
      });
      continue;
    }
    byId.set(id, {
      index: a.gpu.index,
      uuid: a.gpu.uuid,
      gpuMilli: a.gpuMilli,
      accountedGpuMilli: a.kind === 'mig' ? 0 : a.gpuMilli,
      gpuMemoryMiB: a.memoryMiB,
      mig:
        a.mig === null || d.migDeviceUuid === null
          ? null
          : {
              uuid: d.migDeviceUuid,
              profileId: a.mig.profileId,
              profileName: a.mig.profileName,
              start: a.mig.start,
              size: a.mig.size,
              computeSlices: a.mig.computeSlices,
            },
    });
  }
  return { schema: SCHEMA_VERSION, node: nodeName, mode: claimMode(devices), gpus: [...byId.values()] };
}

/**
 * The container edits of a claim (see the module comment for the variables).
 * @throws Error when the mode is `mps` and a device has no pipe directory in `mps`
 */
export function claimContainerEdits(
  nodeName: string,
  devices: readonly ReadyDevice[],
  mps: MpsPipeDirectories | null,
): CdiContainerEdits {
  const assignment = claimAssignment(nodeName, devices);
  const edits = containerEditsFor(assignment, mps);
  if (assignment.mode !== 'mps') return edits;
  const env: string[] = [];
  for (const entry of edits.env) {
    if (entry.startsWith('CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=') && entry.endsWith('=0')) continue;
    if (entry.startsWith('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=')) {
      const limits = entry
        .slice('CUDA_MPS_PINNED_DEVICE_MEM_LIMIT='.length)
        .split(',')
        .filter((l) => !l.endsWith('=0M'));
      if (limits.length > 0) env.push(`CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=${limits.join(',')}`);
      continue;
    }
    env.push(entry);
  }
  return { ...edits, env };
}

/**
 * The claim's spec: kind `gpushare.io/claim`, one device per allocated device name (two shares of
 * one device in a claim are one CDI device), each with `edits`.
 */
export function claimCdiSpec(claimUid: string, devices: readonly ReadyDevice[], edits: CdiContainerEdits): CdiSpec {
  return {
    cdiVersion: CDI_VERSION,
    kind: DRA_CDI_KIND,
    devices: [...new Set(devices.map((d) => d.allocated.device))].map((device) => ({
      name: claimCdiDeviceName(claimUid, device),
      containerEdits: edits,
    })),
  };
}

/**
 * The CDI (Container Device Interface) spec the device plugin writes for a slot: one device named
 * after the slot id, of kind `gpushare.io/gpu` (names.ts CDI_KIND), whose container edits hand the
 * container the GPUs of its pod's assignment. Pure: the file is written by cdi-writer.ts.
 *
 * Facts: CDI spec format (cdiVersion, kind `vendor/class`, devices[].name, containerEdits.env as
 * `KEY=VALUE`, containerEdits.mounts {hostPath, containerPath, options}) from the CDI
 * specification (cncf-tags/container-device-interface SPEC.md); the kubelet passes the names of
 * `cdi_devices` from Allocate to the runtime, which applies the edits (device plugin docs,
 * DevicePluginCDIDevices GA in 1.31). CUDA_VISIBLE_DEVICES takes GPU or MIG device UUIDs; the MPS
 * variables as the standalone server sets them (docs/processes.md): active thread percentage =
 * ceil(gpuMilli / 10), pinned memory limit `<uuid>=<MiB>M` per GPU, the daemon's pipe directory.
 */
import { CDI_KIND, VISIBLE_DEVICES_ENV } from '../schema/names.js';
import { assignedDeviceIds, type PodAssignment } from '../schema/pod-assignment.js';

/** The CDI spec version written (env and mounts need 0.3.0; 0.6.0 is understood by current runtimes). */
export const CDI_VERSION = '0.6.0';

/** A CDI mount. */
export interface CdiMount {
  hostPath: string;
  containerPath: string;
  options: string[];
}

/** Container edits of a CDI device: `env` as `KEY=VALUE`. */
export interface CdiContainerEdits {
  env: string[];
  mounts?: CdiMount[];
}

/** A CDI spec file's content. */
export interface CdiSpec {
  cdiVersion: string;
  kind: string;
  devices: { name: string; containerEdits: CdiContainerEdits }[];
}

/** The fully-qualified CDI device name of a slot, e.g. `gpushare.io/gpu=gpu0-slot3`. */
export function cdiDeviceName(slot: string): string {
  return `${CDI_KIND}=${slot}`;
}

/** What the edits of an `mps` assignment need: the pipe directory of each assigned device's daemon. */
export interface MpsPipeDirectories {
  /** Device id (GPU or MIG UUID) → `CUDA_MPS_PIPE_DIRECTORY` of its MPS daemon. */
  readonly byDevice: ReadonlyMap<string, string>;
}

/**
 * The container edits for a pod's assignment:
 * - `CUDA_VISIBLE_DEVICES` and `NVIDIA_VISIBLE_DEVICES`: the assigned GPU UUIDs (MIG device UUIDs
 *   for `mig`), comma-separated in GPU index order;
 * - `GPUSHARE_MODE`, `GPUSHARE_GPU_COUNT`, `GPUSHARE_GPU_MILLI`, `GPUSHARE_GPU_MEMORY_MIB` (per GPU),
 *   as the standalone server gives its jobs;
 * - for `mps`: `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` = ceil(gpuMilli / 10),
 *   `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT` = `<uuid>=<MiB>M,...`, `CUDA_MPS_PIPE_DIRECTORY` = the first
 *   GPU's daemon pipe directory, and a read-write bind mount of each daemon's pipe directory at the
 *   same path.
 * @throws Error when an `mps` assignment names a device without a pipe directory in `mps`
 */
export function containerEditsFor(assignment: PodAssignment, mps: MpsPipeDirectories | null): CdiContainerEdits {
  const ids = assignedDeviceIds(assignment);
  const gpus = [...assignment.gpus].sort((a, b) => a.index - b.index);
  const first = gpus[0]!;
  const env = [
    `CUDA_VISIBLE_DEVICES=${ids.join(',')}`,
    `${VISIBLE_DEVICES_ENV}=${ids.join(',')}`,
    `GPUSHARE_MODE=${assignment.mode}`,
    `GPUSHARE_GPU_COUNT=${gpus.length}`,
    `GPUSHARE_GPU_MILLI=${first.gpuMilli}`,
    `GPUSHARE_GPU_MEMORY_MIB=${first.gpuMemoryMiB}`,
  ];
  if (assignment.mode !== 'mps') return { env };
  const pipes = ids.map((id) => {
    const dir = mps?.byDevice.get(id);
    if (dir === undefined) throw new Error(`no MPS daemon pipe directory for device ${id}`);
    return dir;
  });
  env.push(
    `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${Math.ceil(first.gpuMilli / 10)}`,
    `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=${gpus.map((g, i) => `${ids[i]}=${g.gpuMemoryMiB}M`).join(',')}`,
    `CUDA_MPS_PIPE_DIRECTORY=${pipes[0]}`,
  );
  const mounts = [...new Set(pipes)].map((dir) => ({ hostPath: dir, containerPath: dir, options: ['rbind', 'rw'] }));
  return { env, mounts };
}

/** The spec of one slot: kind `gpushare.io/gpu`, one device named `slot` with `edits`. */
export function cdiSpecFor(slot: string, edits: CdiContainerEdits): CdiSpec {
  return { cdiVersion: CDI_VERSION, kind: CDI_KIND, devices: [{ name: slot, containerEdits: edits }] };
}

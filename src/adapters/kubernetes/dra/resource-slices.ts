/**
 * The ResourceSlices gpushare's DRA driver publishes for one node's GPUs, as `resource.k8s.io/v1`
 * JSON objects. Pure: the publisher writes them through the API server.
 *
 * One pool per node (named after the node), made of slices of two kinds:
 * - counter slices: one counter set per GPU, named `gpu-<index>` (KEP-4815 shared counters);
 * - device slices: for a GPU not in MIG mode, a whole-GPU device `gpu-<index>` (type `gpu`) and a
 *   shared device `gpu-<index>-shared` (type `shared`, `allowMultipleAllocations`, consumable
 *   `gpuMilli` and `memory`, KEP-5075); both consume the GPU's whole counter set, so a GPU is given
 *   whole or shared, never both. For a GPU in MIG mode with a catalog geometry, one device per MIG
 *   placement `gpu-<index>-mig-<profileId>-<start>` (type `mig`) consuming the memory slices it
 *   spans, its compute slices and, for `+me` profiles, the GPU's one media-extensions counter.
 *
 * Facts (../shared docs K8S-DRA-CONTRACTS.md §1.1, §2.1, §2.2; kubernetes/api resource/v1 types.go
 * v0.37): since 1.35 `sharedCounters` and `devices` must be in different slices of the pool; a slice
 * holds at most 8 counter sets and at most 64 devices when its devices consume counters; a device
 * consumes from at most 2 counter sets; `requestPolicy` is allowed only on devices that allow
 * multiple allocations, whose `default` must lie in `validRange` and whose `max` must be a multiple
 * of `step`; a multi-allocatable device's counters are charged once, when its first share lands.
 * A slice names exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection.
 */
import { migGeometry, migProfilesFor } from '../../../core/index.js';
import {
  DRA_ATTRIBUTES,
  DRA_CAPACITY,
  DRA_DEVICE_TYPES,
  DRA_DRIVER,
  DRA_UNHEALTHY_TAINT,
  type DraDeviceType,
} from './dra-names.js';

/** What the slices are made from: one GPU of the node (the discovery's fields the driver needs). */
export interface SliceGpu {
  /** nvidia-smi index. */
  readonly index: number;
  /** `GPU-…` UUID. */
  readonly uuid: string;
  /** Catalog model, e.g. `A100-80GB`. */
  readonly model: string;
  /** Device memory in MiB. */
  readonly gpuMemoryMiB: number;
  /** Whether MIG mode is on: MIG placements are published instead of the whole and shared devices. */
  readonly migEnabled: boolean;
  /** False: the GPU's devices carry the NoSchedule taint {@link DRA_UNHEALTHY_TAINT}. */
  readonly healthy: boolean;
}

/** A device attribute value (exactly one field set). */
export type DeviceAttribute = { string: string } | { int: number } | { bool: boolean };

/** A capacity's request policy (KEP-5075). Quantities as strings. */
export interface CapacityRequestPolicy {
  readonly default: string;
  readonly validRange: { readonly min: string; readonly max?: string; readonly step: string };
}

/** A device's capacity. */
export interface DeviceCapacity {
  readonly value: string;
  readonly requestPolicy?: CapacityRequestPolicy;
}

/** A device of a slice (`spec.devices[]`). */
export interface SliceDevice {
  readonly name: string;
  readonly attributes: Record<string, DeviceAttribute>;
  readonly capacity: Record<string, DeviceCapacity>;
  readonly allowMultipleAllocations?: boolean;
  readonly consumesCounters: { readonly counterSet: string; readonly counters: Record<string, { value: string }> }[];
  readonly taints?: { readonly key: string; readonly effect: 'NoSchedule' }[];
}

/** A counter set (`spec.sharedCounters[]`). */
export interface CounterSet {
  readonly name: string;
  readonly counters: Record<string, { value: string }>;
}

/** A `resource.k8s.io/v1` ResourceSlice. */
export interface ResourceSlice {
  readonly apiVersion: 'resource.k8s.io/v1';
  readonly kind: 'ResourceSlice';
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly spec: {
    readonly driver: string;
    readonly nodeName: string;
    readonly pool: { readonly name: string; readonly generation: number; readonly resourceSliceCount: number };
    readonly devices?: SliceDevice[];
    readonly sharedCounters?: CounterSet[];
  };
}

/** Most counter sets in one slice. */
export const MAX_COUNTER_SETS_PER_SLICE = 8;
/** Most devices in one slice whose devices consume counters. */
export const MAX_DEVICES_PER_SLICE = 64;

/** Counter names of a MIG GPU's counter set besides its memory slices. */
export const MIG_COUNTERS = { computeSlices: 'compute-slices', mediaExtensions: 'media-extensions' } as const;

/**
 * Counter names of a GPU's counter set when it is not in MIG mode (counter names are lowercase
 * RFC 1123 labels, unlike capacity names).
 */
export const GPU_COUNTERS = { gpuMilli: 'gpu-milli', memory: 'memory' } as const;

/** Name of the counter of memory slice `n` of a MIG GPU. */
export function memorySliceCounter(n: number): string {
  return `memory-slice-${n}`;
}

/** Name of a GPU's counter set. */
export function counterSetName(gpuIndex: number): string {
  return `gpu-${gpuIndex}`;
}

/** Name of a GPU's whole-GPU device. */
export function wholeDeviceName(gpuIndex: number): string {
  return `gpu-${gpuIndex}`;
}

/** Name of a GPU's shared device. */
export function sharedDeviceName(gpuIndex: number): string {
  return `gpu-${gpuIndex}-shared`;
}

/** Name of a MIG placement device. */
export function migDeviceName(gpuIndex: number, profileId: number, start: number): string {
  return `gpu-${gpuIndex}-mig-${profileId}-${start}`;
}

/** A memory amount in MiB as a quantity. */
export function mebibytes(mib: number): string {
  return `${mib}Mi`;
}

function attributes(gpu: SliceGpu, type: DraDeviceType): Record<string, DeviceAttribute> {
  return {
    [DRA_ATTRIBUTES.type]: { string: type },
    [DRA_ATTRIBUTES.uuid]: { string: gpu.uuid },
    [DRA_ATTRIBUTES.index]: { int: gpu.index },
    [DRA_ATTRIBUTES.model]: { string: gpu.model },
  };
}

function taints(gpu: SliceGpu): Pick<SliceDevice, 'taints'> {
  return gpu.healthy ? {} : { taints: [{ key: DRA_UNHEALTHY_TAINT, effect: 'NoSchedule' }] };
}

function fullCounters(gpu: SliceGpu): Record<string, { value: string }> {
  return { [GPU_COUNTERS.gpuMilli]: { value: '1000' }, [GPU_COUNTERS.memory]: { value: mebibytes(gpu.gpuMemoryMiB) } };
}

function fullCapacity(gpu: SliceGpu): Record<string, { value: string }> {
  return { [DRA_CAPACITY.gpuMilli]: { value: '1000' }, [DRA_CAPACITY.memory]: { value: mebibytes(gpu.gpuMemoryMiB) } };
}

/**
 * The request policies of a shared device: `gpuMilli` 0-1000 in steps of 1, `memory` from 0 in
 * steps of 1 MiB; a capacity a claim does not name consumes 0 (docs/kubernetes/dra-driver.md says
 * what such a claim gets).
 */
export function sharedRequestPolicies(): Record<string, CapacityRequestPolicy> {
  return {
    [DRA_CAPACITY.gpuMilli]: { default: '0', validRange: { min: '0', max: '1000', step: '1' } },
    [DRA_CAPACITY.memory]: { default: '0', validRange: { min: '0', step: '1Mi' } },
  };
}

function wholeAndSharedDevices(gpu: SliceGpu): { devices: SliceDevice[]; counterSet: CounterSet } {
  const set = counterSetName(gpu.index);
  const capacity = fullCapacity(gpu);
  const policies = sharedRequestPolicies();
  const whole: SliceDevice = {
    name: wholeDeviceName(gpu.index),
    attributes: attributes(gpu, DRA_DEVICE_TYPES.gpu),
    capacity: { ...capacity },
    consumesCounters: [{ counterSet: set, counters: fullCounters(gpu) }],
    ...taints(gpu),
  };
  const shared: SliceDevice = {
    name: sharedDeviceName(gpu.index),
    attributes: attributes(gpu, DRA_DEVICE_TYPES.shared),
    capacity: Object.fromEntries(
      Object.entries(capacity).map(([name, c]) => [name, { value: c.value, requestPolicy: policies[name]! }]),
    ),
    allowMultipleAllocations: true,
    consumesCounters: [{ counterSet: set, counters: fullCounters(gpu) }],
    ...taints(gpu),
  };
  return { devices: [whole, shared], counterSet: { name: set, counters: fullCounters(gpu) } };
}

function migDevices(gpu: SliceGpu): { devices: SliceDevice[]; counterSet: CounterSet } | null {
  const geometry = migGeometry(gpu.model);
  if (geometry === undefined) return null;
  const set = counterSetName(gpu.index);
  const counters: Record<string, { value: string }> = {
    [MIG_COUNTERS.computeSlices]: { value: String(geometry.computeSlices) },
    [MIG_COUNTERS.mediaExtensions]: { value: '1' },
  };
  for (let n = 0; n < geometry.memorySlices; n += 1) counters[memorySliceCounter(n)] = { value: '1' };
  const devices: SliceDevice[] = [];
  for (const profile of migProfilesFor(gpu.model)) {
    for (const start of profile.placementStarts) {
      const consumed: Record<string, { value: string }> = {
        [MIG_COUNTERS.computeSlices]: { value: String(profile.computeSlices) },
      };
      if (profile.mediaExtensions) consumed[MIG_COUNTERS.mediaExtensions] = { value: '1' };
      for (let n = start; n < start + profile.placementSizeSlices; n += 1)
        consumed[memorySliceCounter(n)] = { value: '1' };
      devices.push({
        name: migDeviceName(gpu.index, profile.profileId, start),
        attributes: {
          ...attributes(gpu, DRA_DEVICE_TYPES.mig),
          [DRA_ATTRIBUTES.migProfile]: { string: profile.name },
          [DRA_ATTRIBUTES.migStart]: { int: start },
        },
        capacity: {
          [DRA_CAPACITY.gpuMilli]: {
            value: String(Math.floor((1000 * profile.computeSlices) / geometry.computeSlices)),
          },
          [DRA_CAPACITY.memory]: { value: mebibytes(profile.usableMemoryMiB) },
        },
        consumesCounters: [{ counterSet: set, counters: consumed }],
        ...taints(gpu),
      });
    }
  }
  return { devices, counterSet: { name: set, counters } };
}

/** The devices and counter set of one GPU (MIG placements when MIG is on and the model has a geometry). */
export function devicesOfGpu(gpu: SliceGpu): { devices: SliceDevice[]; counterSet: CounterSet } {
  return (gpu.migEnabled ? migDevices(gpu) : null) ?? wholeAndSharedDevices(gpu);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The node's slices, counter slices first, named `<node>-gpushare-<n>` (n from 0), all of pool
 * `nodeName` at `generation`, each with `resourceSliceCount` = the number of slices. A node without
 * GPUs gets one empty device slice, so that its pool says so.
 * @param generation the pool's generation: bump it whenever the devices change (>= 1)
 * @throws RangeError when `generation` is not a positive integer or GPU indices repeat
 */
export function resourceSlicesFor(nodeName: string, gpus: readonly SliceGpu[], generation: number): ResourceSlice[] {
  if (!Number.isInteger(generation) || generation < 1)
    throw new RangeError(`generation must be a positive integer, got ${generation}`);
  const indices = new Set(gpus.map((g) => g.index));
  if (indices.size !== gpus.length) throw new RangeError(`GPU indices repeat: ${gpus.map((g) => g.index).join(',')}`);
  const perGpu = [...gpus].sort((a, b) => a.index - b.index).map(devicesOfGpu);
  const counterChunks = chunks(
    perGpu.map((g) => g.counterSet),
    MAX_COUNTER_SETS_PER_SLICE,
  );
  const deviceChunks = chunks(
    perGpu.flatMap((g) => g.devices),
    MAX_DEVICES_PER_SLICE,
  );
  if (deviceChunks.length === 0) deviceChunks.push([]);
  const count = counterChunks.length + deviceChunks.length;
  const slice = (n: number, content: Pick<ResourceSlice['spec'], 'devices' | 'sharedCounters'>): ResourceSlice => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${nodeName}-gpushare-${n}` },
    spec: {
      driver: DRA_DRIVER,
      nodeName,
      pool: { name: nodeName, generation, resourceSliceCount: count },
      ...content,
    },
  });
  return [
    ...counterChunks.map((sets, n) => slice(n, { sharedCounters: sets })),
    ...deviceChunks.map((devices, n) => slice(counterChunks.length + n, { devices })),
  ];
}

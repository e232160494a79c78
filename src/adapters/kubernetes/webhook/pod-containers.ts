/**
 * The containers of a pod spec (`containers` and `initContainers`: their names are unique across
 * both, core/v1 validation) and their GPU resources: the `nvidia.com/gpu` each asks for, and the
 * gpushare extended resources (schema/names.ts RESOURCES) the webhook writes in its place.
 */
import { NVIDIA_GPU_RESOURCE, RESOURCES } from '../schema/names.js';
import { quantityMilli } from '../schema/quantity.js';
import { gpuAmountOf } from './gpu-amount.js';
import { childObject, ensureChildObject, isJsonObject, type JsonObject } from './json-object.js';

/** A container of a pod spec and where it is. */
export interface ContainerRef {
  readonly container: JsonObject;
  readonly name: string;
  /** Field path for messages, e.g. `spec.template.spec.containers[0]`. */
  readonly path: string;
}

/** What a container's `nvidia.com/gpu` asks for. */
export type ContainerGpu =
  | { readonly kind: 'none' }
  | { readonly kind: 'gpus'; readonly gpuCount: number; readonly gpuMilli: number }
  | { readonly kind: 'invalid'; readonly message: string };

const GPUSHARE_RESOURCE_NAMES: readonly string[] = Object.values(RESOURCES);

/**
 * The containers, then the init containers, of `spec`.
 * @param specPath the spec's field path for messages (`spec.template.spec`)
 * @returns the containers, or a message naming the malformed field
 */
export function containersOf(spec: JsonObject, specPath: string): ContainerRef[] | string {
  const refs: ContainerRef[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    const value = spec[list];
    if (value === undefined || value === null) {
      if (list === 'containers') return `${specPath}.containers: required: the pod's list of containers`;
      continue;
    }
    if (!Array.isArray(value)) return `${specPath}.${list}: must be a list of containers`;
    for (const [index, container] of value.entries()) {
      const path = `${specPath}.${list}[${index}]`;
      if (!isJsonObject(container) || typeof container.name !== 'string' || container.name === '')
        return `${path}.name: required: every container needs a name`;
      refs.push({ container, name: container.name, path });
    }
  }
  return refs;
}

function resourceMap(ref: ContainerRef, which: 'requests' | 'limits'): JsonObject | undefined {
  const resources = childObject(ref.container, 'resources');
  return resources === undefined ? undefined : childObject(resources, which);
}

/** Whether the container names `nvidia.com/gpu` in its requests or limits (any value, 0 included). */
export function namesNvidiaGpu(ref: ContainerRef): boolean {
  return (
    resourceMap(ref, 'requests')?.[NVIDIA_GPU_RESOURCE] !== undefined ||
    resourceMap(ref, 'limits')?.[NVIDIA_GPU_RESOURCE] !== undefined
  );
}

/**
 * What the container's `nvidia.com/gpu` asks for. Requests default to limits (the API server copies
 * them before admission), so a limit alone is enough; a request alone, or one that differs from the
 * limit, is refused as the API server would (extended resources cannot be overcommitted).
 * @returns `invalid` with a message naming the container and the field
 */
export function containerGpu(ref: ContainerRef, maxGpuCount: number): ContainerGpu {
  const limit = resourceMap(ref, 'limits')?.[NVIDIA_GPU_RESOURCE];
  const request = resourceMap(ref, 'requests')?.[NVIDIA_GPU_RESOURCE];
  const field = (which: string): string =>
    `container "${ref.name}": ${ref.path}.resources.${which}[${NVIDIA_GPU_RESOURCE}]`;
  if (limit === undefined) {
    if (request === undefined) return { kind: 'none' };
    return {
      kind: 'invalid',
      message:
        `${field('limits')}: required: set the limit equal to the request (${String(request)}); GPUs cannot ` +
        `be overcommitted`,
    };
  }
  const amount = gpuAmountOf(limit, maxGpuCount);
  if (amount.kind === 'invalid') return { kind: 'invalid', message: `${field('limits')}: ${amount.problem}` };
  if (request !== undefined && quantityMilli(request) !== quantityMilli(limit)) {
    return {
      kind: 'invalid',
      message:
        `${field('requests')}: ${String(request)} must equal the limit ${String(limit)}; GPUs cannot be ` +
        `overcommitted`,
    };
  }
  return amount.kind === 'none'
    ? { kind: 'none' }
    : { kind: 'gpus', gpuCount: amount.gpuCount, gpuMilli: amount.gpuMilli };
}

/** Field paths of the gpushare extended resources the container names in its requests or limits. */
export function gpushareResourceFields(ref: ContainerRef): string[] {
  const fields: string[] = [];
  for (const which of ['requests', 'limits'] as const) {
    const map = resourceMap(ref, which);
    for (const name of GPUSHARE_RESOURCE_NAMES)
      if (map?.[name] !== undefined) fields.push(`${ref.path}.resources.${which}[${name}]`);
  }
  return fields;
}

/**
 * Makes the container's requests and limits name exactly `resources` of the gpushare resources:
 * removes `nvidia.com/gpu` and every other gpushare resource, keeps the rest (cpu, memory, …).
 */
export function setGpushareResources(ref: ContainerRef, resources: Readonly<Record<string, string>>): void {
  const container = ensureChildObject(ref.container, 'resources');
  for (const which of ['requests', 'limits'] as const) {
    const map = ensureChildObject(container, which);
    for (const name of [NVIDIA_GPU_RESOURCE, ...GPUSHARE_RESOURCE_NAMES]) delete map[name];
    Object.assign(map, resources);
  }
}

/**
 * A pod's GPU request as the gpushare annotations state it (schema `v1`, names.ts), read into the
 * core's `GpuRequest`, and written back as annotations. The webhook writes them from a container's
 * `nvidia.com/gpu`; a user may write them directly. Errors name the annotation and the allowed
 * values.
 */
import {
  GPU_MILLI_PER_GPU,
  ISOLATION_LEVELS,
  SHARING_MODES,
  type GpuRequest,
  type IsolationLevel,
  type SharingMode,
} from '../../../core/index.js';
import { POD_ANNOTATIONS, SCHEMA_VERSION } from './names.js';

/** A pod's GPU request and the container that gets the GPUs. */
export interface PodGpuRequest {
  readonly gpu: GpuRequest;
  /** Name of the container whose environment names the GPUs. */
  readonly container: string;
}

/** Outcome of reading a pod's request: none (not a GPU pod), the request, or what is wrong. */
export type PodRequestResult =
  | { readonly kind: 'none' }
  | { readonly kind: 'request'; readonly request: PodGpuRequest }
  | { readonly kind: 'invalid'; readonly message: string };

const STRICT_INTEGER = /^(0|[1-9]\d{0,9})$/;

function integerAnnotation(
  annotations: Readonly<Record<string, string>>,
  key: string,
  min: number,
  max: number,
): number | string {
  const raw = annotations[key];
  if (raw === undefined || !STRICT_INTEGER.test(raw))
    return `annotation ${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw ?? null)}`;
  const n = Number(raw);
  return n < min || n > max ? `annotation ${key} must be an integer from ${min} to ${max}, got ${raw}` : n;
}

/**
 * Reads the request from a pod's annotations. A pod without `gpushare.io/gpu-count` is no GPU pod.
 * @param maxGpuCount the most GPUs one pod may ask for (a node's GPU count is a natural bound)
 */
export function parsePodRequest(
  annotations: Readonly<Record<string, string>> | undefined,
  maxGpuCount = 64,
): PodRequestResult {
  const a = annotations ?? {};
  if (a[POD_ANNOTATIONS.gpuCount] === undefined) return { kind: 'none' };
  const version = a[POD_ANNOTATIONS.schema];
  if (version !== undefined && version !== SCHEMA_VERSION)
    return {
      kind: 'invalid',
      message: `annotation ${POD_ANNOTATIONS.schema} must be ${SCHEMA_VERSION}, got ${JSON.stringify(version)}`,
    };
  const count = integerAnnotation(a, POD_ANNOTATIONS.gpuCount, 1, maxGpuCount);
  if (typeof count === 'string') return { kind: 'invalid', message: count };
  const milli =
    a[POD_ANNOTATIONS.gpuMilli] === undefined
      ? GPU_MILLI_PER_GPU
      : integerAnnotation(a, POD_ANNOTATIONS.gpuMilli, 1, GPU_MILLI_PER_GPU);
  if (typeof milli === 'string') return { kind: 'invalid', message: milli };
  let memory: number | null = null;
  if (a[POD_ANNOTATIONS.gpuMemoryMiB] !== undefined) {
    const m = integerAnnotation(a, POD_ANNOTATIONS.gpuMemoryMiB, 1, 16 * 1024 * 1024);
    if (typeof m === 'string') return { kind: 'invalid', message: m };
    memory = m;
  }
  const mode = (a[POD_ANNOTATIONS.mode] ?? 'auto') as SharingMode;
  if (!SHARING_MODES.includes(mode))
    return {
      kind: 'invalid',
      message:
        `annotation ${POD_ANNOTATIONS.mode} must be one of ${SHARING_MODES.join(', ')}, got ` +
        `${JSON.stringify(a[POD_ANNOTATIONS.mode])}`,
    };
  const isolationRaw = a[POD_ANNOTATIONS.isolation];
  if (isolationRaw !== undefined && !ISOLATION_LEVELS.includes(isolationRaw as IsolationLevel)) {
    return {
      kind: 'invalid',
      message:
        `annotation ${POD_ANNOTATIONS.isolation} must be one of ${ISOLATION_LEVELS.join(', ')}, got ` +
        `${JSON.stringify(isolationRaw)}`,
    };
  }
  if (mode === 'exclusive' && milli !== GPU_MILLI_PER_GPU)
    return {
      kind: 'invalid',
      message:
        `annotation ${POD_ANNOTATIONS.gpuMilli} must be ${GPU_MILLI_PER_GPU} (or absent) for mode ` +
        `exclusive, got ${milli}`,
    };
  const container = a[POD_ANNOTATIONS.container];
  if (container === undefined || container === '')
    return {
      kind: 'invalid',
      message: `annotation ${POD_ANNOTATIONS.container} must name the container that gets the GPUs`,
    };
  const gpu: GpuRequest = {
    gpuCount: count,
    gpuMilli: milli,
    gpuMemoryMiB: memory,
    mode,
    ...(isolationRaw !== undefined ? { isolation: isolationRaw as IsolationLevel } : {}),
  };
  return { kind: 'request', request: { gpu, container } };
}

/** The annotations that state `request` (schema `v1`); absent optional fields are not written. */
export function requestAnnotations(request: PodGpuRequest): Record<string, string> {
  const { gpu } = request;
  return {
    [POD_ANNOTATIONS.schema]: SCHEMA_VERSION,
    [POD_ANNOTATIONS.gpuCount]: String(gpu.gpuCount),
    [POD_ANNOTATIONS.gpuMilli]: String(gpu.gpuMilli),
    ...(gpu.gpuMemoryMiB !== null ? { [POD_ANNOTATIONS.gpuMemoryMiB]: String(gpu.gpuMemoryMiB) } : {}),
    [POD_ANNOTATIONS.mode]: gpu.mode,
    ...(gpu.isolation !== undefined ? { [POD_ANNOTATIONS.isolation]: gpu.isolation } : {}),
    [POD_ANNOTATIONS.container]: request.container,
  };
}

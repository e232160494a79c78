/**
 * The integer extended resources (names.ts) a GPU pod's container requests for its gpushare
 * request: what the kube-scheduler's node-level fit check, ResourceQuota and the kubelet's device
 * manager see. The extender decides per GPU; these only have to be no larger than what it accounts,
 * so that the kube-scheduler never refuses a node the extender would accept.
 */
import { GPU_MILLI_PER_GPU, resolveMode, type GpuRequest } from '../../../core/index.js';
import { RESOURCES } from './names.js';

/**
 * Requests (equal to limits: extended resources cannot be overcommitted) of the container that gets
 * the GPUs: one device-plugin slot; whole GPUs for an exclusive request; count × milli-GPU; count ×
 * MiB when the memory is stated (memory that follows the GPU is known only at placement).
 */
export function containerResourcesFor(gpu: GpuRequest): Record<string, string> {
  const exclusive = resolveMode(gpu) === 'exclusive';
  const milli = exclusive ? GPU_MILLI_PER_GPU : gpu.gpuMilli;
  return {
    [RESOURCES.gpuSlot]: '1',
    ...(exclusive ? { [RESOURCES.gpu]: String(gpu.gpuCount) } : {}),
    [RESOURCES.gpuMilli]: String(gpu.gpuCount * milli),
    ...(gpu.gpuMemoryMiB !== null ? { [RESOURCES.gpuMemoryMiB]: String(gpu.gpuCount * gpu.gpuMemoryMiB) } : {}),
  };
}

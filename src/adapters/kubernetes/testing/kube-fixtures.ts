/**
 * Builders of Kubernetes objects for tests of the Kubernetes adapters (excluded from the build):
 * gpushare nodes with an inventory, and GPU pods with a request (and, if given, an assignment).
 */
import { formatInventory, type InventoryGpu } from '../schema/node-inventory.js';
import { NODE_ANNOTATIONS } from '../schema/names.js';
import { requestAnnotations } from '../schema/pod-request.js';
import { assignmentAnnotations, type PodAssignment } from '../schema/pod-assignment.js';
import type { GpuRequest } from '../../../core/index.js';
import type { KubeNode, KubePod } from '../schema/kube-objects.js';

/** `count` healthy GPUs of one model (UUIDs `GPU-<node>-<index>`). */
export function gpusOf(node: string, count: number, model = 'A100-80GB', gpuMemoryMiB = 81_920): InventoryGpu[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    uuid: `GPU-${node}-${index}`,
    model,
    gpuMemoryMiB,
    healthy: true,
    migEnabled: false,
    migInstances: [],
  }));
}

/** A Node object with the inventory annotation the node agent publishes. */
export function gpuNode(name: string, gpus: readonly InventoryGpu[], unschedulable = false): KubeNode {
  return {
    metadata: { name, annotations: { [NODE_ANNOTATIONS.gpus]: formatInventory(gpus) } },
    spec: { unschedulable },
  };
}

/** A pending GPU pod; `extra` adds annotations (an assignment) and fields. */
export function gpuPod(
  uid: string,
  gpu: Partial<GpuRequest>,
  options: {
    namespace?: string;
    nodeName?: string;
    assignment?: PodAssignment;
    phase?: string;
    resourceVersion?: string;
  } = {},
): KubePod {
  const request: GpuRequest = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', ...gpu };
  return {
    metadata: {
      uid,
      name: `pod-${uid}`,
      namespace: options.namespace ?? 'team-a',
      resourceVersion: options.resourceVersion ?? '1',
      creationTimestamp: '2026-12-01T00:00:00Z',
      annotations: {
        ...requestAnnotations({ gpu: request, container: 'main' }),
        ...(options.assignment ? assignmentAnnotations(options.assignment) : {}),
      },
    },
    spec: { ...(options.nodeName ? { nodeName: options.nodeName } : {}), containers: [{ name: 'main' }] },
    status: { phase: options.phase ?? 'Pending' },
  };
}

/**
 * The two placements of the comparison (docs/kubernetes/dra-placement.md) on the test control
 * plane, fed the same nodes and the same stream of trace pods (src/bench/dra-placement-workload.ts):
 *  - the gpushare extender: nodes as the node agent publishes them (inventory annotation, gpushare
 *    resources, model label), pods as the webhook leaves them (gpushare limits and annotations);
 *  - DRA with the stock kube-scheduler: the same nodes' ResourceSlices (resourceSlicesFor) and the
 *    DeviceClasses, each pod with a ResourceClaimTemplate asking `shared-gpu.gpushare.io` for its
 *    `gpuMilli` (fractional pods) or `gpu.gpushare.io` for N whole devices; a model-constrained pod
 *    selects the `model` attribute with CEL.
 * Every pod requests its trace CPU and host memory. placement-watch.ts creates the pods and reads
 * what each placement gave.
 *
 * The trace names no GPU memory: the extender's pods leave it to follow the GPU (proportional to
 * the share), the DRA claims name none (the shared device's request policy charges 0 MiB), so
 * compute alone decides in both.
 */
import { GPU_MILLI_PER_GPU, type GpuRequest } from '../../../src/core/index.js';
import { gpusOf } from '../../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { deviceClasses } from '../../../src/adapters/kubernetes/dra/device-classes.js';
import {
  DRA_ATTRIBUTES,
  DRA_DEVICE_CLASSES,
  DRA_DRIVER,
  GPU_API_LABEL,
  GPU_APIS,
} from '../../../src/adapters/kubernetes/dra/dra-names.js';
import { resourceSlicesFor } from '../../../src/adapters/kubernetes/dra/resource-slices.js';
import { NODE_LABELS, RESOURCES } from '../../../src/adapters/kubernetes/schema/names.js';
import type { PlacementNode, PlacementPod } from '../../../src/bench/dra-placement-workload.js';
import type { ControlPlane } from './control-plane.js';
import { gpuPod } from './gpu-workloads.js';

/** Device-plugin slots per GPU the node agent advertises (its default). */
const SLOTS_PER_GPU = 16;

/** Host resources of a pod's container. */
function hostRequests(pod: PlacementPod): Record<string, string> {
  return { cpu: `${pod.cpuMilli}m`, memory: `${pod.hostMemoryMiB}Mi` };
}

/** The node's labels: the GPU API serving it and the model (as the node agent labels it). */
function nodeLabels(node: PlacementNode, api: string): Record<string, string> {
  return { [GPU_API_LABEL]: api, [NODE_LABELS.gpuModel]: node.gpuModel };
}

function hostAllocatable(node: PlacementNode): Record<string, string> {
  return { cpu: `${node.cpuMilli}m`, memory: `${node.hostMemoryMiB}Mi` };
}

/** Creates `node` as the node agent publishes it for the extender. */
export async function createExtenderNode(plane: ControlPlane, node: PlacementNode): Promise<void> {
  await plane.createNode({
    name: node.name,
    labels: nodeLabels(node, GPU_APIS.devicePlugin),
    gpuInventory: gpusOf(node.name, node.gpuCount, node.gpuModel, node.gpuMemoryMiB),
    allocatable: {
      ...hostAllocatable(node),
      [RESOURCES.gpu]: String(node.gpuCount),
      [RESOURCES.gpuMilli]: String(node.gpuCount * GPU_MILLI_PER_GPU),
      [RESOURCES.gpuMemoryMiB]: String(node.gpuCount * node.gpuMemoryMiB),
      [RESOURCES.gpuSlot]: String(node.gpuCount * SLOTS_PER_GPU),
    },
  });
}

/** Creates `node` with its ResourceSlices, as the DRA driver publishes them. */
export async function createDraNode(plane: ControlPlane, node: PlacementNode): Promise<void> {
  await plane.createNode({
    name: node.name,
    labels: nodeLabels(node, GPU_APIS.dra),
    allocatable: hostAllocatable(node),
  });
  const gpus = gpusOf(node.name, node.gpuCount, node.gpuModel, node.gpuMemoryMiB).map((g) => ({
    index: g.index,
    uuid: g.uuid,
    model: g.model,
    gpuMemoryMiB: g.gpuMemoryMiB,
    migEnabled: false,
    healthy: true,
  }));
  for (const slice of resourceSlicesFor(node.name, gpus, 1)) {
    const res = await plane.request('POST', '/apis/resource.k8s.io/v1/resourceslices', slice);
    if (res.status !== 201) throw new Error(`create ResourceSlice ${slice.metadata.name}: ${res.status} ${res.text}`);
  }
}

/** Deletes the node and its ResourceSlices (a DRA node) or just the node. */
export async function deleteNode(plane: ControlPlane, node: PlacementNode): Promise<void> {
  const gone = (status: number) => status === 200 || status === 404;
  const res = await plane.request('DELETE', `/api/v1/nodes/${node.name}`);
  if (!gone(res.status)) throw new Error(`delete node ${node.name}: ${res.status} ${res.text}`);
  const slices = await plane.request(
    'DELETE',
    `/apis/resource.k8s.io/v1/resourceslices?fieldSelector=${encodeURIComponent(`spec.nodeName=${node.name}`)}`,
  );
  if (!gone(slices.status)) throw new Error(`delete slices of ${node.name}: ${slices.status} ${slices.text}`);
}

/** Creates the driver's DeviceClasses (those that exist are kept). */
export async function createDeviceClasses(plane: ControlPlane): Promise<void> {
  for (const cls of deviceClasses()) {
    const res = await plane.request('POST', '/apis/resource.k8s.io/v1/deviceclasses', cls);
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`create DeviceClass ${cls.metadata.name}: ${res.status} ${res.text}`);
  }
}

/** The gpushare request of a trace pod: whole GPUs exclusive, a share through MPS accounting. */
function extenderRequest(pod: PlacementPod): GpuRequest {
  return pod.gpuMilli === GPU_MILLI_PER_GPU
    ? { gpuCount: pod.gpuCount, gpuMilli: GPU_MILLI_PER_GPU, gpuMemoryMiB: null, mode: 'exclusive' }
    : { gpuCount: pod.gpuCount, gpuMilli: pod.gpuMilli, gpuMemoryMiB: null, mode: 'mps' };
}

/** The pod for the extender: as the webhook leaves it, plus host requests and the model affinity. */
export function extenderPod(pod: PlacementPod): object {
  const base = gpuPod(pod.name, extenderRequest(pod)) as {
    spec: { containers: { resources: { limits: Record<string, string> } }[] };
  };
  const container = base.spec.containers[0]!;
  container.resources = { ...container.resources, requests: hostRequests(pod) } as typeof container.resources;
  if (pod.allowedGpuModels.length === 0) return base;
  return {
    ...base,
    spec: {
      ...base.spec,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: NODE_LABELS.gpuModel, operator: 'In', values: [...pod.allowedGpuModels] }] },
            ],
          },
        },
      },
    },
  };
}

/** Name of the ResourceClaimTemplate of a pod's GPU request (one per distinct request). */
export function claimTemplateName(pod: PlacementPod): string {
  const models = pod.allowedGpuModels.map((m) => m.toLowerCase().replace(/[^a-z0-9]/g, '')).join('-');
  const kind = pod.gpuMilli === GPU_MILLI_PER_GPU ? `whole-${pod.gpuCount}` : `milli-${pod.gpuMilli}`;
  return models === '' ? kind : `${kind}-${models}`;
}

/** The ResourceClaimTemplate of a pod's GPU request. */
export function claimTemplate(pod: PlacementPod): object {
  const selectors =
    pod.allowedGpuModels.length === 0
      ? []
      : [
          {
            cel: {
              expression:
                `device.attributes["${DRA_DRIVER}"].${DRA_ATTRIBUTES.model} in ` + JSON.stringify(pod.allowedGpuModels),
            },
          },
        ];
  const exactly =
    pod.gpuMilli === GPU_MILLI_PER_GPU
      ? { deviceClassName: DRA_DEVICE_CLASSES.gpu, allocationMode: 'ExactCount', count: pod.gpuCount }
      : {
          deviceClassName: DRA_DEVICE_CLASSES.shared,
          allocationMode: 'ExactCount',
          count: pod.gpuCount,
          capacity: { requests: { gpuMilli: String(pod.gpuMilli) } },
        };
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: claimTemplateName(pod) },
    spec: {
      spec: {
        devices: { requests: [{ name: 'gpu', exactly: { ...exactly, ...(selectors.length ? { selectors } : {}) } }] },
      },
    },
  };
}

/** Creates the ResourceClaimTemplates the pods use, once each. */
export async function createClaimTemplates(
  plane: ControlPlane,
  namespace: string,
  pods: readonly PlacementPod[],
): Promise<number> {
  const done = new Set<string>();
  for (const pod of pods) {
    const name = claimTemplateName(pod);
    if (done.has(name)) continue;
    const res = await plane.request(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${namespace}/resourceclaimtemplates`,
      claimTemplate(pod),
    );
    if (res.status !== 201) throw new Error(`create ResourceClaimTemplate ${name}: ${res.status} ${res.text}`);
    done.add(name);
  }
  return done.size;
}

/** The pod for DRA: its claim from the template, and the same host requests. */
export function draPod(pod: PlacementPod): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.name },
    spec: {
      terminationGracePeriodSeconds: 0,
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: claimTemplateName(pod) }],
      containers: [
        {
          name: 'main',
          image: 'registry.invalid/none:1',
          resources: { requests: hostRequests(pod), claims: [{ name: 'gpu' }] },
        },
      ],
    },
  };
}

/**
 * GPU workloads for tests on the test control plane, written the way the gpushare webhook leaves
 * them (gpushare resources as limits, the request as annotations), and readers of what happened to
 * their pods: where they are bound, their assignments, their FailedScheduling events.
 */
import type { GpuRequest } from '../../../src/core/index.js';
import { containerResourcesFor } from '../../../src/adapters/kubernetes/schema/pod-resources.js';
import { requestAnnotations } from '../../../src/adapters/kubernetes/schema/pod-request.js';
import { parseAssignment, type PodAssignment } from '../../../src/adapters/kubernetes/schema/pod-assignment.js';
import type { ControlPlane } from './control-plane.js';

/** A pod as the tests read it. */
export interface TestPod {
  readonly metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  readonly spec: { nodeName?: string };
  readonly status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** A GPU request with defaults (one GPU, 500 milli, memory following the GPU, auto). */
export function gpuRequest(request: Partial<GpuRequest>): GpuRequest {
  return { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', ...request };
}

/** The pod template of a GPU workload labelled `app=<app>`. */
export function gpuPodTemplate(app: string, request: GpuRequest): object {
  return {
    metadata: { labels: { app }, annotations: requestAnnotations({ gpu: request, container: 'main' }) },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [
        { name: 'main', image: 'registry.invalid/none:1', resources: { limits: containerResourcesFor(request) } },
      ],
    },
  };
}

/** A Deployment of `replicas` GPU pods. */
export function gpuDeployment(name: string, replicas: number, request: GpuRequest): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: gpuPodTemplate(name, request) },
  };
}

/** A bare GPU pod. */
export function gpuPod(name: string, request: GpuRequest): object {
  const template = gpuPodTemplate(name, request) as { metadata: object; spec: object };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...template.metadata }, spec: template.spec };
}

/** Creates `object` in `namespace` (its kind's collection). @throws Error when the API server refuses it */
export async function create(plane: ControlPlane, namespace: string, object: { kind?: string }): Promise<void> {
  const path =
    object.kind === 'Deployment'
      ? `/apis/apps/v1/namespaces/${namespace}/deployments`
      : `/api/v1/namespaces/${namespace}/pods`;
  const res = await plane.request('POST', path, object);
  if (res.status !== 201) throw new Error(`create ${object.kind}: ${res.status} ${res.text}`);
}

/** Pods of namespace `namespace` (with label selector `selector`, if given), not being deleted. */
export async function listPods(plane: ControlPlane, namespace: string, selector?: string): Promise<TestPod[]> {
  const res = await plane.request<{ items: TestPod[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`,
  );
  if (res.status !== 200) throw new Error(`list pods: ${res.status} ${res.text}`);
  return res.body!.items.filter((p) => p.metadata.deletionTimestamp === undefined);
}

/** The assignment of a pod bound where it says; null for an unbound pod or one without a valid assignment. */
export function boundAssignment(pod: TestPod): PodAssignment | null {
  const assignment = parseAssignment(pod.metadata.annotations);
  if (
    assignment === null ||
    'error' in assignment ||
    pod.spec.nodeName === undefined ||
    assignment.node !== pod.spec.nodeName
  )
    return null;
  return assignment;
}

/** Messages of the FailedScheduling events of pod `name`. */
export async function failedSchedulingMessages(
  plane: ControlPlane,
  namespace: string,
  name: string,
): Promise<string[]> {
  const selector = encodeURIComponent(`involvedObject.name=${name},reason=FailedScheduling`);
  const res = await plane.request<{ items: { message?: string; note?: string }[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/events?fieldSelector=${selector}`,
  );
  return (res.body?.items ?? []).map((e) => e.message ?? e.note ?? '');
}

/** Per GPU (node/uuid): milli-GPU and MiB held by bound pods, from their assignments. */
export function gpuTotals(pods: readonly TestPod[]): Map<string, { milli: number; memoryMiB: number; pods: number }> {
  const totals = new Map<string, { milli: number; memoryMiB: number; pods: number }>();
  for (const pod of pods) {
    const assignment = boundAssignment(pod);
    if (assignment === null || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    for (const g of assignment.gpus) {
      const key = `${assignment.node}/${g.uuid}`;
      const t = totals.get(key) ?? { milli: 0, memoryMiB: 0, pods: 0 };
      totals.set(key, {
        milli: t.milli + g.accountedGpuMilli,
        memoryMiB: t.memoryMiB + g.gpuMemoryMiB,
        pods: t.pods + 1,
      });
    }
  }
  return totals;
}

/** Deletes every Deployment and pod of `namespace` and waits until no pod is left. */
export async function clearNamespace(
  plane: ControlPlane,
  namespace: string,
  poll: (what: string, check: () => Promise<true | undefined>, timeoutMs?: number) => Promise<unknown>,
): Promise<void> {
  await plane.request('DELETE', `/apis/apps/v1/namespaces/${namespace}/deployments`);
  await plane.request('DELETE', `/api/v1/namespaces/${namespace}/pods?gracePeriodSeconds=0`);
  await poll(
    `pods of ${namespace} gone`,
    async () => {
      const res = await plane.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/pods`);
      return res.body?.items.length === 0 ? true : undefined;
    },
    60_000,
  );
}

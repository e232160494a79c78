/**
 * The stand-in kubelet's record of admitted pods and the devices each container holds (the kubelet's
 * device manager checkpoint), and the `v1.PodResourcesLister` service that reports it.
 */
import * as grpc from '@grpc/grpc-js';
import {
  DEVICE_HEALTH,
  type AllocatableResourcesResponse,
  type Device,
  type PodResources,
} from '../../../src/adapters/kubernetes/device-plugin/wire-types.js';
import { serviceError } from './stand-in-grpc.js';

/** A container of a pod to admit: how many devices of the resource it requests. */
export interface StandInContainer {
  readonly name: string;
  readonly slotCount: number;
}

/** A pod to admit. */
export interface StandInPod {
  readonly namespace: string;
  readonly name: string;
  readonly containers: readonly StandInContainer[];
}

/** Admitted pods and the devices their containers hold. */
export class PodRecords {
  private readonly pods = new Map<
    string,
    { pod: StandInPod; devices: Map<string, { resource: string; ids: string[] }> }
  >();

  /** Records an admitted pod (no devices yet). @throws Error when it is already admitted */
  add(pod: StandInPod): void {
    const key = `${pod.namespace}/${pod.name}`;
    if (this.pods.has(key)) throw new Error(`pod ${key} is already admitted`);
    this.pods.set(key, { pod, devices: new Map() });
  }

  /** Records that `container` of `pod` holds `ids` of `resource`. */
  hold(pod: StandInPod, container: string, resource: string, ids: readonly string[]): void {
    this.pods.get(`${pod.namespace}/${pod.name}`)?.devices.set(container, { resource, ids: [...ids] });
  }

  /** Forgets a pod; its devices are free again. */
  remove(namespace: string, name: string): void {
    this.pods.delete(`${namespace}/${name}`);
  }

  /** Ids of `resource` held by any container. */
  heldIds(resource: string): Set<string> {
    const held = new Set<string>();
    for (const { devices } of this.pods.values())
      for (const d of devices.values()) if (d.resource === resource) for (const id of d.ids) held.add(id);
    return held;
  }

  /** What PodResources List reports: every admitted pod, each container with the devices it holds. */
  list(): PodResources[] {
    return [...this.pods.values()].map(({ pod, devices }) => ({
      name: pod.name,
      namespace: pod.namespace,
      containers: pod.containers.map((c) => {
        const held = devices.get(c.name);
        return {
          name: c.name,
          devices: held ? [{ resource_name: held.resource, device_ids: [...held.ids] }] : [],
          cpu_ids: [],
          memory: [],
          dynamic_resources: [],
        };
      }),
    }));
  }
}

/** The kubelet's limit on its PodResources socket (pkg/kubelet/apis/podresources/constants.go). */
export const KUBELET_POD_RESOURCES_LIMIT = { qps: 100, burst: 10 } as const;

/** Counts of PodResources calls. */
export interface PodResourcesCalls {
  served: number;
  /** Refused with RESOURCE_EXHAUSTED "rejected by rate limit". */
  rejected: number;
}

/** A token bucket of `burst` tokens refilled at `qps` per second. */
function tokenBucket(limit: { qps: number; burst: number }): () => boolean {
  let tokens: number = limit.burst;
  let lastMs = performance.now();
  return () => {
    const now = performance.now();
    tokens = Math.min(limit.burst, tokens + ((now - lastMs) / 1000) * limit.qps);
    lastMs = now;
    if (tokens < 1) return false;
    tokens--;
    return true;
  };
}

/**
 * Handlers of `v1.PodResourcesLister` over `records` and the plugins' device lists, rate-limited as
 * the kubelet's (`limit` null: unlimited); `calls` counts what was served and refused.
 */
export function podResourcesService(
  records: PodRecords,
  devicesByResource: () => ReadonlyMap<string, Device[]>,
  limit: { qps: number; burst: number } | null,
  calls: PodResourcesCalls,
): grpc.UntypedServiceImplementation {
  const allow = limit === null ? () => true : tokenBucket(limit);
  const limited =
    <Req, Res>(handler: (c: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>) => void) =>
    (c: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>): void => {
      if (!allow()) {
        calls.rejected++;
        cb(serviceError(grpc.status.RESOURCE_EXHAUSTED, 'rejected by rate limit'));
        return;
      }
      calls.served++;
      handler(c, cb);
    };
  return {
    List: limited((_c, cb: grpc.sendUnaryData<object>) => cb(null, { pod_resources: records.list() })),
    GetAllocatableResources: limited((_c, cb: grpc.sendUnaryData<AllocatableResourcesResponse>) =>
      cb(null, {
        devices: [...devicesByResource().entries()].map(([resource, devices]) => ({
          resource_name: resource,
          device_ids: devices.filter((d) => d.health === DEVICE_HEALTH.healthy).map((d) => d.ID),
        })),
        cpu_ids: [],
        memory: [],
      }),
    ),
    Get: limited(
      (
        c: grpc.ServerUnaryCall<{ pod_name: string; pod_namespace: string }, object>,
        cb: grpc.sendUnaryData<object>,
      ) => {
        const found = records
          .list()
          .find((p) => p.name === c.request.pod_name && p.namespace === c.request.pod_namespace);
        if (found) cb(null, { pod_resources: found });
        else cb(serviceError(grpc.status.NOT_FOUND, `pod ${c.request.pod_namespace}/${c.request.pod_name} not found`));
      },
    ),
  };
}

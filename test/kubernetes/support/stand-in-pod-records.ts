/**
 * The stand-in kubelet's record of admitted pods and the devices each container holds (the kubelet's
 * device manager checkpoint), and the `v1.PodResourcesLister` service that reports it.
 */
import * as grpc from '@grpc/grpc-js';
import { DEVICE_HEALTH, type AllocatableResourcesResponse, type Device, type PodResources } from '../../../src/adapters/kubernetes/device-plugin/wire-types.js';
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
  private readonly pods = new Map<string, { pod: StandInPod; devices: Map<string, { resource: string; ids: string[] }> }>();

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
    for (const { devices } of this.pods.values()) for (const d of devices.values()) if (d.resource === resource) for (const id of d.ids) held.add(id);
    return held;
  }

  /** What PodResources List reports: every admitted pod, each container with the devices it holds. */
  list(): PodResources[] {
    return [...this.pods.values()].map(({ pod, devices }) => ({
      name: pod.name,
      namespace: pod.namespace,
      containers: pod.containers.map((c) => {
        const held = devices.get(c.name);
        return { name: c.name, devices: held ? [{ resource_name: held.resource, device_ids: [...held.ids] }] : [], cpu_ids: [], memory: [], dynamic_resources: [] };
      }),
    }));
  }
}

/** Handlers of `v1.PodResourcesLister` over `records` and the plugins' device lists. */
export function podResourcesService(records: PodRecords, devicesByResource: () => ReadonlyMap<string, Device[]>): grpc.UntypedServiceImplementation {
  return {
    List: (_c: unknown, cb: grpc.sendUnaryData<object>) => cb(null, { pod_resources: records.list() }),
    GetAllocatableResources: (_c: unknown, cb: grpc.sendUnaryData<AllocatableResourcesResponse>) => cb(null, {
      devices: [...devicesByResource().entries()].map(([resource, devices]) => ({ resource_name: resource, device_ids: devices.filter((d) => d.health === DEVICE_HEALTH.healthy).map((d) => d.ID) })),
      cpu_ids: [], memory: [],
    }),
    Get: (c: grpc.ServerUnaryCall<{ pod_name: string; pod_namespace: string }, object>, cb: grpc.sendUnaryData<object>) => {
      const found = records.list().find((p) => p.name === c.request.pod_name && p.namespace === c.request.pod_namespace);
      if (found) cb(null, { pod_resources: found });
      else cb(serviceError(grpc.status.NOT_FOUND, `pod ${c.request.pod_namespace}/${c.request.pod_name} not found`));
    },
  };
}

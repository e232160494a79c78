/**
 * The device plugin's view of the kubelet's PodResources API (v1, `v1.PodResourcesLister/List` on
 * the kubelet's pod-resources socket): which pod and container hold given device ids. The kubelet
 * records a container's devices right after its Allocate succeeds and before it calls
 * PreStartContainer, so the holder of a PreStartContainer's ids is listed by then.
 */
import * as grpc from '@grpc/grpc-js';
import { loadPodResourcesApi, unixTarget } from './protos.js';
import type { ListPodResourcesResponse, PodResources } from './wire-types.js';

/** Lists the pods and their devices; the port PreStartContainer uses. */
export interface PodResourcesLister {
  list(): Promise<PodResources[]>;
}

/**
 * A lister over the kubelet's socket at `socketPath`. Each call dials anew (the kubelet recreates
 * the socket when it restarts) and gives up after `timeoutMs`.
 * Rejects with the gRPC error (e.g. code 14 UNAVAILABLE when nothing listens).
 */
export function createPodResourcesLister(socketPath: string, timeoutMs = 10_000): PodResourcesLister {
  const api = loadPodResourcesApi();
  return {
    list() {
      const client = new api.PodResourcesLister(unixTarget(socketPath), grpc.credentials.createInsecure());
      return new Promise<PodResources[]>((resolve, reject) => {
        (client as unknown as { List(req: object, options: grpc.CallOptions, cb: grpc.requestCallback<ListPodResourcesResponse>): void })
          .List({}, { deadline: Date.now() + timeoutMs }, (error, response) => {
            client.close();
            if (error) reject(error);
            else resolve(response?.pod_resources ?? []);
          });
      });
    },
  };
}

/** A container that holds device ids of a resource. */
export interface SlotHolder {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

/**
 * The containers whose devices of `resourceName` include every id in `deviceIds`, in list order
 * (one when the kubelet's records are consistent; none when no container holds them yet).
 */
export function findDeviceHolders(pods: readonly PodResources[], resourceName: string, deviceIds: readonly string[]): SlotHolder[] {
  const holders: SlotHolder[] = [];
  for (const pod of pods) {
    for (const container of pod.containers) {
      const held = new Set(container.devices.filter((d) => d.resource_name === resourceName).flatMap((d) => d.device_ids));
      if (held.size > 0 && deviceIds.every((id) => held.has(id))) holders.push({ namespace: pod.namespace, pod: pod.name, container: container.name });
    }
  }
  return holders;
}

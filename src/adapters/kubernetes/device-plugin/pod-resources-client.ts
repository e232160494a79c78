/**
 * The device plugin's view of the kubelet's PodResources API (v1, `v1.PodResourcesLister/List` on
 * the kubelet's pod-resources socket): which pod and container hold given device ids. The kubelet
 * records a container's devices right after its Allocate succeeds and calls PreStartContainer with
 * the devices it recorded (pkg/kubelet/cm/devicemanager/manager.go: allocateContainerResources,
 * callPreStartContainerIfNeeded), so the holder of a PreStartContainer's ids is listed by then.
 *
 * The kubelet rate-limits this socket (100 calls/s, burst 10; beyond it RESOURCE_EXHAUSTED "rejected
 * by rate limit": pkg/kubelet/apis/podresources/constants.go DefaultQPS, DefaultBurstTokens), and
 * containers start in parallel, so calls are coalesced and a rejected call is retried.
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
        (
          client as unknown as {
            List(req: object, options: grpc.CallOptions, cb: grpc.requestCallback<ListPodResourcesResponse>): void;
          }
        ).List({}, { deadline: Date.now() + timeoutMs }, (error, response) => {
          client.close();
          if (error) reject(error);
          else resolve(response?.pod_resources ?? []);
        });
      });
    },
  };
}

const RETRY_DELAYS_MS = [50, 100, 200, 400, 800] as const;

/**
 * A lister that runs at most one List at a time: a call made while one is in flight waits for the
 * next one, which starts when the current ends and serves every call that arrived meanwhile (each
 * caller gets a List that started after its call). A List refused with RESOURCE_EXHAUSTED is retried
 * after 50, 100, 200, 400 and 800 ms; other errors reach every waiting caller.
 */
export function coalescingLister(
  inner: PodResourcesLister,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): PodResourcesLister {
  let inFlight: Promise<PodResources[]> | null = null;
  let next: Promise<PodResources[]> | null = null;
  async function listWithRetry(): Promise<PodResources[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await inner.list();
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if ((error as { code?: unknown }).code !== grpc.status.RESOURCE_EXHAUSTED || delay === undefined) throw error;
        await sleep(delay);
      }
    }
  }
  function start(): Promise<PodResources[]> {
    const current = listWithRetry();
    inFlight = current;
    const clear = (): void => {
      if (inFlight === current) inFlight = null;
    };
    current.then(clear, clear);
    return current;
  }
  return {
    list() {
      if (inFlight === null) return start();
      if (next === null) {
        next = inFlight
          .then(
            () => undefined,
            () => undefined,
          )
          .then(() => {
            next = null;
            return start();
          });
      }
      return next;
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
export function findDeviceHolders(
  pods: readonly PodResources[],
  resourceName: string,
  deviceIds: readonly string[],
): SlotHolder[] {
  const holders: SlotHolder[] = [];
  for (const pod of pods) {
    for (const container of pod.containers) {
      const held = new Set(
        container.devices.filter((d) => d.resource_name === resourceName).flatMap((d) => d.device_ids),
      );
      if (held.size > 0 && deviceIds.every((id) => held.has(id)))
        holders.push({ namespace: pod.namespace, pod: pod.name, container: container.name });
    }
  }
  return holders;
}

/**
 * The one duty of a kubelet that tests on a control plane without kubelets need: finishing pod
 * deletion. A kubelet
 * stops a deleted pod's containers and then removes the pod (DELETE with grace period 0); with no
 * kubelet, a pod bound to a node stays Terminating (deletionTimestamp set) for ever. The reaper
 * lists pods every 250 ms and removes those: bound, with a deletionTimestamp, and whose
 * finalizers are gone (a finalizer still holds a pod after its kubelet is done, so it does here).
 */
import { kubeRequest, type KubeCredentials } from './kube-client.js';

/** A running reaper. */
export interface PodReaper {
  /** Stops after the pass in progress. */
  stop(): Promise<void>;
}

interface PodList {
  items?: {
    metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string; finalizers?: string[] };
    spec: { nodeName?: string };
  }[];
}

const INTERVAL_MS = 250;

/** Starts the reaper with admin `credentials`. Errors of a pass (API server stopping) are ignored. */
export function startPodReaper(credentials: KubeCredentials): PodReaper {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const run = async () => {
    // resourceVersion=0: served from the watch cache, not from etcd.
    const list = await kubeRequest<PodList>(
      credentials,
      'GET',
      '/api/v1/pods?resourceVersion=0',
      undefined,
      undefined,
      5_000,
    );
    for (const pod of list.body.items ?? []) {
      const { name, namespace, uid, deletionTimestamp, finalizers } = pod.metadata;
      if (deletionTimestamp === undefined || pod.spec.nodeName === undefined || (finalizers?.length ?? 0) > 0) continue;
      await kubeRequest(
        credentials,
        'DELETE',
        `/api/v1/namespaces/${namespace}/pods/${name}`,
        {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          gracePeriodSeconds: 0,
          preconditions: { uid },
        },
        undefined,
        5_000,
      );
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass = run()
        .catch(() => undefined)
        .finally(schedule);
    }, INTERVAL_MS);
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}

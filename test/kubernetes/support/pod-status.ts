/**
 * Waits on pods that really run (real-node.ts): until a pod is Running with every container
 * running, and until its log (read through the API server from the kubelet) says what a test waits
 * for. Each wait polls and is bounded; a timeout names the pod and what was last seen.
 */
import { WAIT_MS } from '../../../src/testing/deadlines.js';
import { pollFor } from '../../e2e/support/serve-harness.js';
import type { ControlPlane } from './control-plane.js';

/** A running pod as the tests read it. */
export interface RunningPod {
  readonly metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  readonly spec: { nodeName?: string; containers: { name: string }[] };
  readonly status: {
    phase: string;
    podIP?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses: {
      name: string;
      containerID?: string;
      restartCount: number;
      ready: boolean;
      state: { running?: { startedAt: string }; waiting?: { reason?: string; message?: string } };
    }[];
  };
}

/**
 * pollFor (serve-harness.ts) of a read that also says what it saw: a failed request (the API
 * server busy for a moment) is one more poll, and a timeout's message ends with the last thing seen.
 */
async function pollUntil<T>(
  what: string,
  read: () => Promise<{ done: T | null; seen: string }>,
  timeoutMs: number,
): Promise<T> {
  let seen = '';
  try {
    return await pollFor(
      what,
      async () => {
        const result = await read().catch((error: unknown) => ({ done: null, seen: String(error) }));
        seen = result.seen;
        return result.done ?? undefined;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last seen: ${seen}`);
  }
}

/**
 * Resolves with the pod once its phase is Running and every container is running and ready
 * (default bound WAIT_MS).
 * @throws Error with the pod's last status when the time runs out
 */
export function podRunning(
  plane: ControlPlane,
  namespace: string,
  name: string,
  timeoutMs = WAIT_MS,
): Promise<RunningPod> {
  return pollUntil(
    `pod ${namespace}/${name} Running and ready`,
    async () => {
      const res = await plane.request<RunningPod>('GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
      const pod = res.body;
      const statuses = pod.status?.containerStatuses ?? [];
      const running =
        res.status === 200 &&
        pod.status.phase === 'Running' &&
        statuses.length === pod.spec.containers.length &&
        statuses.every((c) => c.ready && c.state.running !== undefined);
      return { done: running ? pod : null, seen: `${res.status} ${JSON.stringify(pod.status ?? res.text)}` };
    },
    timeoutMs,
  );
}

/**
 * The pod's log (its one container's), once `complete(log)` is true (default bound WAIT_MS).
 * @throws Error with the last log read when the time runs out
 */
export function podLog(
  plane: ControlPlane,
  namespace: string,
  name: string,
  complete: (log: string) => boolean,
  timeoutMs = WAIT_MS,
): Promise<string> {
  return pollUntil(
    `the log of pod ${namespace}/${name}`,
    async () => {
      const res = await plane.request('GET', `/api/v1/namespaces/${namespace}/pods/${name}/log`);
      return { done: res.status === 200 && complete(res.text) ? res.text : null, seen: `${res.status} ${res.text}` };
    },
    timeoutMs,
  );
}

/**
 * Resolves once the Node's Ready condition has a heartbeat after `sinceMs` (a restarted kubelet
 * has synced), within `timeoutMs` (default WAIT_MS).
 */
export async function nodeHeartbeatAfter(
  plane: ControlPlane,
  node: string,
  sinceMs: number,
  timeoutMs = WAIT_MS,
): Promise<void> {
  await pollUntil(
    `a heartbeat of node ${node}`,
    async () => {
      const res = await plane.request<{ status?: { conditions?: { type: string; lastHeartbeatTime: string }[] } }>(
        'GET',
        `/api/v1/nodes/${node}`,
      );
      const ready = res.body.status?.conditions?.find((c) => c.type === 'Ready');
      // Heartbeats have a one-second resolution.
      const after =
        ready !== undefined && Date.parse(ready.lastHeartbeatTime) >= Math.floor(sinceMs / 1000) * 1000 + 1000;
      return { done: after ? true : null, seen: JSON.stringify(ready) };
    },
    timeoutMs,
  );
}

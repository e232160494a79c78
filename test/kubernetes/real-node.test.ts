/**
 * Pods on a real kubelet and containerd (support/real-node.ts): a busybox pod runs to Running in a
 * real container, on the CNI bridge, and its log is read through the API server from the kubelet;
 * a pod on the host network gets the node's IP; a kubelet restart keeps the running container.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { kubernetesAvailable } from './support/binaries.js';
import { realNodeAvailable } from './support/node-binaries.js';
import { buildTestImage, TEST_IMAGES } from './support/node-images.js';
import { useControlPlane } from './support/use-control-plane.js';
import {
  REAL_NODE_API_SERVER_ARGS,
  REAL_NODE_CONTROLLERS,
  startRealNode,
  stopRealNodes,
  type RealNode,
} from './support/real-node.js';
import { nodeHeartbeatAfter, podLog, podRunning, type RunningPod } from './support/pod-status.js';

const NODE = 'real-node-1';
const NAMESPACE = 'default';

/** A busybox pod that prints `text` and its own address, then waits to be stopped. */
function busyboxPod(name: string, text: string, hostNetwork = false): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      hostNetwork,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: TEST_IMAGES.busybox,
          command: ['sh', '-c', `echo ${text}; trap 'exit 0' TERM; sleep 3600 & wait`],
        },
      ],
    },
  };
}

describe.skipIf(!kubernetesAvailable() || !realNodeAvailable())('pods on a real kubelet and containerd', () => {
  const plane = useControlPlane({
    apiServerArgs: REAL_NODE_API_SERVER_ARGS,
    controllerManager: { controllers: REAL_NODE_CONTROLLERS },
  });
  let dir = '';
  let node: RealNode | undefined;
  let first: RunningPod;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-real-node-'));
    const images = [await buildTestImage('pause', dir), await buildTestImage('busybox', dir)];
    node = await startRealNode(plane(), { name: NODE, images });
    process.stdout.write(`real node ${NODE} at ${node.ip} Ready in ${node.readyMs} ms\n`);
  }, 4 * WAIT_MS);
  afterAll(async () => {
    await stopRealNodes();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a busybox pod to Running on the bridge; its log comes from the kubelet', async () => {
    const created = await plane().request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/pods`,
      busyboxPod('hello', 'hi-from-busybox'),
    );
    expect(created.status).toBe(201);
    first = await podRunning(plane(), NAMESPACE, 'hello');
    expect(first.spec.nodeName).toBe(NODE);
    expect(first.status.podIP).toMatch(/^10\.2[0-4]\d\.\d+\.\d+$/);
    expect(first.status.podIP).not.toBe(node!.ip);
    expect(first.status.containerStatuses[0]!.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(await podLog(plane(), NAMESPACE, 'hello', (log) => log !== '')).toBe('hi-from-busybox\n');
  });

  it('gives a pod on the host network the node IP', async () => {
    await plane().request('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, busyboxPod('on-host', 'host', true));
    const pod = await podRunning(plane(), NAMESPACE, 'on-host');
    expect(pod.status.podIP).toBe(node!.ip);
  });

  it('keeps the running container across a kubelet restart', async () => {
    const restarted = Date.now();
    await node!.restartKubelet();
    await nodeHeartbeatAfter(plane(), NODE, restarted);
    const after = await podRunning(plane(), NAMESPACE, 'hello');
    expect(after.status.containerStatuses[0]!.containerID).toBe(first.status.containerStatuses[0]!.containerID);
    expect(after.status.containerStatuses[0]!.restartCount).toBe(0);
  });
});

/**
 * gpushare installed from its Helm chart onto a real node (kubelet and containerd,
 * support/real-node.ts) with the image built from this checkout: the node agent (DaemonSet), the
 * extender and the webhook run as pods on the node's network with two simulated A100s, the API
 * server calls the webhook through its Service, and kube-scheduler calls the extender. The seed's
 * half-GPU Deployment really runs: two replicas share one GPU and print its UUID from their CDI
 * device, a whole-GPU pod prints the other, a third replica waits with the extender's reason, and a
 * restart of the node agent's pod changes no container and no allocatable.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { boundAssignment, failedSchedulingMessages, listPods } from './support/gpu-workloads.js';
import { gpuEnvPod, GPU_ENV_END, parseGpuEnv, PRINT_GPU_ENV } from './support/gpu-env-pod.js';
import { CHART_DIR, helmAvailable, runHelm } from './support/helm.js';
import { realNodeAvailable } from './support/node-binaries.js';
import { buildTestImage, TEST_IMAGES } from './support/node-images.js';
import { nodeHeartbeatAfter, podLog, podRunning, type RunningPod } from './support/pod-status.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import {
  REAL_NODE_API_SERVER_ARGS,
  REAL_NODE_CONTROLLERS,
  startRealNode,
  stopRealNodes,
  type RealNode,
} from './support/real-node.js';
import { freePort } from '../support/local-process.js';
import { useControlPlane } from './support/use-control-plane.js';

const NODE = 'gpu-node-1';
const SYSTEM = 'gpushare-system';
const NS = 'default';
const FIXTURE = join(import.meta.dirname, 'fixtures', 'half-gpu-deployment.yaml');
const SELECTOR = 'gpushare.io/workload=gpu-shared-job';

interface Secret {
  data: Record<string, string>;
}
interface NodeObject {
  status: { allocatable: Record<string, string> };
}

describe.skipIf(!kubernetesAvailable() || !helmAvailable() || !realNodeAvailable())(
  'gpushare from its chart on a real kubelet and containerd',
  () => {
    const plane = useControlPlane({
      apiServerArgs: REAL_NODE_API_SERVER_ARGS,
      controllerManager: { controllers: REAL_NODE_CONTROLLERS },
    });
    let dir = '';
    let node: RealNode | undefined;
    const poll = <T>(what: string, check: () => Promise<T | undefined>) => pollFor(what, check, WAIT_MS);
    const gpuEnv = async (name: string) =>
      parseGpuEnv(await podLog(plane(), NS, name, (l) => l.includes(`${GPU_ENV_END}\n`)));
    const systemPods = async () => (await listPods(plane(), SYSTEM)) as unknown as RunningPod[];
    const halfPods = new Map<string, RunningPod>();
    let wholePod: RunningPod;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gpushare-chart-node-'));
      const images = [];
      for (const image of ['pause', 'busybox', 'gpushare'] as const) images.push(await buildTestImage(image, dir));
      node = await startRealNode(plane(), { name: NODE, images, labels: { 'gpushare.io/managed': 'true' } });
      process.stdout.write(`real node ${NODE} at ${node.ip} Ready in ${node.readyMs} ms\n`);
      // Three image builds and imports, then the node: more than one wait.
    }, 4 * WAIT_MS);
    afterAll(async () => {
      await stopRealNodes();
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });

    it('installs every component from the chart, Running and Ready on the node', async () => {
      const p = plane();
      const apiPort = new URL(p.serverUrl).port;
      const [webhookPort, extenderPort] = [await freePort(), await freePort()];
      const installed = await runHelm(
        [
          'install',
          'gpushare',
          CHART_DIR,
          '--namespace',
          SYSTEM,
          '--create-namespace',
          ...['image.repository=gpushare.local/gpushare', 'image.tag=test', 'image.pullPolicy=Never']
            .concat([`kubernetesApi.host=127.0.0.1`, `kubernetesApi.port=${apiPort}`])
            .concat(['webhook.replicas=1', 'webhook.hostNetwork=true', `webhook.port=${webhookPort}`])
            .concat(['extender.hostNetwork=true', `extender.port=${extenderPort}`])
            .concat(['nodeAgent.hostNetwork=true', 'nodeAgent.simulateGpus=2xA100-80GB'])
            .flatMap((v) => ['--set', v]),
        ],
        { stateDir: dir, kubeconfig: p.kubeconfigPath },
      );
      expect(installed.stderr).toBe('');
      expect(installed.code).toBe(0);
      const running = await poll('every gpushare pod Running and Ready', async () => {
        const pods = await systemPods();
        const ready = pods.filter(
          (x) => x.status?.phase === 'Running' && x.status.containerStatuses?.every((c) => c.ready),
        );
        return pods.length === 3 && ready.length === 3 ? pods : undefined;
      });
      expect(running.map((x) => x.metadata.labels?.['app.kubernetes.io/name']).sort()).toEqual([
        'gpushare-extender',
        'gpushare-node-agent',
        'gpushare-webhook',
      ]);
      expect(running.every((x) => x.spec.nodeName === NODE)).toBe(true);
      // The node agent registered its device plugin with the kubelet: 2 GPUs of 16 slots.
      const allocatable = await poll('gpushare resources on the node', async () => {
        const res = await p.request<NodeObject>('GET', `/api/v1/nodes/${NODE}`);
        const a = res.body.status.allocatable;
        return a['gpushare.io/gpu-slot'] !== undefined && a['gpushare.io/gpu-slot'] !== '0' ? a : undefined;
      });
      expect(allocatable['gpushare.io/gpu-slot']).toBe('32');

      // kube-scheduler calls the extender at the node's address, checking the chart's certificate.
      const secret = async (name: string) =>
        (await p.request<Secret>('GET', `/api/v1/namespaces/${SYSTEM}/secrets/${name}`)).body.data;
      const files: Record<string, string> = {};
      for (const [file, secretName, key] of [
        ['ca.crt', 'gpushare-extender-tls', 'ca.crt'],
        ['client.crt', 'gpushare-scheduler-client-tls', 'tls.crt'],
        ['client.key', 'gpushare-scheduler-client-tls', 'tls.key'],
      ] as const) {
        files[file] = join(dir, file);
        writeFileSync(files[file], Buffer.from((await secret(secretName))[key]!, 'base64'), { mode: 0o600 });
      }
      const stanza = (
        parse(readFileSync(join(CHART_DIR, '..', '..', 'kubernetes', 'scheduler-config.yaml'), 'utf8')) as {
          extenders: Record<string, unknown>[];
        }
      ).extenders[0]!;
      const configPath = join(dir, 'scheduler.yaml');
      writeFileSync(
        configPath,
        stringify({
          apiVersion: 'kubescheduler.config.k8s.io/v1',
          kind: 'KubeSchedulerConfiguration',
          profiles: [{ schedulerName: 'default-scheduler' }],
          extenders: [
            {
              ...stanza,
              urlPrefix: `https://${node!.ip}:${extenderPort}/scheduler`,
              tlsConfig: {
                caFile: files['ca.crt'],
                certFile: files['client.crt'],
                keyFile: files['client.key'],
                serverName: `gpushare-extender.${SYSTEM}.svc`,
              },
            },
          ],
        }),
      );
      await p.restartScheduler({ configPath, identity: 'component' });
    });

    it("runs the seed's Deployment: two half-GPU replicas share one GPU and print its UUID", async () => {
      const p = plane();
      const deployment = parse(readFileSync(FIXTURE, 'utf8')) as {
        spec: { replicas?: number; template: { spec: { containers: Record<string, unknown>[] } } };
      };
      const container = deployment.spec.template.spec.containers[0]!;
      container.image = TEST_IMAGES.busybox;
      container.command = PRINT_GPU_ENV;
      deployment.spec.replicas = 2;
      // The API server calls the chart's webhook through its Service: the Deployment is accepted as written.
      const applied = await p.kubectl(['apply', '--filename', '-'], { input: stringify(deployment) });
      expect(applied.stderr).toBe(
        'Warning: container "tensorflow": removed NVIDIA_VISIBLE_DEVICES="0": gpushare assigns GPUs\n' +
          'Warning: spec.selector and spec.template.metadata.labels were missing: ' +
          'added gpushare.io/workload=gpu-shared-job to both\n',
      );
      expect(applied.stdout).toBe('deployment.apps/gpu-shared-job created\n');
      const names = await poll('2 replicas bound', async () => {
        const pods = await listPods(p, NS, SELECTOR);
        return pods.length === 2 && pods.every((x) => boundAssignment(x) !== null)
          ? pods.map((x) => x.metadata.name)
          : undefined;
      });
      for (const name of names) halfPods.set(name, await podRunning(p, NS, name, WAIT_MS));
      const uuids = new Set<string>();
      for (const [name, pod] of halfPods) {
        const assignment = boundAssignment(pod as never)!;
        expect(assignment.gpus.map((g) => g.gpuMilli)).toEqual([500]);
        const uuid = assignment.gpus[0]!.uuid;
        uuids.add(uuid);
        const env = await gpuEnv(name);
        process.stdout.write(`${name}: ${JSON.stringify(env)}\n`);
        expect(env.CUDA_VISIBLE_DEVICES).toBe(uuid);
        expect(env.NVIDIA_VISIBLE_DEVICES).toBe(uuid);
        expect(env.GPUSHARE_MODE).toBe(assignment.mode);
        expect(env.GPUSHARE_GPU_MILLI).toBe('500');
        expect(env.GPUSHARE_GPU_MEMORY_MIB).toBe(String(assignment.gpus[0]!.gpuMemoryMiB));
        // Half an A100 by MPS: half its threads, half its memory pinned, the daemon's pipe mounted.
        expect(assignment.mode).toBe('mps');
        expect(env.CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).toBe('50');
        expect(env.CUDA_MPS_PINNED_DEVICE_MEM_LIMIT).toBe(`${uuid}=${assignment.gpus[0]!.gpuMemoryMiB}M`);
        expect(env.CUDA_MPS_PIPE_DIRECTORY).toBe(`/run/gpushare/mps/${uuid}/pipe`);
        expect(env.PIPE_DIRECTORY_MOUNTED).toBe('yes');
      }
      expect(uuids.size).toBe(1);
    });

    it("gives a whole-GPU pod the other GPU; a third replica waits with the extender's reason", async () => {
      const p = plane();
      expect((await p.request('POST', `/api/v1/namespaces/${NS}/pods`, gpuEnvPod('whole-gpu', '1'))).status).toBe(201);
      wholePod = await podRunning(p, NS, 'whole-gpu', WAIT_MS);
      const assignment = boundAssignment(wholePod as never)!;
      const shared = boundAssignment([...halfPods.values()][0] as never)!.gpus[0]!.uuid;
      const env = await gpuEnv('whole-gpu');
      process.stdout.write(`whole-gpu: ${JSON.stringify(env)}\n`);
      expect(env.CUDA_VISIBLE_DEVICES).toBe(assignment.gpus[0]!.uuid);
      expect(env.CUDA_VISIBLE_DEVICES).not.toBe(shared);
      expect(env.GPUSHARE_GPU_MILLI).toBe('1000');
      expect(Object.keys(env).filter((k) => k.startsWith('CUDA_MPS_'))).toEqual([]);

      expect((await p.kubectl(['scale', 'deployment/gpu-shared-job', '--replicas=3'])).code).toBe(0);
      const third = await poll('the third replica Pending with a FailedScheduling event', async () => {
        const pending = (await listPods(p, NS, SELECTOR)).filter((x) => x.spec.nodeName === undefined);
        if (pending.length !== 1) return undefined;
        const events = await failedSchedulingMessages(p, NS, pending[0]!.metadata.name);
        return events.length > 0 ? events : undefined;
      });
      process.stdout.write(`third replica: ${third[0]}\n`);
      expect(third.some((m) => m.includes('gpushare: 0 of the 1 GPU(s) needed have 500 milli-GPU'))).toBe(true);
    });

    it("a restart of the node agent's pod changes no container and no allocatable", async () => {
      const p = plane();
      const before = (await p.request<NodeObject>('GET', `/api/v1/nodes/${NODE}`)).body.status.allocatable;
      const agent = (await systemPods()).find((x) => x.metadata.name.startsWith('gpushare-node-agent-'))!;
      expect((await p.request('DELETE', `/api/v1/namespaces/${SYSTEM}/pods/${agent.metadata.name}`)).status).toBe(200);
      const next = await poll('a new node agent pod', async () => {
        const found = (await systemPods()).find(
          (x) => x.metadata.name.startsWith('gpushare-node-agent-') && x.metadata.uid !== agent.metadata.uid,
        );
        return found;
      });
      await podRunning(p, SYSTEM, next.metadata.name, WAIT_MS);
      // Its device plugin registered again with the kubelet, and the kubelet reported the node since.
      await podLog(p, SYSTEM, next.metadata.name, (log) =>
        log.includes('registered gpushare.io/gpu-slot with the kubelet'),
      );
      await nodeHeartbeatAfter(p, NODE, Date.now());
      const after = (await p.request<NodeObject>('GET', `/api/v1/nodes/${NODE}`)).body.status.allocatable;
      expect(after).toEqual(before);
      for (const pod of [...halfPods.values(), wholePod]) {
        const now = await podRunning(p, NS, pod.metadata.name);
        expect(now.metadata.uid).toBe(pod.metadata.uid);
        expect(now.status.containerStatuses[0]!.containerID).toBe(pod.status.containerStatuses[0]!.containerID);
        expect(now.status.containerStatuses[0]!.restartCount).toBe(0);
      }
    });
  },
);

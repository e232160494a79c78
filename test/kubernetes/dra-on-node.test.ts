/**
 * gpushare's DRA driver installed from its Helm chart onto a real node (kubelet and containerd,
 * support/real-node.ts) labelled `gpushare.io/gpu-api=dra`, with two simulated A100-80GB and the
 * image built from this checkout: the driver's ResourceSlices equal its GPUs; the DRA half-GPU
 * Deployment runs two replicas on one shared device, each printing the GPU of its claim's
 * allocation; a third waits with the scheduler's reason; the kubelet plugin registers again after
 * a kubelet restart and prepares through it; a prepared claim survives a restart of the driver's
 * pod without being prepared again, and the new driver unprepares it when its pod goes.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../src/adapters/gpu/simulated-gpus.js';
import { claimCdiSpecFileName } from '../../src/adapters/kubernetes/dra/claim-cdi.js';
import { CHECKPOINT_FILE } from '../../src/adapters/kubernetes/dra/claim-checkpoint.js';
import { DRA_DRIVER, GPU_API_LABEL } from '../../src/adapters/kubernetes/dra/dra-names.js';
import { resourceSlicesFor } from '../../src/adapters/kubernetes/dra/resource-slices.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { failedSchedulingMessages, listPods } from './support/gpu-workloads.js';
import { GPU_ENV_END, parseGpuEnv, PRINT_GPU_ENV } from './support/gpu-env-pod.js';
import { CHART_DIR, helmAvailable, runHelm } from './support/helm.js';
import { realNodeAvailable } from './support/node-binaries.js';
import { buildTestImage, TEST_IMAGES } from './support/node-images.js';
import { nodeHeartbeatAfter, podLog, podRunning, type RunningPod } from './support/pod-status.js';
import {
  REAL_NODE_API_SERVER_ARGS,
  REAL_NODE_CONTROLLERS,
  startRealNode,
  stopRealNodes,
  type RealNode,
} from './support/real-node.js';
import { freePort } from '../support/local-process.js';
import { useControlPlane } from './support/use-control-plane.js';
import {
  canonical,
  claimPod,
  count,
  driverEvents,
  manifest,
  type Checkpoint,
  type Claim,
  type Result,
  type Slice,
  wholeGpuClaimTemplate,
} from './support/dra-node.js';

const NODE = 'dra-gpu-node-1';
const SYSTEM = 'gpushare-system';
const NS = 'default';
const SPEC = '2xA100-80GB';
const SELECTOR = 'app=gpu-shared-job';
const REGISTERED = '"msg":"registered with the kubelet"';

describe.skipIf(!kubernetesAvailable() || !helmAvailable() || !realNodeAvailable())(
  "gpushare's DRA driver from its chart on a real kubelet and containerd",
  () => {
    const plane = useControlPlane({
      apiServerArgs: REAL_NODE_API_SERVER_ARGS,
      controllerManager: { controllers: [...REAL_NODE_CONTROLLERS, 'resourceclaim-controller'] },
    });
    let dir = '';
    let stateDir = '';
    let node: RealNode;
    let cdiDir = '';
    const poll = <T>(what: string, check: () => Promise<T | undefined>) => pollFor(what, check, WAIT_MS);
    const uuidOf = new Map<string, string>();
    const halfPods = new Map<string, RunningPod>();
    let wholeDevice = '';
    let firstGeneration = 0;

    const systemPods = async () => (await listPods(plane(), SYSTEM)) as unknown as RunningPod[];
    const driverPod = () =>
      poll('a Running DRA driver pod', async () => {
        const found = (await systemPods()).find(
          (x) =>
            x.metadata.name.startsWith('gpushare-dra-driver-') &&
            x.status?.phase === 'Running' &&
            (x as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp === undefined,
        );
        return found;
      });
    const driverLog = (name: string, complete: (log: string) => boolean) => podLog(plane(), SYSTEM, name, complete);
    const gpuEnv = async (name: string) =>
      parseGpuEnv(await podLog(plane(), NS, name, (l) => l.includes(`${GPU_ENV_END}\n`)));
    const claimOf = async (podName: string): Promise<Claim | undefined> => {
      const pod = await plane().request<{ status?: { resourceClaimStatuses?: { resourceClaimName?: string }[] } }>(
        'GET',
        `/api/v1/namespaces/${NS}/pods/${podName}`,
      );
      const name = pod.body.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
      if (name === undefined) return undefined;
      const claim = await plane().request<Claim>(
        'GET',
        `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaims/${name}`,
      );
      return claim.status === 200 ? claim.body : undefined;
    };
    const allocatedClaim = (podName: string) =>
      poll(`the claim of ${podName} allocated`, async () => {
        const claim = await claimOf(podName);
        return claim?.status?.allocation !== undefined ? claim : undefined;
      });
    const driverSlices = async (): Promise<Slice[]> =>
      (await plane().request<{ items: Slice[] }>('GET', '/apis/resource.k8s.io/v1/resourceslices')).body.items.filter(
        (s) => s.spec.driver === DRA_DRIVER && s.spec.nodeName === NODE,
      );
    const checkpoint = (): Checkpoint =>
      JSON.parse(readFileSync(join(stateDir, CHECKPOINT_FILE), 'utf8')) as Checkpoint;
    const specPath = (claim: Claim) => join(cdiDir, claimCdiSpecFileName(claim.metadata.uid));
    /** The claim's spec file is gone and the checkpoint no longer holds it. */
    const unprepared = (claim: Claim): boolean =>
      !existsSync(specPath(claim)) && checkpoint().claims[claim.metadata.uid] === undefined;
    /** A running pod's GPU environment equals the uuid attribute of its claim's device. */
    const expectClaimGpu = async (podName: string): Promise<{ claim: Claim; result: Result; uuid: string }> => {
      const claim = await allocatedClaim(podName);
      const result = claim.status!.allocation!.devices.results[0]!;
      const uuid = uuidOf.get(result.device)!;
      const env = await gpuEnv(podName);
      process.stdout.write(`${podName}: ${result.device} ${JSON.stringify(env)}\n`);
      expect(result.driver).toBe(DRA_DRIVER);
      expect(result.pool).toBe(NODE);
      expect(env.CUDA_VISIBLE_DEVICES).toBe(uuid);
      expect(env.NVIDIA_VISIBLE_DEVICES).toBe(uuid);
      return { claim, result, uuid };
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gpushare-dra-node-'));
      stateDir = join(dir, 'dra-state');
      const images = [];
      for (const image of ['pause', 'busybox', 'gpushare'] as const) images.push(await buildTestImage(image, dir));
      node = await startRealNode(plane(), {
        name: NODE,
        images,
        labels: { 'gpushare.io/managed': 'true', [GPU_API_LABEL]: 'dra' },
      });
      cdiDir = node.hostPath('/var/run/cdi');
      process.stdout.write(`real node ${NODE} at ${node.ip} Ready in ${node.readyMs} ms\n`);
    }, 4 * WAIT_MS);
    afterAll(async () => {
      await stopRealNodes();
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });

    it('installs the chart with the DRA driver (no node agent); the slices equal the simulated GPUs', async () => {
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
            .concat(['draDriver.enabled=true', 'draDriver.hostNetwork=true', `draDriver.simulateGpus=${SPEC}`])
            .concat([`draDriver.stateDir=${stateDir}`])
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
        'gpushare-dra-driver',
        'gpushare-extender',
        'gpushare-webhook',
      ]);
      const driver = await driverPod();
      await driverLog(driver.metadata.name, (log) => count(log, REGISTERED) === 1);

      const published = await poll('the driver slices of the node', async () => {
        const mine = await driverSlices();
        return mine.length === 2 ? mine : undefined;
      });
      const gpus = await createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list();
      firstGeneration = published[0]!.spec.pool.generation;
      const expected = resourceSlicesFor(NODE, gpus, firstGeneration);
      expect(published.map((s) => s.metadata.name).sort()).toEqual(expected.map((s) => s.metadata.name).sort());
      const byName = new Map(published.map((s) => [s.metadata.name, s]));
      for (const slice of expected)
        expect(canonical(byName.get(slice.metadata.name)!.spec)).toEqual(canonical(slice.spec));
      const devices = published.flatMap((s) => s.spec.devices ?? []);
      expect(devices.map((d) => d.name).sort()).toEqual(['gpu-0', 'gpu-0-shared', 'gpu-1', 'gpu-1-shared']);
      for (const d of devices) uuidOf.set(d.name, d.attributes!.uuid!.string!);
      expect(uuidOf.get('gpu-0')).toBe(gpus[0]!.uuid);
      expect(uuidOf.get('gpu-0-shared')).toBe(gpus[0]!.uuid);
      expect(uuidOf.get('gpu-1')).toBe(gpus[1]!.uuid);
      expect(uuidOf.get('gpu-1-shared')).toBe(gpus[1]!.uuid);
      expect(gpus[0]!.uuid).not.toBe(gpus[1]!.uuid);
      process.stdout.write(
        `slices ${published.map((s) => s.metadata.name).join(', ')}: ${JSON.stringify([...uuidOf])}\n`,
      );
    });

    it('runs the DRA half-GPU Deployment: two replicas on one shared device; a third waits', async () => {
      const p = plane();
      for (const body of [manifest<object>('half-gpu-claim-template.yaml'), wholeGpuClaimTemplate('whole-gpu')]) {
        const res = await p.request('POST', `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaimtemplates`, body);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      const deployment = manifest<{
        spec: { replicas?: number; template: { spec: { containers: Record<string, unknown>[] } } };
      }>('half-gpu-deployment.yaml');
      const container = deployment.spec.template.spec.containers[0]!;
      container.image = TEST_IMAGES.busybox;
      container.command = PRINT_GPU_ENV;
      deployment.spec.replicas = 2;
      const applied = await p.kubectl(['apply', '--filename', '-'], { input: stringify(deployment) });
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toBe('deployment.apps/gpu-shared-job created\n');
      const names = await poll('2 replicas', async () => {
        const pods = await listPods(p, NS, SELECTOR);
        return pods.length === 2 ? pods.map((x) => x.metadata.name) : undefined;
      });
      const devices = new Set<string>();
      const shares = new Set<string>();
      for (const name of names) {
        halfPods.set(name, await podRunning(p, NS, name, WAIT_MS));
        const { result, uuid } = await expectClaimGpu(name);
        const env = await gpuEnv(name);
        expect(env.GPUSHARE_GPU_MILLI).toBe('500');
        expect(env.GPUSHARE_GPU_MEMORY_MIB).toBe('0');
        expect(env.GPUSHARE_MODE).toBe('timeslice');
        expect(result.device).toMatch(/^gpu-[01]-shared$/);
        expect(uuid).toBe(uuidOf.get(result.device));
        devices.add(result.device);
        shares.add(result.shareID!);
      }
      expect([...devices]).toHaveLength(1);
      expect(shares.size).toBe(2);
      const shared = [...devices][0]!;

      // A whole-GPU claim takes the other GPU; then no GPU has half left.
      expect(
        (await p.request('POST', `/api/v1/namespaces/${NS}/pods`, claimPod('whole-gpu', 'whole-gpu'))).status,
      ).toBe(201);
      await podRunning(p, NS, 'whole-gpu', WAIT_MS);
      const wholeGpu = await expectClaimGpu('whole-gpu');
      wholeDevice = wholeGpu.result.device;
      expect(wholeDevice).toBe(shared === 'gpu-0-shared' ? 'gpu-1' : 'gpu-0');
      expect((await gpuEnv('whole-gpu')).GPUSHARE_GPU_MILLI).toBe('1000');

      expect((await p.kubectl(['scale', 'deployment/gpu-shared-job', '--replicas=3'])).code).toBe(0);
      const third = await poll('the third replica Pending with a FailedScheduling event', async () => {
        const pending = (await listPods(p, NS, SELECTOR)).filter((x) => x.spec.nodeName === undefined);
        if (pending.length !== 1) return undefined;
        const events = await failedSchedulingMessages(p, NS, pending[0]!.metadata.name);
        return events.length > 0 ? events : undefined;
      });
      process.stdout.write(`third replica: ${third[0]}\n`);
      expect(third[0]).toMatch(/^0\/1 nodes are available: 1 cannot allocate all claims\./);
      expect((await p.kubectl(['scale', 'deployment/gpu-shared-job', '--replicas=2'])).code).toBe(0);
      await poll('2 replicas again', async () => ((await listPods(p, NS, SELECTOR)).length === 2 ? true : undefined));
    });

    it('registers the kubelet plugin again after a kubelet restart and prepares through it', async () => {
      const p = plane();
      const driver = await driverPod();
      const restarted = Date.now();
      await node.restartKubelet();
      const healthyMs = Date.now() - restarted;
      await nodeHeartbeatAfter(p, NODE, restarted);
      const log = await driverLog(driver.metadata.name, (l) => count(l, REGISTERED) === 2);
      expect(count(log, REGISTERED)).toBe(2);
      process.stdout.write(
        `kubelet restart: healthy in ${healthyMs} ms, ` +
          `registered again ${Date.now() - restarted} ms after the restart\n`,
      );
      // The starting kubelet deleted the node's slices; the driver published them again.
      const slicesBack = await poll('the driver slices published again', async () => {
        const mine = await driverSlices();
        return mine.length === 2 && mine.every((x) => x.spec.pool.generation > firstGeneration) ? mine : undefined;
      });
      const names = resourceSlicesFor(NODE, await createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list(), 1);
      expect(slicesBack.map((x) => x.metadata.name).sort()).toEqual(names.map((x) => x.metadata.name).sort());
      expect(new Set(slicesBack.map((x) => x.spec.pool.generation)).size).toBe(1);
      process.stdout.write(
        `slices after the kubelet restart: generation ${slicesBack[0]!.spec.pool.generation}, ` +
          `${Date.now() - restarted} ms after the restart\n`,
      );
      // The whole GPU goes back (unprepared through the new registration); a new pod's claim is
      // allocated there and prepared through it.
      const wholeClaim = (await claimOf('whole-gpu'))!;
      expect(existsSync(specPath(wholeClaim))).toBe(true);
      const deleted = Date.now();
      expect((await p.request('DELETE', `/api/v1/namespaces/${NS}/pods/whole-gpu`)).status).toBe(200);
      await poll('the whole GPU claim unprepared', async () => (unprepared(wholeClaim) ? true : undefined));
      expect(existsSync(specPath(wholeClaim))).toBe(false);
      expect(Object.keys(checkpoint().claims)).not.toContain(wholeClaim.metadata.uid);
      const unpreparedMs = Date.now() - deleted;
      await poll('the whole GPU claim deleted', async () => {
        const res = await p.request(
          'GET',
          `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaims/${wholeClaim.metadata.name}`,
        );
        return res.status === 404 ? true : undefined;
      });
      const created = Date.now();
      expect(
        (await p.request('POST', `/api/v1/namespaces/${NS}/pods`, claimPod('after-restart', 'half-gpu'))).status,
      ).toBe(201);
      const running = await podRunning(p, NS, 'after-restart', WAIT_MS);
      const { result } = await expectClaimGpu('after-restart');
      expect(result.device).toBe(`${wholeDevice}-shared`);
      expect(existsSync(specPath((await claimOf('after-restart'))!))).toBe(true);
      halfPods.set('after-restart', running);
      process.stdout.write(
        `whole-GPU claim unprepared ${unpreparedMs} ms after its pod's deletion; ` +
          `a new half-GPU pod Running ${Date.now() - created} ms after its creation\n`,
      );
      const events = driverEvents(await driverLog(driver.metadata.name, () => true));
      process.stdout.write(`driver log:\n  ${events.join('\n  ')}\n`);
      for (const [name, pod] of [...halfPods].slice(0, 2)) {
        const now = await podRunning(p, NS, name);
        expect(now.status.containerStatuses[0]!.containerID).toBe(pod.status.containerStatuses[0]!.containerID);
        expect(now.status.containerStatuses[0]!.restartCount).toBe(0);
      }
    });

    it('keeps prepared claims across a restart of the driver pod; the new driver unprepares', async () => {
      const p = plane();
      const old = await driverPod();
      const claims = new Map<string, Claim>();
      for (const name of halfPods.keys()) claims.set(name, (await claimOf(name))!);
      const specs = new Map<string, { content: string; mtimeMs: number }>();
      for (const claim of claims.values()) {
        const path = specPath(claim);
        specs.set(path, { content: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs });
      }
      const uids = [...claims.values()].map((c) => c.metadata.uid).sort();
      expect(Object.keys(checkpoint().claims).sort()).toEqual(uids);

      expect((await p.request('DELETE', `/api/v1/namespaces/${SYSTEM}/pods/${old.metadata.name}`)).status).toBe(200);
      const next = await poll('a new DRA driver pod', async () => {
        const found = (await systemPods()).find(
          (x) => x.metadata.name.startsWith('gpushare-dra-driver-') && x.metadata.uid !== old.metadata.uid,
        );
        return found;
      });
      await podRunning(p, SYSTEM, next.metadata.name, WAIT_MS);
      const log = await driverLog(next.metadata.name, (l) => count(l, REGISTERED) === 1);
      expect(log).toContain(`"preparedClaims":${uids.length}`);
      expect(Object.keys(checkpoint().claims).sort()).toEqual(uids);
      for (const [path, before] of specs) {
        expect(readFileSync(path, 'utf8')).toBe(before.content);
        expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
      }
      for (const [name, pod] of halfPods) {
        const now = await podRunning(p, NS, name);
        expect(now.status.containerStatuses[0]!.containerID).toBe(pod.status.containerStatuses[0]!.containerID);
        expect(now.status.containerStatuses[0]!.restartCount).toBe(0);
      }

      // Deleting a pod: the new driver unprepares its claim.
      const [gone, goneClaim] = [...claims][0]!;
      expect((await p.request('DELETE', `/api/v1/namespaces/${NS}/pods/${gone}`)).status).toBe(200);
      await poll('the claim unprepared by the new driver', async () => (unprepared(goneClaim) ? true : undefined));
      expect(existsSync(specPath(goneClaim))).toBe(false);
      expect(Object.keys(checkpoint().claims)).not.toContain(goneClaim.metadata.uid);
      const after = await driverLog(next.metadata.name, (l) => l.includes(`"uid":"${goneClaim.metadata.uid}"`));
      expect(after).toContain('"msg":"claim unprepared"');
      // No claim it found in the checkpoint was prepared again.
      const preparedAgain = after
        .split('\n')
        .filter((line) => line.includes('"msg":"claim prepared"') && uids.some((uid) => line.includes(uid)));
      expect(preparedAgain).toEqual([]);
      process.stdout.write(`new driver log:\n  ${driverEvents(after).join('\n  ')}\n`);
    });
  },
);

/**
 * `gpushare dra-driver` (the built CLI, simulated GPUs) on a real control plane with the stock
 * kube-scheduler and the resourceclaim controller: the slices it publishes equal its GPUs; pods
 * whose ResourceClaimTemplates ask for half a GPU share one device, a third waits with the
 * scheduler's reason; a claim of 20 GiB never lands where less memory is left; deleting a pod
 * frees its capacity and the waiting pod is allocated. A client acting as the kubelet prepares
 * an allocated claim over the driver's socket (the real allocation, read from the API server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../src/adapters/gpu/simulated-gpus.js';
import { claimCdiSpecFileName } from '../../src/adapters/kubernetes/dra/claim-cdi.js';
import { deviceClasses } from '../../src/adapters/kubernetes/dra/device-classes.js';
import { DRA_DEVICE_CLASSES, GPU_API_LABEL } from '../../src/adapters/kubernetes/dra/dra-names.js';
import { draSocketPath } from '../../src/adapters/kubernetes/dra/kubelet-plugin.js';
import { resourceSlicesFor } from '../../src/adapters/kubernetes/dra/resource-slices.js';
import { draKubeletClient } from '../../src/adapters/kubernetes/dra/testing/dra-kubelet-client.js';
import { quantityValue } from '../../src/adapters/kubernetes/schema/quantity.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { TEST_CONTROLLERS } from './support/component-flags.js';
import { useControlPlane } from './support/use-control-plane.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = 'dra-node-1';
const SPEC = '1xA100-80GB';

interface Result {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
  consumedCapacity?: Record<string, string>;
}
interface Claim {
  metadata: { name: string; namespace: string; uid: string };
  status?: { allocation?: { devices: { results: Result[] } } };
}
interface Slice {
  metadata: { name: string };
  spec: { pool: { generation: number } } & Record<string, unknown>;
}

/** Quantities as numbers, so that `81920Mi` and the API server's `80Gi` compare equal. */
function canonical(value: unknown): unknown {
  if (typeof value === 'string') return quantityValue(value) ?? value;
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

describe.skipIf(!kubernetesAvailable())('gpushare dra-driver on a real control plane', () => {
  const plane = useControlPlane({
    controllerManager: { controllers: [...TEST_CONTROLLERS, 'resourceclaim-controller'] },
  });
  let tmp: string;
  let driver: ChildProcess | null = null;
  let stderr = '';

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gpushare-dra-plane-'));
    await plane().createNode({ name: NODE, labels: { [GPU_API_LABEL]: 'dra' } });
    for (const cls of deviceClasses())
      expect((await plane().request('POST', '/apis/resource.k8s.io/v1/deviceclasses', cls)).status).toBe(201);
    driver = spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'gpushare'),
        'dra-driver',
        '--node-name',
        NODE,
        '--kubelet-dir',
        join(tmp, 'kubelet'),
        '--cdi-dir',
        join(tmp, 'cdi'),
        '--state-dir',
        join(tmp, 'state'),
        '--mps-dir',
        join(tmp, 'mps'),
        '--simulate-gpus',
        SPEC,
        '--kubeconfig',
        plane().kubeconfigPath,
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    driver.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  });

  afterAll(() => {
    if (driver !== null && driver.exitCode === null) driver.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  });

  const slices = async (): Promise<Slice[]> =>
    (await plane().request<{ items: Slice[] }>('GET', '/apis/resource.k8s.io/v1/resourceslices')).body.items;

  const template = async (name: string, capacity: Record<string, string>): Promise<void> => {
    const body = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name },
      spec: {
        spec: {
          devices: {
            requests: [
              {
                name: 'gpu',
                exactly: { deviceClassName: DRA_DEVICE_CLASSES.shared, capacity: { requests: capacity } },
              },
            ],
          },
        },
      },
    };
    const created = await plane().request(
      'POST',
      '/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates',
      body,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  };

  const pod = async (name: string, templateName: string): Promise<void> => {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: templateName }],
        containers: [{ name: 'main', image: 'busybox', resources: { claims: [{ name: 'gpu' }] } }],
      },
    };
    const created = await plane().request('POST', '/api/v1/namespaces/default/pods', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  };

  const claimOf = async (podName: string): Promise<Claim | undefined> => {
    const p = await plane().request<{ status?: { resourceClaimStatuses?: { resourceClaimName?: string }[] } }>(
      'GET',
      `/api/v1/namespaces/default/pods/${podName}`,
    );
    const name = p.body.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
    if (name === undefined) return undefined;
    const c = await plane().request<Claim>('GET', `/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/${name}`);
    return c.status === 200 ? c.body : undefined;
  };

  const allocated = (podName: string): Promise<Result> =>
    pollFor(
      `the claim of ${podName} allocated`,
      async () => (await claimOf(podName))?.status?.allocation?.devices.results[0],
      WAIT_MS,
    );

  const failedScheduling = (podName: string): Promise<string> =>
    pollFor(
      `a FailedScheduling event of ${podName}`,
      async () => {
        const list = await plane().request<{ items: { reason: string; message: string }[] }>(
          'GET',
          `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${podName}`)}`,
        );
        return list.body.items.find((e) => e.reason === 'FailedScheduling')?.message;
      },
      WAIT_MS,
    ).then((message) => {
      process.stdout.write(`${podName}: ${message}\n`);
      return message;
    });

  it('publishes slices equal to its GPUs', async () => {
    const published = await pollFor(
      'the driver slices',
      async () => {
        if (driver!.exitCode !== null) throw new Error(`the driver exited: ${stderr}`);
        const items = await slices();
        return items.length === 2 ? items : undefined;
      },
      WAIT_MS,
    );
    const gpus = await createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list();
    const generation = published[0]!.spec.pool.generation;
    const expected = resourceSlicesFor(
      NODE,
      gpus.map((g) => ({ ...g, healthy: g.healthy })),
      generation,
    );
    expect(published.map((s) => s.metadata.name).sort()).toEqual(expected.map((s) => s.metadata.name));
    const byName = new Map(published.map((s) => [s.metadata.name, s]));
    for (const slice of expected)
      expect(canonical(byName.get(slice.metadata.name)!.spec)).toEqual(canonical(slice.spec));
    expect(generation).toBe(1);
  });

  it('shares one device between two half-GPU pods, keeps a third waiting, prepares a claim as allocated', async () => {
    await template('half', { gpuMilli: '500', memory: '35Gi' });
    await pod('half-a', 'half');
    await pod('half-b', 'half');
    const a = await allocated('half-a');
    const b = await allocated('half-b');
    expect([a.device, b.device]).toEqual(['gpu-0-shared', 'gpu-0-shared']);
    expect(a.shareID).not.toBe(b.shareID);
    expect(canonical(a.consumedCapacity)).toEqual({ gpuMilli: 500, memory: 35 * 2 ** 30 });
    await pod('half-c', 'half');
    const message = await failedScheduling('half-c');
    expect(message).toMatch(/^0\/1 nodes are available: 1 cannot allocate all claims\./);
    expect((await claimOf('half-c'))?.status?.allocation).toBeUndefined();

    const claim = (await claimOf('half-a'))!;
    const client = draKubeletClient(draSocketPath(join(tmp, 'kubelet')), 'v1');
    try {
      const answer = await client.prepare([
        { namespace: 'default', name: claim.metadata.name, uid: claim.metadata.uid },
      ]);
      expect(answer.claims[claim.metadata.uid]).toEqual({
        devices: [
          {
            request_names: ['gpu'],
            pool_name: NODE,
            device_name: 'gpu-0-shared',
            cdi_device_ids: [`gpushare.io/claim=${claim.metadata.uid}-gpu-0-shared`],
            share_id: a.shareID,
          },
        ],
        error: '',
      });
    } finally {
      client.close();
    }
    const spec = JSON.parse(readFileSync(join(tmp, 'cdi', claimCdiSpecFileName(claim.metadata.uid)), 'utf8')) as {
      devices: { containerEdits: { env: string[] } }[];
    };
    const [gpu] = await createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list();
    expect(spec.devices[0]!.containerEdits.env).toEqual([
      `CUDA_VISIBLE_DEVICES=${gpu!.uuid}`,
      `NVIDIA_VISIBLE_DEVICES=${gpu!.uuid}`,
      'GPUSHARE_MODE=timeslice',
      'GPUSHARE_GPU_COUNT=1',
      'GPUSHARE_GPU_MILLI=500',
      'GPUSHARE_GPU_MEMORY_MIB=35840',
    ]);
  });

  it('never puts a 20 GiB claim where less memory is left, and allocates it once a pod is deleted', async () => {
    expect((await plane().request('DELETE', '/api/v1/namespaces/default/pods/half-c')).status).toBe(200);
    await template('mem20', { memory: '20Gi' });
    await pod('big-20', 'mem20');
    const message = await failedScheduling('big-20');
    expect(message).toMatch(/^0\/1 nodes are available: 1 cannot allocate all claims\./);
    expect((await claimOf('big-20'))?.status?.allocation).toBeUndefined();
    expect((await plane().request('DELETE', '/api/v1/namespaces/default/pods/half-a')).status).toBe(200);
    const big = await allocated('big-20');
    expect(big.device).toBe('gpu-0-shared');
    expect(canonical(big.consumedCapacity)).toEqual({ gpuMilli: 0, memory: 20 * 2 ** 30 });
  });
});

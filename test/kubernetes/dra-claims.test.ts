/**
 * The claims users write (deploy/kubernetes/dra), on the real control plane with the shipped
 * DeviceClasses and RBAC: two nodes labelled gpushare.io/gpu-api=dra whose ResourceSlices are
 * published (resourceSlicesFor, under the DRA driver's ServiceAccount token) without a kubelet or a
 * driver, and the stock kube-scheduler configured with gpushare's extender, as a cluster with a DRA
 * pool and a device-plugin pool runs it.
 * - The DRA form of the half-GPU Deployment, 3 replicas with one free GPU: 2 bound, their claims
 *   allocated on the same shared device with 500 milli-GPU each, the third Pending with the
 *   scheduler's reason.
 * - The 20 GiB template waits while no GPU has 20 GiB left, never lands on the bigger GPU that has
 *   10 GiB left, and lands where a deleted pod freed its memory.
 * - The extender never places a pod on a DRA node: those nodes have no gpushare inventory, and the
 *   extender's own filter refuses them as unresolvable.
 * - The shipped DaemonSets (deploy/kubernetes) give each node the node agent or the DRA driver by
 *   its gpushare.io/gpu-api label, never both, also when the label changes (the DaemonSet controller
 *   and the scheduler place the daemon pods; no kubelet runs them).
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRA_DEVICE_CLASSES,
  DRA_DRIVER,
  GPU_API_LABEL,
  GPU_APIS,
} from '../../src/adapters/kubernetes/dra/dra-names.js';
import { resourceSlicesFor, type SliceGpu } from '../../src/adapters/kubernetes/dra/resource-slices.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { TEST_CONTROLLERS } from './support/component-flags.js';
import { startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import {
  clearNamespace,
  create,
  failedSchedulingMessages,
  gpuDeployment,
  gpuRequest,
  listPods,
  type TestPod,
} from './support/gpu-workloads.js';
import { kubeRequest, type KubeCredentials } from './support/kube-client.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const CLAIMS = join(DEPLOY, 'dra');
const NS = 'ml-team';
const A100_MIB = 81_920;
const A10_MIB = 24_576;
const CLAIMS_PATH = `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaims`;
/** The labels of a node in the DRA pool. */
const DRA_NODE_LABELS = { 'gpushare.io/managed': 'true', [GPU_API_LABEL]: GPU_APIS.dra };

interface AllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
  consumedCapacity?: Record<string, string>;
}
interface Claim {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: {
    allocation?: { devices: { results: AllocationResult[] } };
    reservedFor?: { resource: string; name: string }[];
  };
}
interface ClaimPod extends TestPod {
  status?: TestPod['status'] & { resourceClaimStatuses?: { name: string; resourceClaimName?: string }[] };
}

/** One GPU of a node, as the driver's discovery would give it. */
function oneGpu(node: string, model: string, gpuMemoryMiB: number): SliceGpu[] {
  const id = Buffer.from(node).toString('hex').padStart(12, '0').slice(-12);
  return [
    { index: 0, uuid: `GPU-00000000-0000-0000-0000-${id}`, model, gpuMemoryMiB, migEnabled: false, healthy: true },
  ];
}

/** A pod that asks for one claim `gpu` made from template `template`, pinned to `node` when given. */
function claimPod(name: string, template: string, node?: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: {
      terminationGracePeriodSeconds: 0,
      ...(node === undefined ? {} : { nodeSelector: { 'kubernetes.io/hostname': node } }),
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: template }],
      containers: [{ name: 'main', image: 'registry.invalid/none:1', resources: { claims: [{ name: 'gpu' }] } }],
    },
  };
}

/** A ResourceClaimTemplate of one request on the shared device class with capacity `requests`. */
function sharedTemplate(name: string, requests: Record<string, string>): object {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name },
    spec: {
      spec: {
        devices: {
          requests: [{ name: 'gpu', exactly: { deviceClassName: DRA_DEVICE_CLASSES.shared, capacity: { requests } } }],
        },
      },
    },
  };
}

/** POSTs `body` to the extender's `verb` with the scheduler's client certificate; the parsed answer. */
function extenderPost<T>(
  extender: { urlPrefix: string; caFile: string; clientCertFile: string; clientKeyFile: string },
  verb: string,
  body: unknown,
): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${extender.urlPrefix}/${verb}`,
      {
        method: 'POST',
        ca: readFileSync(extender.caFile),
        cert: readFileSync(extender.clientCertFile),
        key: readFileSync(extender.clientKeyFile),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text) as T);
          } catch {
            reject(new Error(`extender ${verb}: ${res.statusCode} ${text}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`extender ${verb}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

describe.skipIf(!kubernetesAvailable())('the DRA claims users write, on the real control plane', () => {
  // The resourceclaim controller makes each pod's claim from its template and deletes it with the pod.
  const plane = useControlPlane({
    scheduler: false,
    controllerManager: { controllers: [...TEST_CONTROLLERS, 'resourceclaim-controller'] },
  });
  let extender: Awaited<ReturnType<typeof startExtenderProcess>> | undefined;
  let driver: KubeCredentials;
  const poll = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000) =>
    pollFor(what, check, timeoutMs);
  const claims = async (): Promise<Claim[]> => {
    const res = await plane().request<{ items: Claim[] }>('GET', CLAIMS_PATH);
    if (res.status !== 200) throw new Error(`list claims: ${res.status} ${res.text}`);
    return res.body.items;
  };
  /** The claim a pod's `gpu` entry was given (template claims are named by the controller). */
  const claimOf = (pod: ClaimPod, all: readonly Claim[]): Claim | undefined => {
    const name = pod.status?.resourceClaimStatuses?.find((s) => s.name === 'gpu')?.resourceClaimName;
    return all.find((c) => c.metadata.name === name);
  };
  /** Removes every workload and claim of the namespace and waits until no claim is left. */
  const clearAll = async (): Promise<void> => {
    await clearNamespace(plane(), NS, (what, check, timeoutMs) => poll(what, check, timeoutMs));
    await plane().request('DELETE', CLAIMS_PATH);
    await poll('no claim left', async () => ((await claims()).length === 0 ? true : undefined));
  };
  /** The pods of `selector`: all `count` of them, `boundCount` bound, the others with a FailedScheduling event. */
  const waitForPlacement = (selector: string, count: number, boundCount: number) =>
    poll(`${selector}: ${count} pods, ${boundCount} bound, the rest with a FailedScheduling event`, async () => {
      const pods = (await listPods(plane(), NS, selector)) as ClaimPod[];
      const bound = pods.filter((x) => x.spec.nodeName !== undefined);
      const pending = pods.filter((x) => x.spec.nodeName === undefined);
      if (pods.length !== count || bound.length !== boundCount) return undefined;
      const reasons: string[][] = [];
      for (const pod of pending) reasons.push(await failedSchedulingMessages(plane(), NS, pod.metadata.name));
      return reasons.every((r) => r.length > 0) ? { bound, pending, reasons } : undefined;
    });

  beforeAll(async () => {
    const p = plane();
    const applied = await p.kubectl([
      'apply',
      ...['namespace.yaml', 'rbac-dra-driver.yaml', 'device-classes.yaml', 'rbac-extender.yaml'].flatMap((f) => [
        '--filename',
        join(DEPLOY, f),
      ]),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
    await p.createNamespace(NS);
    const templates = await p.kubectl([
      'apply',
      '--namespace',
      NS,
      ...['half-gpu-claim-template.yaml', '20gib-claim-template.yaml'].flatMap((f) => ['--filename', join(CLAIMS, f)]),
    ]);
    if (templates.code !== 0) throw new Error(`kubectl apply: ${templates.stderr}`);
    // The DRA pool: an A100 (80 GiB) and an A10 (24 GiB) node; their slices published as the driver does.
    driver = await p.serviceAccountCredentials('gpushare-system', 'gpushare-dra-driver');
    for (const [node, model, mib] of [
      ['dra-a100', 'A100-80GB', A100_MIB],
      ['dra-a10', 'A10', A10_MIB],
    ] as const) {
      await p.createNode({ name: node, labels: DRA_NODE_LABELS });
      for (const slice of resourceSlicesFor(node, oneGpu(node, model, mib), 1)) {
        const created = await kubeRequest(driver, 'POST', '/apis/resource.k8s.io/v1/resourceslices', slice);
        if (created.status !== 201) throw new Error(`publish ${node}: ${created.status} ${created.text}`);
      }
    }
    // The scheduler with gpushare's extender, as in a cluster that also has a device-plugin pool.
    const kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender');
    extender = await startExtenderProcess({ dir: p.dir, kubeconfig });
    await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
  }, 240_000);

  afterAll(async () => {
    await extender?.kill();
  });

  it("the DRA driver's ServiceAccount publishes slices and reads claims, and is refused the rest", async () => {
    const slices = await kubeRequest<{ items: { spec: { pool: { name: string } } }[] }>(
      driver,
      'GET',
      '/apis/resource.k8s.io/v1/resourceslices',
    );
    expect(slices.status).toBe(200);
    expect([...new Set(slices.body.items.map((s) => s.spec.pool.name))].sort()).toEqual(['dra-a10', 'dra-a100']);
    expect((await kubeRequest(driver, 'GET', CLAIMS_PATH)).status).toBe(200);
    expect((await kubeRequest(driver, 'GET', '/api/v1/nodes/dra-a10')).status).toBe(200);
    const refused = [
      await kubeRequest(driver, 'POST', CLAIMS_PATH, { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim' }),
      await kubeRequest(
        driver,
        'PATCH',
        '/api/v1/nodes/dra-a10',
        { metadata: { labels: { x: 'y' } } },
        'application/merge-patch+json',
      ),
      await kubeRequest(driver, 'DELETE', '/apis/resource.k8s.io/v1/deviceclasses/gpu.gpushare.io'),
      await kubeRequest(driver, 'GET', `/api/v1/namespaces/${NS}/pods`),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);
  });

  it(
    'the DRA half-GPU Deployment, 3 replicas with one free GPU: 2 share one device with 500 milli-GPU ' +
      "each, the third waits with the scheduler's reason",
    async () => {
      const p = plane();
      // The A10 given whole to another claim: the cluster's one free GPU is the A100.
      const whole = {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        metadata: { name: 'whole-gpu' },
        spec: {
          spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: DRA_DEVICE_CLASSES.gpu } }] } },
        },
      };
      expect(
        (await p.request('POST', `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaimtemplates`, whole)).status,
      ).toBe(201);
      await create(p, NS, claimPod('a10-whole', 'whole-gpu', 'dra-a10'));
      await waitForPlacement('app=a10-whole', 1, 1);

      const deployment = parse(readFileSync(join(CLAIMS, 'half-gpu-deployment.yaml'), 'utf8')) as {
        kind: string;
        spec: { replicas: number; template: { spec: Record<string, unknown> } };
      };
      deployment.spec.replicas = 3;
      deployment.spec.template.spec.terminationGracePeriodSeconds = 0;
      await create(p, NS, deployment);
      const placed = await waitForPlacement('app=gpu-shared-job', 3, 2);
      const all = await claims();
      const results = placed.bound.map((pod) => {
        const claim = claimOf(pod, all);
        expect(claim?.status?.reservedFor?.map((r) => [r.resource, r.name])).toEqual([['pods', pod.metadata.name]]);
        return { node: pod.spec.nodeName, results: claim?.status?.allocation?.devices.results };
      });
      process.stdout.write(`DRA half-GPU replicas: ${JSON.stringify(results)}\n`);
      for (const r of results) {
        expect(r.node).toBe('dra-a100');
        expect(r.results?.map(({ shareID: _shareID, ...rest }) => rest)).toEqual([
          {
            request: 'gpu',
            driver: DRA_DRIVER,
            pool: 'dra-a100',
            device: 'gpu-0-shared',
            consumedCapacity: { gpuMilli: '500', memory: '0' },
          },
        ]);
      }
      // Two shares of one device: two share IDs.
      expect(new Set(results.map((r) => r.results?.[0]?.shareID)).size).toBe(2);
      const reason = placed.reasons[0]![0]!;
      process.stdout.write(`the third replica: ${reason}\n`);
      expect(reason.startsWith('0/2 nodes are available: 2 cannot allocate all claims.')).toBe(true);
      const pending = placed.pending[0]!;
      expect(pending.status?.conditions?.find((c) => c.type === 'PodScheduled')?.reason).toBe('Unschedulable');
      await clearAll();
    },
  );

  it('the 20 GiB template waits until a GPU has 20 GiB left and lands only there, after a pod frees it', async () => {
    const p = plane();
    for (const [name, memory] of [
      ['memory-70gib', '70Gi'],
      ['memory-10gib', '10Gi'],
    ] as const) {
      const res = await p.request(
        'POST',
        `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaimtemplates`,
        sharedTemplate(name, { memory }),
      );
      expect(res.status).toBe(201);
    }
    // Left: 10 GiB of the A100's 80, 14 GiB of the A10's 24.
    await create(p, NS, claimPod('fill-a100', 'memory-70gib', 'dra-a100'));
    await create(p, NS, claimPod('fill-a10', 'memory-10gib', 'dra-a10'));
    await waitForPlacement('app in (fill-a100,fill-a10)', 2, 2);
    await create(p, NS, claimPod('needs-20gib', 'gpu-memory-20gib'));
    const waiting = await waitForPlacement('app=needs-20gib', 1, 0);
    process.stdout.write(`20 GiB with 10 and 14 GiB left: ${waiting.reasons[0]![0]}\n`);
    expect(waiting.reasons[0]![0]!.startsWith('0/2 nodes are available: 2 cannot allocate all claims.')).toBe(true);

    // Deleting the A10's pod deletes its claim and frees its 10 GiB: 24 GiB left there, 10 on the A100.
    expect((await p.request('DELETE', `/api/v1/namespaces/${NS}/pods/fill-a10?gracePeriodSeconds=0`)).status).toBe(200);
    const placed = await waitForPlacement('app=needs-20gib', 1, 1);
    const claim = claimOf(placed.bound[0]!, await claims());
    expect(placed.bound[0]!.spec.nodeName).toBe('dra-a10');
    expect(claim?.status?.allocation?.devices.results.map(({ shareID: _shareID, ...rest }) => rest)).toEqual([
      {
        request: 'gpu',
        driver: DRA_DRIVER,
        pool: 'dra-a10',
        device: 'gpu-0-shared',
        consumedCapacity: { gpuMilli: '0', memory: '20Gi' },
      },
    ]);
    await clearAll();
  });

  it('the extender places webhook-form pods on device-plugin nodes only, and refuses DRA nodes itself', async () => {
    const p = plane();
    // A device-plugin node with one A100, as the node agent publishes it.
    await p.createNode({
      name: 'dp-a100',
      gpuInventory: gpusOf('dp-a100', 1),
      allocatable: {
        'gpushare.io/gpu': '1',
        'gpushare.io/gpu-milli': '1000',
        'gpushare.io/gpu-memory-mib': String(A100_MIB),
        'gpushare.io/gpu-slot': '16',
      },
    });
    try {
      // Three half-GPU pods as the webhook writes them, while both DRA GPUs are free.
      await create(p, NS, gpuDeployment('webhook-half', 3, gpuRequest({ gpuMilli: 500, mode: 'mps' })));
      const placed = await waitForPlacement('app=webhook-half', 3, 2);
      expect(placed.bound.map((x) => x.spec.nodeName)).toEqual(['dp-a100', 'dp-a100']);
      const reason = placed.reasons[0]![0]!;
      process.stdout.write(`the third webhook-form pod: ${reason}\n`);
      expect(reason).toContain('0/3 nodes are available');
      expect(reason).toContain('2 Insufficient gpushare.io/gpu-slot');
      // Asked directly, the extender refuses the DRA nodes as not its own, for good.
      const pending = await p.request<object>(
        'GET',
        `/api/v1/namespaces/${NS}/pods/${placed.pending[0]!.metadata.name}`,
      );
      const answer = await extenderPost<{
        NodeNames: string[] | null;
        FailedNodes: Record<string, string>;
        FailedAndUnresolvableNodes: Record<string, string>;
      }>(extender!, 'filter', { Pod: pending.body, NodeNames: ['dra-a100', 'dra-a10', 'dp-a100'] });
      const notOurs = 'gpushare: not a gpushare node (no gpushare.io/gpus annotation from the node agent)';
      expect(answer.FailedAndUnresolvableNodes['dra-a100']).toBe(notOurs);
      expect(answer.FailedAndUnresolvableNodes['dra-a10']).toBe(notOurs);
      expect(answer.NodeNames ?? []).toEqual([]);
      expect(await claims()).toEqual([]);
    } finally {
      await clearAll();
      await p.request('DELETE', '/api/v1/nodes/dp-a100');
    }
  });

  it(
    'the shipped DaemonSets put the DRA driver on the DRA nodes and the node agent on the others, ' +
      'and follow a relabelled node',
    async () => {
      const p = plane();
      await p.createNode({ name: 'dp-a10', labels: { 'gpushare.io/managed': 'true' } });
      const applied = await p.kubectl([
        'apply',
        ...['rbac-node-agent.yaml', 'node-agent.yaml', 'dra-driver.yaml'].flatMap((f) => [
          '--filename',
          join(DEPLOY, f),
        ]),
      ]);
      expect(applied.stderr).toBe('');
      /** [DaemonSet, node] of every daemon pod bound to a node, sorted. */
      const daemons = async (): Promise<string[][]> =>
        (await listPods(p, 'gpushare-system'))
          .filter((x) => x.spec.nodeName !== undefined)
          .map((x) => [x.metadata.labels?.['app.kubernetes.io/name'] ?? '', x.spec.nodeName!])
          .sort((a, b) => a.join('/').localeCompare(b.join('/')));
      const expectDaemons = async (what: string, wanted: string[][]) => {
        let seen: string[][] = [];
        try {
          await poll(what, async () => {
            seen = await daemons();
            return JSON.stringify(seen) === JSON.stringify(wanted) ? true : undefined;
          });
        } finally {
          expect(seen).toEqual(wanted);
        }
      };
      try {
        await expectDaemons('one daemon per node', [
          ['gpushare-dra-driver', 'dra-a10'],
          ['gpushare-dra-driver', 'dra-a100'],
          ['gpushare-node-agent', 'dp-a10'],
        ]);
        // The admin moves the node to the DRA pool: the node agent leaves it, the DRA driver comes.
        const relabel = await p.kubectl(['label', 'node', 'dp-a10', `${GPU_API_LABEL}=${GPU_APIS.dra}`]);
        expect(relabel.code).toBe(0);
        await expectDaemons('the DRA driver alone on the relabelled node', [
          ['gpushare-dra-driver', 'dp-a10'],
          ['gpushare-dra-driver', 'dra-a10'],
          ['gpushare-dra-driver', 'dra-a100'],
        ]);
      } finally {
        await p.request('DELETE', '/apis/apps/v1/namespaces/gpushare-system/daemonsets');
        await poll('the daemon pods gone', async () =>
          (await listPods(p, 'gpushare-system')).length === 0 ? true : undefined,
        );
        await p.request('DELETE', '/api/v1/nodes/dp-a10');
      }
    },
  );
});

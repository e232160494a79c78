/**
 * The gpushare extender with the real kube-scheduler (deploy/'s KubeSchedulerConfiguration), the
 * real controller manager and API server: the extender runs as `gpushare extender` with its
 * ServiceAccount token under deploy/kubernetes/rbac-extender.yaml. Nodes carry the inventory the
 * node agent publishes; pods carry what the webhook writes (gpushare resources and annotations).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDevicePlugin } from '../../src/adapters/kubernetes/device-plugin/device-plugin.js';
import { createGpuHealthState } from '../../src/adapters/kubernetes/device-plugin/gpu-health.js';
import { cdiSpecFileName } from '../../src/adapters/kubernetes/device-plugin/cdi-writer.js';
import type { CdiSpec } from '../../src/adapters/kubernetes/device-plugin/cdi-spec.js';
import { createApiPodSource } from '../../src/adapters/kubernetes/node-agent/api-pod-source.js';
import { assignedDeviceIds } from '../../src/adapters/kubernetes/schema/pod-assignment.js';
import { RESOURCES } from '../../src/adapters/kubernetes/schema/names.js';
import { startStandInKubelet } from './support/stand-in-kubelet.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { fetchExtenderText, startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import {
  boundAssignment,
  clearNamespace,
  create,
  failedSchedulingMessages,
  gpuDeployment,
  gpuPod,
  gpuRequest,
  gpuTotals,
  listPods,
} from './support/gpu-workloads.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const NS = 'team-a';
const A10_MIB = 24_576;
const A100_MIB = 81_920;

/** Node allocatable as the node agent and the kubelet would publish it. */
function gpuAllocatable(gpus: number, memoryMiB: number): Record<string, string> {
  return {
    'gpushare.io/gpu': String(gpus),
    'gpushare.io/gpu-milli': String(gpus * 1000),
    'gpushare.io/gpu-memory-mib': String(gpus * memoryMiB),
    'gpushare.io/gpu-slot': String(gpus * 16),
  };
}

describe.skipIf(!kubernetesAvailable())('gpushare extender on the real control plane', () => {
  const plane = useControlPlane({ scheduler: false });
  let extender: Awaited<ReturnType<typeof startExtenderProcess>>;
  let kubeconfig = '';
  const poll = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000) =>
    pollFor(what, check, timeoutMs);

  beforeAll(async () => {
    const p = plane();
    const applied = await p.kubectl([
      'apply',
      ...['namespace.yaml', 'rbac-extender.yaml', 'rbac-node-agent.yaml'].flatMap((f) => [
        '--filename',
        join(DEPLOY, f),
      ]),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
    kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender');
    extender = await startExtenderProcess({ dir: p.dir, kubeconfig });
    await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
    await p.createNamespace(NS);
  }, 240_000);

  afterAll(async () => {
    await extender?.kill();
  });

  // Each test brings its own nodes: remove them (and every pod) after it.
  afterEach(async () => {
    const p = plane();
    await clearNamespace(p, NS, poll);
    await p.request('DELETE', '/api/v1/nodes');
  });

  it(
    'binds 2 of 3 pods of 12 GiB to the only free GPU of 24 GiB and leaves the third Pending with ' +
      "the extender's reason, 10 times in a row",
    async () => {
      const p = plane();
      await p.createNode({
        name: 'a10-node',
        gpuInventory: gpusOf('a10-node', 8, 'A10', A10_MIB),
        allocatable: gpuAllocatable(8, A10_MIB),
      });
      // Fill 7 of the 8 GPUs with whole-GPU pods.
      for (let i = 0; i < 7; i++)
        await create(p, NS, gpuPod(`whole-${i}`, gpuRequest({ gpuMilli: 1000, mode: 'exclusive' })));
      await poll('7 whole-GPU pods bound', async () =>
        (await listPods(p, NS)).filter((x) => boundAssignment(x) !== null).length === 7 ? true : undefined,
      );
      const request = gpuRequest({ gpuMilli: 100, gpuMemoryMiB: 12_288, mode: 'mps' });
      const metricsUrl = `${extender.urlPrefix.replace(/\/scheduler$/, '')}/metrics`;
      for (let round = 0; round < 10; round++) {
        const name = `mem12-${round}`;
        await create(p, NS, gpuDeployment(name, 3, request));
        let seen = '';
        const pods = await poll(`${name}: 3 pods, 2 bound, the third with a FailedScheduling event`, async () => {
          const list = await listPods(p, NS, `app=${name}`);
          seen = JSON.stringify(
            list.map((x) => [
              x.metadata.name,
              x.spec.nodeName ?? null,
              x.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? null,
            ]),
          );
          const bound = list.filter((x) => x.spec.nodeName !== undefined);
          const pending = list.filter((x) => x.spec.nodeName === undefined);
          if (list.length !== 3 || bound.length !== 2 || pending.length !== 1) return undefined;
          const events = await failedSchedulingMessages(p, NS, pending[0]!.metadata.name);
          return events.length > 0 ? { bound, pending: pending[0]!, events } : undefined;
        }).catch(async (err: Error) => {
          const held = (await fetchExtenderText(`${extender.urlPrefix.replace(/\/scheduler$/, '')}/metrics`, extender))
            .split('\n')
            .filter((l) => l.startsWith('gpushare_job_allocated_memory_bytes'))
            .join('\n');
          throw new Error(
            `${err.message}; last seen: ${seen}; extender holds:\n${held}\nextender log:\n` +
              `${extender.log().split('\n').slice(-40).join('\n')}`,
          );
        });
        expect(pods.bound.map((x) => boundAssignment(x)!.gpus.map((g) => g.uuid))).toEqual([
          ['GPU-a10-node-7'],
          ['GPU-a10-node-7'],
        ]);
        // The filter's reason, or the bind's when the scheduler sent the third pod to filter before
        // the first two binds arrived (kube-scheduler binds asynchronously).
        expect(
          pods.events.some(
            (m) =>
              m.includes('gpushare: 0 of the 1 GPU(s) needed have 100 milli-GPU and 12288 MiB of memory free') ||
              m.includes('no longer fits on node a10-node'),
          ),
          pods.events.join('\n'),
        ).toBe(true);
        if (round === 0) process.stdout.write(`FailedScheduling event of the third pod: ${pods.events[0]}\n`);
        // Never 3: still 2 bound after the scheduler's retries.
        expect((await listPods(p, NS, `app=${name}`)).filter((x) => x.spec.nodeName !== undefined)).toHaveLength(2);
        await p.request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments/${name}?propagationPolicy=Foreground`);
        await poll(`${name} gone`, async () =>
          (await listPods(p, NS, `app=${name}`)).length === 0 ? true : undefined,
        );
        // The next round starts once the extender's view has freed the GPU too: a pod it refuses
        // while its watch still shows the old pods waits for the scheduler's next cluster event.
        await poll("GPU 7 free in the extender's view", async () =>
          /gpushare_gpu_jobs\{node="a10-node",gpu="7",[^}]*\} 0$/m.test(await fetchExtenderText(metricsUrl, extender))
            ? true
            : undefined,
        ).catch(async (err: Error) => {
          const lines = (await fetchExtenderText(metricsUrl, extender))
            .split('\n')
            .filter(
              (l) =>
                l.includes('gpu="7"') &&
                (l.startsWith('gpushare_job_allocated_memory') || l.startsWith('gpushare_gpu_jobs')),
            );
          const pods = JSON.stringify(
            (await p.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${NS}/pods`)).body?.items.map((x) => {
              const q = x as {
                metadata: { name: string; uid: string; deletionTimestamp?: string };
                spec: { nodeName?: string };
              };
              return [q.metadata.name, q.metadata.uid, q.spec.nodeName ?? null, q.metadata.deletionTimestamp ?? null];
            }),
          );
          throw new Error(
            `${err.message}\n${lines.join('\n')}\npods: ${pods}\nextender log:\n` +
              `${extender.log().split('\n').slice(-30).join('\n')}`,
          );
        });
      }
    },
  );

  it(
    'binds a 20-replica Deployment of 8 GiB pods onto one 8 × 80 GB node without a bind failure, and ' +
      'no GPU is over capacity',
    async () => {
      const p = plane();
      await p.createNode({
        name: 'a100-node',
        gpuInventory: gpusOf('a100-node', 8),
        allocatable: gpuAllocatable(8, A100_MIB),
      });
      const metricsUrl = `${extender.urlPrefix.replace(/\/scheduler$/, '')}/metrics`;
      const bindsBefore = {
        ok: counter(await fetchExtenderText(metricsUrl, extender), 'bind', 'ok'),
        error: counter(await fetchExtenderText(metricsUrl, extender), 'bind', 'error'),
      };
      await create(p, NS, gpuDeployment('mem8', 20, gpuRequest({ gpuMilli: 100, gpuMemoryMiB: 8192, mode: 'mps' })));
      const pods = await poll('20 pods bound', async () => {
        const list = await listPods(p, NS, 'app=mem8');
        return list.length === 20 && list.every((x) => boundAssignment(x) !== null) ? list : undefined;
      });
      expect(new Set(pods.map((x) => x.spec.nodeName))).toEqual(new Set(['a100-node']));
      for (const [gpu, t] of gpuTotals(pods)) {
        expect(t.memoryMiB, gpu).toBeLessThanOrEqual(A100_MIB);
        expect(t.milli, gpu).toBeLessThanOrEqual(1000);
      }
      // The default policy packs: 20 × 8 GiB (10 fit a GPU) on 2 or 3 GPUs, leaving at least 5 whole.
      const perGpu = [...gpuTotals(pods).values()].map((t) => t.pods);
      expect(perGpu.reduce((a, b) => a + b, 0)).toBe(20);
      expect(perGpu.length).toBeLessThanOrEqual(3);
      process.stdout.write(
        `20 × 8 GiB on one 8 × A100-80GB node, pods per GPU used: ${perGpu.sort((a, b) => b - a).join(', ')}\n`,
      );
      // The node's kubelet side: the node agent's device plugin against the stand-in kubelet, which
      // calls Allocate and PreStartContainer for the 20 containers in a random order with random
      // slots; each container's CDI spec must name exactly its own pod's assigned GPU.
      const agentConfig = new KubeConfig();
      agentConfig.loadFromFile(await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-node-agent'));
      const kubeletDir = join(p.dir, 'kubelet-a100', 'device-plugins');
      const cdiDir = join(p.dir, 'kubelet-a100', 'cdi');
      mkdirSync(kubeletDir, { recursive: true });
      const kubelet = await startStandInKubelet({ dir: kubeletDir, seed: 13 });
      const plugin = await startDevicePlugin({
        nodeName: 'a100-node',
        gpus: gpusOf('a100-node', 8).map((g) => ({ index: g.index, uuid: g.uuid })),
        slotsPerGpu: 16,
        health: createGpuHealthState(Array.from({ length: 8 }, (_, i) => [i, true] as const)),
        pods: createApiPodSource(agentConfig),
        pluginDir: kubeletDir,
        cdiDir,
        podResourcesSocket: kubelet.podResourcesSocket,
        mps: { ensureDaemon: ({ key }) => Promise.resolve({ pipeDirectory: join(p.dir, 'mps', key) }) },
      });
      try {
        await kubelet.onDevices(RESOURCES.gpuSlot, (ds) => ds.length === 128);
        const admitted = await kubelet.admitPods(
          RESOURCES.gpuSlot,
          pods.map((x) => ({ namespace: NS, name: x.metadata.name, containers: [{ name: 'main', slotCount: 1 }] })),
          { randomOrder: true, randomDevices: true },
        );
        const byName = new Map(pods.map((x) => [x.metadata.name, assignedDeviceIds(boundAssignment(x)!).join(',')]));
        for (const pod of admitted) {
          const main = pod.containers[0]!;
          expect(main.preStartError, pod.name).toBeNull();
          const spec = JSON.parse(readFileSync(join(cdiDir, cdiSpecFileName(main.deviceIds[0]!)), 'utf8')) as CdiSpec;
          const env = Object.fromEntries(
            spec.devices[0]!.containerEdits.env.map((e) => e.split('=', 2) as [string, string]),
          );
          expect(env.CUDA_VISIBLE_DEVICES, pod.name).toBe(byName.get(pod.name));
        }
        expect(admitted).toHaveLength(20);
      } finally {
        await plugin.stop();
        await kubelet.stop();
      }
      const metrics = await fetchExtenderText(metricsUrl, extender);
      // 20 binds, none failed.
      expect(counter(metrics, 'bind', 'ok') - bindsBefore.ok).toBe(20);
      expect(counter(metrics, 'bind', 'error') - bindsBefore.error).toBe(0);
      for (const [key, t] of gpuTotals(pods)) {
        const uuid = key.split('/')[1]!;
        const gpu = uuid.slice(uuid.lastIndexOf('-') + 1);
        expect(metrics).toContain(
          `gpushare_gpu_allocated_memory_bytes{node="a100-node",gpu="${gpu}",uuid="${uuid}` +
            `",model="A100-80GB",mode="mps"} ${t.memoryMiB * 1024 * 1024}`,
        );
      }
    },
  );

  it("serves only callers with the scheduler's client certificate", async () => {
    const https = await import('node:https');
    const refused = await new Promise<string>((resolve) => {
      const req = https.request(
        `${extender.urlPrefix}/filter`,
        { method: 'POST', ca: readFileSync(extender.caFile), headers: { 'content-type': 'application/json' } },
        (res) => resolve(`answered ${res.statusCode}`),
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end('{}');
    });
    expect(refused).not.toMatch(/^answered/);
    expect(await fetchExtenderText(`${extender.urlPrefix.replace(/\/scheduler$/, '')}/healthz`, extender)).toBe(
      '{"status":"ok"}',
    );
  });

  it('gives a pod asking 2 × 0.5 GPU two distinct GPUs, never on a node with one GPU', async () => {
    const p = plane();
    await p.createNode({
      name: 'one-gpu',
      gpuInventory: gpusOf('one-gpu', 1),
      allocatable: gpuAllocatable(1, A100_MIB),
    });
    await p.createNode({
      name: 'two-gpu',
      gpuInventory: gpusOf('two-gpu', 2),
      allocatable: gpuAllocatable(2, A100_MIB),
    });
    await create(p, NS, gpuPod('two-halves', gpuRequest({ gpuCount: 2, gpuMilli: 500, mode: 'mps' })));
    const pod = await poll('two-halves bound', async () =>
      (await listPods(p, NS)).find((x) => x.metadata.name === 'two-halves' && boundAssignment(x) !== null),
    );
    const assignment = boundAssignment(pod)!;
    expect(assignment.node).toBe('two-gpu');
    expect(new Set(assignment.gpus.map((g) => g.uuid)).size).toBe(2);
    expect(assignment.gpus.map((g) => g.gpuMilli)).toEqual([500, 500]);
  });

  it(
    'survives kill -9 during a 50-pod burst: no GPU is ever over capacity, and every pod ends bound ' +
      'or Pending with a reason',
    async () => {
      const p = plane();
      await p.createNode({
        name: 'burst-node',
        gpuInventory: gpusOf('burst-node', 4, 'A10', A10_MIB),
        allocatable: gpuAllocatable(4, A10_MIB),
      });
      const over: string[] = [];
      let samples = 0;
      /** Reads every pod's assignment once and records any GPU over its capacity. */
      const sample = async (): Promise<void> => {
        for (const [gpu, t] of gpuTotals(await listPods(p, NS).catch(() => []))) {
          if (t.milli > 1000 || t.memoryMiB > A10_MIB) over.push(`${gpu}: ${t.milli} milli, ${t.memoryMiB} MiB`);
        }
        samples++;
      };
      let sampling = true;
      // Besides the samples taken at fixed steps of the test (after each pod, after the kill and the
      // restart), a background loop keeps reading while the scheduler works on its own.
      const sampler = (async () => {
        while (sampling) {
          await sample();
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      try {
        // 50 pods of 300 milli and 6 GiB: 4 GPUs hold 12 of them (3 per GPU by compute and by memory).
        for (let i = 0; i < 50; i++) {
          await create(p, NS, gpuPod(`burst-${i}`, gpuRequest({ gpuMilli: 300, gpuMemoryMiB: 6144, mode: 'mps' })));
          await sample();
        }
        await poll('some burst pods bound', async () =>
          (await listPods(p, NS)).filter((x) => x.spec.nodeName).length >= 3 ? true : undefined,
        );
        await extender.kill('SIGKILL');
        await sample();
        extender = await startExtenderProcess({ dir: plane().dir, kubeconfig, port: extender.port, tls: extender.tls });
        await sample();
        const final = await poll(
          'every burst pod bound, or Pending with a FailedScheduling reason',
          async () => {
            const list = await listPods(p, NS);
            const bound = list.filter((x) => x.spec.nodeName !== undefined);
            if (bound.length !== 12) return undefined;
            for (const x of list.filter((y) => y.spec.nodeName === undefined)) {
              const condition = x.status?.conditions?.find((c) => c.type === 'PodScheduled');
              if (condition?.status !== 'False' || !condition.message) return undefined;
            }
            return list;
          },
          120_000,
        );
        sampling = false;
        await sampler;
        expect(over).toEqual([]);
        process.stdout.write(`kill -9 during the burst: ${samples} samples of the assignments, none over capacity\n`);
        expect(samples).toBeGreaterThanOrEqual(52);
        expect(final.filter((x) => boundAssignment(x) !== null)).toHaveLength(12);
        expect([...gpuTotals(final).values()].map((t) => t.pods)).toEqual([3, 3, 3, 3]);
      } finally {
        sampling = false;
        await sampler;
      }
    },
  );
});

/** The value of gpushare_extender_requests_total for a verb and outcome (0 when absent). */
function counter(metrics: string, verb: string, outcome: string): number {
  const match = new RegExp(
    `^gpushare_extender_requests_total\\{verb="${verb}",outcome="${outcome}"\\} (\\d+)$`,
    'm',
  ).exec(metrics);
  return match ? Number(match[1]) : 0;
}

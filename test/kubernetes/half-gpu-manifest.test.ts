/**
 * The issue's half-GPU Deployment end to end on the real control plane: the shipped webhook
 * configuration (pointed at a webhook on 127.0.0.1), the real kube-scheduler with the shipped
 * KubeSchedulerConfiguration calling `gpushare extender` (ServiceAccount token under the shipped
 * RBAC), and the controller manager. A cluster whose free capacity is one GPU takes 2 replicas on
 * that GPU (0.5 + 0.5); the third replica waits with the extender's reason until a second node comes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import {
  watchNodeGpuMemory,
  type NodeGpuMemoryWatch,
} from '../../src/adapters/kubernetes/webhook/node-gpu-memory-watch.js';
import { startWebhookServer, type WebhookServer } from '../../src/adapters/kubernetes/webhook/webhook-server.js';
import { createLocalCa, issueServerCert } from '../../src/adapters/tls/local-ca.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { startExtenderProcess, writeSchedulerConfig, type ExtenderProcess } from './support/gpushare-extender.js';
import { boundAssignment, failedSchedulingMessages, listPods } from './support/gpu-workloads.js';
import { useControlPlane } from './support/use-control-plane.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy', 'kubernetes');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'half-gpu-deployment.yaml');
const NS = 'default';
const SELECTOR = 'gpushare.io/workload=gpu-shared-job';
const A100 = {
  'gpushare.io/gpu': '1',
  'gpushare.io/gpu-milli': '1000',
  'gpushare.io/gpu-memory-mib': '81920',
  'gpushare.io/gpu-slot': '16',
};

describe.skipIf(!kubernetesAvailable())(
  'the half-GPU manifest through the webhook, the kube-scheduler and the extender',
  () => {
    const plane = useControlPlane({ scheduler: false });
    let dir: string;
    let webhook: WebhookServer;
    let nodes: NodeGpuMemoryWatch;
    let extender: ExtenderProcess;
    const poll = <T>(what: string, check: () => Promise<T | undefined>) => pollFor(what, check, 60_000);

    beforeAll(async () => {
      const p = plane();
      dir = mkdtempSync(join(tmpdir(), 'gpushare-half-gpu-'));
      const applied = await p.kubectl([
        'apply',
        ...['namespace.yaml', 'rbac-extender.yaml', 'rbac-webhook.yaml'].flatMap((f) => [
          '--filename',
          join(DEPLOY, f),
        ]),
      ]);
      if (applied.code !== 0) throw new Error(applied.stderr);
      // One node with one GPU: the cluster's free capacity is one GPU.
      await p.createNode({
        name: 'gpu-1',
        gpuInventory: gpusOf('gpu-1', 1),
        labels: { 'gpushare.io/gpu-memory-mib': '81920' },
        allocatable: A100,
      });
      // The webhook, with the GPU-memory bound from its own watch under its ServiceAccount.
      const ca = await createLocalCa('gpushare half-GPU test CA', Date.now());
      const cert = await issueServerCert(ca, ['127.0.0.1'], Date.now());
      writeFileSync(join(dir, 'tls.crt'), cert.certPem);
      writeFileSync(join(dir, 'tls.key'), cert.keyPem);
      const webhookConfig = new KubeConfig();
      webhookConfig.loadFromFile(await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-webhook'));
      nodes = watchNodeGpuMemory(webhookConfig, pino({ level: 'silent' }));
      await nodes.synced;
      webhook = await startWebhookServer({
        host: '127.0.0.1',
        port: 0,
        tlsCertFile: join(dir, 'tls.crt'),
        tlsKeyFile: join(dir, 'tls.key'),
        config: { schedulerName: null, maxGpuMemoryMiB: () => nodes.maxGpuMemoryMiB() },
        logger: pino({ level: 'silent' }),
      });
      const shipped = parseAllDocuments(readFileSync(join(DEPLOY, 'webhook.yaml'), 'utf8')).map(
        (d) => d.toJS() as { kind: string; webhooks?: { clientConfig: unknown }[] },
      );
      const configuration = shipped.find((d) => d.kind === 'MutatingWebhookConfiguration')!;
      configuration.webhooks![0]!.clientConfig = {
        url: `${webhook.url}/mutate`,
        caBundle: Buffer.from(ca.certPem).toString('base64'),
      };
      expect(
        (await p.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', configuration))
          .status,
      ).toBe(201);
      await poll('the webhook configuration in effect', async () => {
        const res = await p.request<{ spec?: { containers: { resources: { limits: Record<string, string> } }[] } }>(
          'POST',
          `/api/v1/namespaces/${NS}/pods?dryRun=All`,
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'probe' },
            spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] },
          },
        );
        return res.status === 201 && res.body?.spec?.containers[0]!.resources.limits['gpushare.io/gpu-milli'] === '500'
          ? true
          : undefined;
      });
      extender = await startExtenderProcess({
        dir: p.dir,
        kubeconfig: await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender'),
      });
      await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
    }, 240_000);

    afterAll(async () => {
      await extender?.kill();
      await webhook?.close();
      await nodes?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it(
      'accepts the manifest as written; 2 replicas share the one GPU, a third waits with the ' +
        "extender's reason and binds on a second node",
      async () => {
        const p = plane();
        const applied = await p.kubectl(['apply', '--filename', FIXTURE]);
        expect(applied.code).toBe(0);
        expect(applied.stdout).toBe('deployment.apps/gpu-shared-job created\n');
        expect((await p.kubectl(['scale', 'deployment/gpu-shared-job', '--replicas=2'])).code).toBe(0);
        const two = await poll('2 replicas bound', async () => {
          const pods = await listPods(p, NS, SELECTOR);
          return pods.length === 2 && pods.every((x) => boundAssignment(x) !== null) ? pods : undefined;
        });
        for (const pod of two) {
          expect(boundAssignment(pod)!.gpus.map((g) => [g.uuid, g.gpuMilli])).toEqual([['GPU-gpu-1-0', 500]]);
          expect(pod.metadata.annotations?.['gpushare.io/assigned-gpus']).toBe('GPU-gpu-1-0');
        }
        const stored = await p.request<{ items: { spec: { containers: { env?: { name: string }[] }[] } }[] }>(
          'GET',
          `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(SELECTOR)}`,
        );
        expect(
          stored.body!.items.flatMap((x) => x.spec.containers.flatMap((c) => c.env ?? [])).map((e) => e.name),
        ).not.toContain('NVIDIA_VISIBLE_DEVICES');

        expect((await p.kubectl(['scale', 'deployment/gpu-shared-job', '--replicas=3'])).code).toBe(0);
        const third = await poll('the third replica Pending with a FailedScheduling event', async () => {
          const pending = (await listPods(p, NS, SELECTOR)).filter((x) => x.spec.nodeName === undefined);
          if (pending.length !== 1) return undefined;
          const events = await failedSchedulingMessages(p, NS, pending[0]!.metadata.name);
          return events.length > 0 ? { pod: pending[0]!, events } : undefined;
        });
        process.stdout.write(`third replica: ${third.events[0]}\n`);
        expect(third.events.some((m) => m.includes('gpushare: 0 of the 1 GPU(s) needed have 500 milli-GPU'))).toBe(
          true,
        );

        await p.createNode({
          name: 'gpu-2',
          gpuInventory: gpusOf('gpu-2', 1),
          labels: { 'gpushare.io/gpu-memory-mib': '81920' },
          allocatable: A100,
        });
        const bound = await poll('the third replica bound on gpu-2', async () => {
          const pod = (await listPods(p, NS, SELECTOR)).find((x) => x.metadata.name === third.pod.metadata.name);
          return pod && boundAssignment(pod) !== null ? pod : undefined;
        });
        expect(boundAssignment(bound)!.node).toBe('gpu-2');
        expect(boundAssignment(bound)!.gpus.map((g) => g.uuid)).toEqual(['GPU-gpu-2-0']);
      },
    );
  },
);

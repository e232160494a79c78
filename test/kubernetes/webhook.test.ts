/**
 * gpushare's admission webhook on the real kube-apiserver v1.37.2: the MutatingWebhookConfiguration
 * shipped in deploy/kubernetes/webhook.yaml (its clientConfig pointed at the test's webhook on
 * 127.0.0.1 with the test CA as caBundle) makes the issue's half-GPU Deployment, which the API
 * server alone rejects (api-server-integer.test.ts), be accepted as written: kubectl prints the
 * webhook's warnings, the stored template and the Pods the controller manager makes carry
 * gpushare's resources and annotations and no NVIDIA_VISIBLE_DEVICES. The GPU-memory bound comes
 * from a watch of the Nodes' `gpushare.io/gpu-memory-mib` label through the same API server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  watchNodeGpuMemory,
  type NodeGpuMemoryWatch,
} from '../../src/adapters/kubernetes/webhook/node-gpu-memory-watch.js';
import { startWebhookServer, type WebhookServer } from '../../src/adapters/kubernetes/webhook/webhook-server.js';
import { createLocalCa, issueServerCert } from '../../src/adapters/tls/local-ca.js';
import { kubernetesAvailable } from './support/binaries.js';
import { useControlPlane } from './support/use-control-plane.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'half-gpu-deployment.yaml');
const SHIPPED = join(ROOT, 'deploy', 'kubernetes', 'webhook.yaml');
const WARNING_ENV = 'Warning: container "tensorflow": removed NVIDIA_VISIBLE_DEVICES="0": gpushare assigns GPUs';
const WARNING_SELECTOR =
  'Warning: spec.selector and spec.template.metadata.labels were missing: added ' +
  'gpushare.io/workload=gpu-shared-job to both';
const GPUSHARE_HALF = { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' };
const REQUEST_ANNOTATIONS = {
  'gpushare.io/schema': 'v1',
  'gpushare.io/gpu-count': '1',
  'gpushare.io/gpu-milli': '500',
  'gpushare.io/mode': 'auto',
  'gpushare.io/container': 'tensorflow',
};

interface PodTemplate {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: {
      name: string;
      env?: { name: string }[];
      resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
    }[];
  };
}
interface Deployment {
  metadata: { generation: number };
  spec: { selector: unknown; template: PodTemplate };
}
interface Pod extends PodTemplate {
  metadata: PodTemplate['metadata'] & { name: string };
}

/** Bounded wait on an API condition (no fixed sleeps). */
async function pollFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!kubernetesAvailable())('gpushare webhook on kube-apiserver', () => {
  const plane = useControlPlane({ scheduler: false });
  let dir: string;
  let server: WebhookServer;
  let nodes: NodeGpuMemoryWatch;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-webhook-k8s-'));
    const ca = await createLocalCa('gpushare webhook test CA', Date.now());
    const cert = await issueServerCert(ca, ['127.0.0.1'], Date.now());
    writeFileSync(join(dir, 'tls.crt'), cert.certPem);
    writeFileSync(join(dir, 'tls.key'), cert.keyPem);
    await plane().createNode({ name: 'gpu-a100', labels: { 'gpushare.io/gpu-memory-mib': '81920' } });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane().kubeconfigPath);
    nodes = watchNodeGpuMemory(kubeConfig, pino({ level: 'silent' }));
    await nodes.synced;
    server = await startWebhookServer({
      host: '127.0.0.1',
      port: 0,
      tlsCertFile: join(dir, 'tls.crt'),
      tlsKeyFile: join(dir, 'tls.key'),
      config: { schedulerName: null, maxGpuMemoryMiB: () => nodes.maxGpuMemoryMiB() },
      logger: pino({ level: 'silent' }),
    });

    // The shipped configuration, with the service reference replaced by the test's URL and CA.
    const shipped = parseAllDocuments(readFileSync(SHIPPED, 'utf8')).map(
      (d) => d.toJS() as { kind: string; webhooks?: { clientConfig: unknown }[] },
    );
    const configuration = shipped.find((d) => d.kind === 'MutatingWebhookConfiguration')!;
    configuration.webhooks![0]!.clientConfig = {
      url: `${server.url}/mutate`,
      caBundle: Buffer.from(ca.certPem).toString('base64'),
    };
    const created = await plane().request(
      'POST',
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      configuration,
    );
    expect(created.status).toBe(201);
    // The API server picks the configuration up from its own watch: wait until a dry run is rewritten.
    await pollFor('the webhook configuration to take effect', async () => {
      const res = await plane().request<{ spec?: { containers: { resources: { limits: Record<string, string> } }[] } }>(
        'POST',
        '/api/v1/namespaces/default/pods?dryRun=All',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'probe' },
          spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] },
        },
      );
      return res.status === 201 && res.body.spec?.containers[0]!.resources.limits['gpushare.io/gpu-milli'] === '500'
        ? true
        : undefined;
    });
  });

  afterAll(async () => {
    await server?.close();
    await nodes?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("accepts the issue's half-GPU Deployment as written, with the warnings kubectl prints", async () => {
    const result = await plane().kubectl(['apply', '--filename', FIXTURE]);
    process.stdout.write(
      `kubectl apply --filename half-gpu-deployment.yaml: exit ${result.code}\n${result.stderr}${result.stdout}`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('deployment.apps/gpu-shared-job created\n');
    expect(result.stderr).toBe(`${WARNING_ENV}\n${WARNING_SELECTOR}\n`);

    const stored = (
      await plane().request<Deployment>('GET', '/apis/apps/v1/namespaces/default/deployments/gpu-shared-job')
    ).body;
    expect(stored.spec.selector).toEqual({ matchLabels: { 'gpushare.io/workload': 'gpu-shared-job' } });
    expect(stored.spec.template.metadata.labels).toEqual({ 'gpushare.io/workload': 'gpu-shared-job' });
    expect(stored.spec.template.metadata.annotations).toEqual(REQUEST_ANNOTATIONS);
    const container = stored.spec.template.spec.containers[0]!;
    expect(container.env).toBeUndefined();
    expect(container.resources).toEqual({ limits: GPUSHARE_HALF, requests: GPUSHARE_HALF });
  });

  it(
    'the Pod the controller manager makes carries the gpushare resources and annotations, and no ' +
      'NVIDIA_VISIBLE_DEVICES',
    async () => {
      const pod = await pollFor("the Deployment's pod", async () => {
        const list = await plane().request<{ items: Pod[] }>(
          'GET',
          '/api/v1/namespaces/default/pods?labelSelector=gpushare.io%2Fworkload%3Dgpu-shared-job',
        );
        return list.body.items.length === 1 ? list.body.items[0] : undefined;
      });
      expect(pod.metadata.annotations).toEqual(REQUEST_ANNOTATIONS);
      expect(pod.spec.containers[0]!.resources).toEqual({ limits: GPUSHARE_HALF, requests: GPUSHARE_HALF });
      expect(pod.spec.containers.flatMap((c) => c.env ?? []).map((e) => e.name)).not.toContain(
        'NVIDIA_VISIBLE_DEVICES',
      );
    },
  );

  it('applying the same manifest again changes nothing: no new generation, one ReplicaSet', async () => {
    const result = await plane().kubectl(['apply', '--filename', FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${WARNING_ENV}\n`);
    const stored = (
      await plane().request<Deployment>('GET', '/apis/apps/v1/namespaces/default/deployments/gpu-shared-job')
    ).body;
    expect(stored.metadata.generation).toBe(1);
    const sets = await plane().request<{ items: unknown[] }>('GET', '/apis/apps/v1/namespaces/default/replicasets');
    expect(sets.body.items.length).toBe(1);
  });

  it("denies 1.5 GPUs and more memory than the largest node's GPU, naming the container and field", async () => {
    const pod = (name: string, gpu: string, annotations: Record<string, string> = {}) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, annotations },
        spec: { containers: [{ name: 'main', image: 'busybox', resources: { limits: { 'nvidia.com/gpu': gpu } } }] },
      });
    const tooMany = await plane().kubectl(['apply', '--filename', '-'], { input: pod('one-and-a-half', '1.5') });
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(
      'admission webhook "pods.webhook.gpushare.io" denied the request: container "main": ' +
        'spec.containers[0].resources.limits[nvidia.com/gpu]: 1500m GPUs: a request above 1 GPU must be a ' +
        'whole number of GPUs',
    );
    const tooBig = await plane().kubectl(['apply', '--filename', '-'], {
      input: pod('too-big', '1', { 'gpushare.io/gpu-memory-mib': '90000' }),
    });
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toContain(
      'admission webhook "pods.webhook.gpushare.io" denied the request: container "main": ' +
        'metadata.annotations[gpushare.io/gpu-memory-mib]: 90000 MiB per GPU: more than the largest GPU of ' +
        'any gpushare node (81920 MiB)',
    );
  });

  it('leaves excluded namespaces to the API server: kube-system gets the integer error', async () => {
    const res = await plane().request<{ message: string }>('POST', '/api/v1/namespaces/kube-system/pods?dryRun=All', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'half' },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(
      'spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer',
    );
  });

  it(
    'failurePolicy Fail: with the webhook down, pods in covered namespaces are refused; kube-system ' +
      'is not covered',
    async () => {
      await server.close();
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'plain' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      };
      const refused = await plane().request<{ message: string }>(
        'POST',
        '/api/v1/namespaces/default/pods?dryRun=All',
        pod,
      );
      expect(refused.status).toBe(500);
      expect(refused.body.message).toContain('failed calling webhook "pods.webhook.gpushare.io"');
      const system = await plane().request('POST', '/api/v1/namespaces/kube-system/pods?dryRun=All', pod);
      expect(system.status).toBe(201);
    },
  );

  it("the shipped manifest passes the API server's validation (server-side dry run, CA bundle filled in)", async () => {
    // (The test's own configuration, created in beforeAll, goes first: the dry run creates the shipped one.)
    expect(
      (
        await plane().request(
          'DELETE',
          '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gpushare-webhook',
        )
      ).status,
    ).toBe(200);
    await plane().createNamespace('gpushare-system');
    const manifest = readFileSync(SHIPPED, 'utf8').replace(
      'caBundle: CA_BUNDLE_BASE64',
      `caBundle: ${Buffer.from(plane().caPem).toString('base64')}`,
    );
    const result = await plane().kubectl(['apply', '--dry-run=server', '--filename', '-'], { input: manifest });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/gpushare-webhook created (server dry run)',
      'service/gpushare-webhook created (server dry run)',
      'deployment.apps/gpushare-webhook created (server dry run)',
      'poddisruptionbudget.policy/gpushare-webhook created (server dry run)',
    ]);
    // As shipped, the placeholder is no valid base64: the configuration cannot be applied without a CA.
    const unfilled = await plane().kubectl(['apply', '--dry-run=server', '--filename', '-'], {
      input: readFileSync(SHIPPED, 'utf8'),
    });
    expect(unfilled.code).toBe(1);
    expect(unfilled.stderr).toContain(
      'Error from server (BadRequest): error when creating "STDIN": MutatingWebhookConfiguration in ' +
        'version "v1" cannot be handled as a MutatingWebhookConfiguration: illegal base64 data at input ' +
        'byte 2',
    );
  });
});

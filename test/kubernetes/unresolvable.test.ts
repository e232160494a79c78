/**
 * A request no node could ever hold, on the real control plane: `gpushare webhook` (with its
 * ServiceAccount under deploy/kubernetes/rbac-webhook.yaml, unchanged) admits it with a warning that
 * kubectl prints, and the extender's filter answers it as unresolvable on every node
 * (`fits-no-node`, naming the largest node), so the real kube-scheduler tries no preemption for it,
 * even with lower-priority pods on every node it could evict.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalCa, issueServerCert } from '../../src/adapters/tls/local-ca.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import {
  boundAssignment,
  create,
  failedSchedulingMessages,
  gpuPod,
  gpuRequest,
  listPods,
} from './support/gpu-workloads.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'gpushare');
const NS = 'team-a';
const A10_MIB = 24_576;

/** A pod of `request` with PriorityClass `priorityClassName`, on node `node` when given (node affinity). */
function prioritizedPod(
  name: string,
  request: ReturnType<typeof gpuRequest>,
  priorityClassName: string,
  node?: string,
): object {
  const pod = gpuPod(name, request) as { spec: object };
  const affinity =
    node === undefined
      ? {}
      : {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
              },
            },
          },
        };
  return { ...pod, spec: { ...pod.spec, priorityClassName, ...affinity } };
}

describe.skipIf(!kubernetesAvailable())('a request no node could ever hold, on the real control plane', () => {
  const plane = useControlPlane({ scheduler: false });
  let extender: Awaited<ReturnType<typeof startExtenderProcess>>;
  let webhook: ChildProcess | undefined;
  let webhookLog = '';
  const poll = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000) =>
    pollFor(what, check, timeoutMs);

  beforeAll(async () => {
    const p = plane();
    const applied = await p.kubectl([
      'apply',
      ...['namespace.yaml', 'rbac-extender.yaml', 'rbac-webhook.yaml'].flatMap((f) => ['--filename', join(DEPLOY, f)]),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
    const kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender');
    extender = await startExtenderProcess({ dir: p.dir, kubeconfig });
    await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
    await p.createNamespace(NS);
    await startWebhook();
    for (const [name, value] of [
      ['gpushare-low', 100],
      ['gpushare-high', 100_000],
    ] as const) {
      const res = await p.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name },
        value,
      });
      if (res.status !== 201) throw new Error(`create PriorityClass ${name}: ${res.status} ${res.text}`);
    }
  }, 240_000);

  afterAll(async () => {
    await extender?.kill();
    if (webhook !== undefined && webhook.exitCode === null) {
      const exited = new Promise((resolve) => webhook!.once('exit', resolve));
      webhook.kill('SIGTERM');
      await exited;
    }
  });

  /**
   * `gpushare webhook` with its ServiceAccount's kubeconfig (it watches the Nodes), on pods of the
   * test's namespace: the API server calls it on 127.0.0.1 with the test CA.
   */
  async function startWebhook(): Promise<void> {
    const p = plane();
    const ca = await createLocalCa('gpushare webhook test CA', Date.now());
    const cert = await issueServerCert(ca, ['127.0.0.1'], Date.now());
    writeFileSync(join(p.dir, 'webhook.crt'), cert.certPem);
    writeFileSync(join(p.dir, 'webhook.key'), cert.keyPem, { mode: 0o600 });
    const kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-webhook');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'webhook',
        '--kubeconfig',
        kubeconfig,
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--tls-cert',
        join(p.dir, 'webhook.crt'),
        '--tls-key',
        join(p.dir, 'webhook.key'),
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    webhook = child;
    child.stderr!.on('data', (c: Buffer) => (webhookLog += c.toString('utf8')));
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gpushare webhook did not listen:\n${webhookLog}`)), 60_000);
      child.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        const match = /listening on (https:\/\/[^\s)]+)/.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`gpushare webhook exited (${code}) before listening:\n${webhookLog}`));
      });
    });
    const created = await p.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'gpushare-webhook-test' },
      webhooks: [
        {
          name: 'pods.webhook.gpushare.io',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: `${url}/mutate`, caBundle: Buffer.from(ca.certPem).toString('base64') },
          rules: [
            { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' },
          ],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } },
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    });
    if (created.status !== 201)
      throw new Error(`create MutatingWebhookConfiguration: ${created.status} ${created.text}`);
  }

  it(
    'warns at admission of 3 GPUs on 2-GPU nodes, refuses them as unresolvable naming the largest node, and ' +
      'the scheduler evicts and nominates nothing',
    async () => {
      const p = plane();
      for (const name of ['gpu-b', 'gpu-a'])
        await p.createNode({
          name,
          gpuInventory: gpusOf(name, 2, 'A10', A10_MIB),
          labels: { 'gpushare.io/gpu-memory-mib': String(A10_MIB) },
          allocatable: {
            'gpushare.io/gpu': '2',
            'gpushare.io/gpu-milli': '2000',
            'gpushare.io/gpu-memory-mib': String(2 * A10_MIB),
            'gpushare.io/gpu-slot': '32',
          },
        });
      // A lower-priority whole-GPU pod on each node: victims the scheduler could evict.
      const whole = gpuRequest({ gpuMilli: 1000, mode: 'exclusive' });
      for (const [name, node] of [
        ['low-a', 'gpu-a'],
        ['low-b', 'gpu-b'],
      ] as const)
        await create(p, NS, prioritizedPod(name, whole, 'gpushare-low', node));
      const low = await poll('both low-priority pods bound', async () => {
        const pods = (await listPods(p, NS)).filter((x) => boundAssignment(x) !== null);
        return pods.length === 2 ? pods : undefined;
      });
      expect(low.map((x) => x.spec.nodeName).sort()).toEqual(['gpu-a', 'gpu-b']);

      // The pod as a user writes it: the webhook rewrites nvidia.com/gpu and warns, once its watch
      // has seen both nodes (a server-side dry run shows when).
      const threeGpus = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'three' },
        spec: {
          priorityClassName: 'gpushare-high',
          terminationGracePeriodSeconds: 0,
          containers: [
            { name: 'main', image: 'registry.invalid/none:1', resources: { limits: { 'nvidia.com/gpu': '3' } } },
          ],
        },
      });
      const warning =
        'Warning: gpushare: its pods stay Pending: no node could ever hold it, even empty (2 node(s)); the ' +
        'largest for it, gpu-a (2 GPU(s) A10 of up to 24576 MiB): only 2 of the 3 GPU(s) needed could hold its ' +
        'share (1000 milli-GPU in exclusive mode)\n';
      await poll(
        "both nodes in the webhook's watch",
        async () => {
          const dry = await p.kubectl(['create', '--dry-run=server', '--namespace', NS, '--filename', '-'], {
            input: threeGpus,
          });
          return dry.stderr === warning ? true : undefined;
        },
        30_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; webhook log:\n${webhookLog}`);
      });
      const created = await p.kubectl(['create', '--namespace', NS, '--filename', '-'], { input: threeGpus });
      process.stdout.write(`kubectl create of the 3-GPU pod: exit ${created.code}\n${created.stderr}${created.stdout}`);
      expect(created.code).toBe(0);
      expect(created.stderr).toBe(warning);
      const events = await poll('a FailedScheduling event for the 3-GPU pod', async () => {
        const messages = await failedSchedulingMessages(p, NS, 'three');
        return messages.length > 0 ? messages : undefined;
      });
      const expected =
        '0/2 nodes are available: 2 gpushare: no node could ever hold it, even empty (2 node(s)); the largest ' +
        'for it, gpu-a (2 GPU(s) A10 of up to 24576 MiB): only 2 of the 3 GPU(s) needed could hold its share ' +
        '(1000 milli-GPU in exclusive mode). preemption: 0/2 nodes are available: 2 Preemption is not helpful ' +
        'for scheduling.';
      process.stdout.write(`FailedScheduling event of the 3-GPU pod: ${events[0]}\n`);
      expect(events[0]).toBe(expected);
      // The scheduler records the event and patches the pod's condition one after the other.
      const pods = await poll("the 3-GPU pod's PodScheduled condition", async () => {
        const list = await listPods(p, NS);
        const condition = list
          .find((x) => x.metadata.name === 'three')
          ?.status?.conditions?.find((c) => c.type === 'PodScheduled');
        return condition?.message === undefined ? undefined : list;
      });
      const three = pods.find((x) => x.metadata.name === 'three')!;
      expect(three.spec.nodeName).toBeUndefined();
      expect(three.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
        status: 'False',
        reason: 'Unschedulable',
        message: expected,
      });
      // Nothing evicted, nothing nominated: both victims still bound, none being deleted.
      expect((three.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName).toBeUndefined();
      expect(
        pods
          .filter((x) => x.metadata.name.startsWith('low-'))
          .map((x) => [x.metadata.name, x.spec.nodeName !== undefined, x.metadata.deletionTimestamp ?? null])
          .sort(),
      ).toEqual([
        ['low-a', true, null],
        ['low-b', true, null],
      ]);
      const preempted = await p.request<{ items: unknown[] }>(
        'GET',
        `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent('reason=Preempted')}`,
      );
      expect(preempted.body?.items).toEqual([]);
    },
  );
});

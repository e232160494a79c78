/**
 * The Helm chart on the real control plane. The rendered chart (the autoscaler and the DRA driver
 * with its DeviceClasses on) passes a server-side dry run;
 * `helm install` creates every object; the components then run as local processes under the
 * ServiceAccounts, roles and certificates the chart created: the real `gpushare webhook`, which
 * kube-apiserver calls through the chart's Service and MutatingWebhookConfiguration (an HTTP
 * CONNECT egress proxy stands in for the cluster network, support/egress-proxy.ts), trusting the
 * chart's caBundle; the real `gpushare extender`, which kube-scheduler, configured with the stanza
 * NOTES.txt prints, calls with the chart's client certificate and which binds a GPU pod with an
 * assignment signed by the chart's key. The chart's assignment policy refuses anyone else writing
 * an assignment. `helm upgrade` keeps every certificate and the key, and the API server still
 * calls the webhook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POD_ANNOTATIONS } from '../../src/adapters/kubernetes/schema/names.js';
import { assignmentSigner } from '../../src/adapters/kubernetes/schema/assignment-signature.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { startEgressProxy, type EgressProxy } from './support/egress-proxy.js';
import { startExtenderProcess } from './support/gpushare-extender.js';
import { boundAssignment, create, gpuPod, gpuRequest, listPods } from './support/gpu-workloads.js';
import { CHART_DIR, helmAvailable, objectKeys, parseObjects, runHelm } from './support/helm.js';
import { kubeRequest, PATCH_TYPES } from './support/kube-client.js';
import { useControlPlane } from './support/use-control-plane.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'gpushare');
const SHIPPED_SCHEDULER_CONFIG = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes', 'scheduler-config.yaml');
const NAMESPACE = 'gpushare-system';
const RELEASE = 'gpushare';
const TENANT = 'team-a';
const GPU_NODE = 'gpu-node-1';
const EXTENDER_USER = `system:serviceaccount:${NAMESPACE}:gpushare-extender`;

interface Secret {
  data: Record<string, string>;
}
interface WebhookConfiguration {
  webhooks: { clientConfig: { caBundle: string; service: { name: string; namespace: string; port: number } } }[];
}
interface PodBody {
  spec: { containers: { resources: { limits?: Record<string, string> } }[] };
  metadata: { annotations?: Record<string, string> };
}

/** `gpushare webhook` as a child process; resolves once it listens. */
async function startWebhookProcess(
  args: readonly string[],
): Promise<{ port: number; child: ChildProcess; log: () => string }> {
  const child = spawn(process.execPath, [BIN, 'webhook', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gpushare webhook did not listen within 60 s:\n${stderr}`)),
      60_000,
    );
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const match = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gpushare webhook exited (${code}) before listening:\n${stderr}`));
    });
  });
  return { port, child, log: () => stderr };
}

/** The line kubectl prints for `object` after `verb`, e.g. `deployment.apps/gpushare-webhook created`. */
function kubectlLine(object: { apiVersion: string; kind: string; metadata: { name: string } }, verb: string): string {
  const group = object.apiVersion.includes('/') ? `.${object.apiVersion.split('/')[0]}` : '';
  return `${object.kind.toLowerCase()}${group}/${object.metadata.name} ${verb}`;
}

/** The scheduler stanza NOTES.txt prints, parsed. */
function notesStanza(notes: string): Record<string, unknown> {
  const match = /^# gpushare scheduler extender\n([\s\S]*?)^# end of the gpushare stanza$/m.exec(notes);
  if (match === null) throw new Error(`no scheduler stanza in the notes:\n${notes}`);
  const parsed = parse(match[1]!) as { extenders: Record<string, unknown>[] };
  return parsed.extenders[0]!;
}

function halfGpuPod(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [
        { name: 'main', image: 'registry.invalid/none:1', resources: { limits: { 'nvidia.com/gpu': '500m' } } },
      ],
    },
  };
}

describe.skipIf(!kubernetesAvailable() || !helmAvailable())('the Helm chart on the real control plane', () => {
  const apiServerArgs: string[] = [];
  let dir: string;
  let proxy: EgressProxy;
  // Registered before useControlPlane's: the proxy and its configuration exist when kube-apiserver starts.
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-helm-'));
    proxy = await startEgressProxy(dir);
    apiServerArgs.push(...proxy.apiServerArgs);
  });
  const plane = useControlPlane({ scheduler: false, apiServerArgs });
  const helm = (args: readonly string[]) => runHelm(args, { stateDir: dir, kubeconfig: plane().kubeconfigPath });
  const secret = async (name: string) =>
    (await plane().request<Secret>('GET', `/api/v1/namespaces/${NAMESPACE}/secrets/${name}`)).body.data;
  const writeSecretFiles = async (name: string): Promise<Record<'ca' | 'cert' | 'key', string>> => {
    const data = await secret(name);
    const files = { ca: join(dir, `${name}-ca.crt`), cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
    writeFileSync(files.ca, Buffer.from(data['ca.crt']!, 'base64'));
    writeFileSync(files.cert, Buffer.from(data['tls.crt']!, 'base64'));
    writeFileSync(files.key, Buffer.from(data['tls.key']!, 'base64'), { mode: 0o600 });
    return files;
  };
  let webhook: Awaited<ReturnType<typeof startWebhookProcess>> | undefined;
  let extender: Awaited<ReturnType<typeof startExtenderProcess>> | undefined;
  let notes = '';
  let assignmentKeyFile = '';

  afterAll(async () => {
    await extender?.kill();
    if (webhook !== undefined && webhook.child.exitCode === null) {
      const exited = new Promise((resolve) => webhook!.child.once('exit', resolve));
      webhook.child.kill('SIGTERM');
      await exited;
    }
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the rendered chart passes a server-side dry run', async () => {
    await plane().createNamespace(NAMESPACE);
    const rendered = await helm([
      'template',
      RELEASE,
      CHART_DIR,
      '--namespace',
      NAMESPACE,
      '--set',
      'autoscaler.enabled=true',
      '--set',
      'draDriver.enabled=true',
    ]);
    expect(rendered.code).toBe(0);
    const objects = parseObjects(rendered.stdout);
    const dryRun = await plane().kubectl(['apply', '--dry-run=server', '--filename', '-'], { input: rendered.stdout });
    expect(dryRun.stderr).toBe('');
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout.trim().split('\n').sort()).toEqual(
      objects.map((o) => kubectlLine(o, 'created (server dry run)')).sort(),
    );
  });

  it('helm install creates every object, and its notes give the scheduler stanza of deploy/kubernetes', async () => {
    const installed = await helm(['install', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--create-namespace']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('STATUS: deployed');
    notes = installed.stdout;
    const manifest = await helm(['get', 'manifest', RELEASE, '--namespace', NAMESPACE]);
    const objects = parseObjects(manifest.stdout);
    expect(objectKeys(objects)).toEqual([
      'ClusterRole /gpushare-extender',
      'ClusterRole /gpushare-node-agent',
      'ClusterRole /gpushare-webhook',
      'ClusterRoleBinding /gpushare-extender',
      'ClusterRoleBinding /gpushare-node-agent',
      'ClusterRoleBinding /gpushare-webhook',
      `DaemonSet ${NAMESPACE}/gpushare-node-agent`,
      `Deployment ${NAMESPACE}/gpushare-extender`,
      `Deployment ${NAMESPACE}/gpushare-webhook`,
      'MutatingWebhookConfiguration /gpushare-webhook',
      `PodDisruptionBudget ${NAMESPACE}/gpushare-webhook`,
      `Role ${NAMESPACE}/gpushare-extender-leader-election`,
      `RoleBinding ${NAMESPACE}/gpushare-extender-leader-election`,
      `Secret ${NAMESPACE}/gpushare-extender-assignment-key`,
      `Secret ${NAMESPACE}/gpushare-extender-tls`,
      `Secret ${NAMESPACE}/gpushare-scheduler-client-tls`,
      `Secret ${NAMESPACE}/gpushare-webhook-tls`,
      `Service ${NAMESPACE}/gpushare-extender`,
      `Service ${NAMESPACE}/gpushare-webhook`,
      `ServiceAccount ${NAMESPACE}/gpushare-extender`,
      `ServiceAccount ${NAMESPACE}/gpushare-node-agent`,
      `ServiceAccount ${NAMESPACE}/gpushare-webhook`,
      'ValidatingAdmissionPolicy /gpushare-assignment-writer',
      'ValidatingAdmissionPolicyBinding /gpushare-assignment-writer',
    ]);
    // Every object exists in the API server, with Helm's ownership annotations.
    const stored = await plane().kubectl(['get', '--filename', '-', '--output', 'json'], { input: manifest.stdout });
    expect(stored.code).toBe(0);
    const items = (JSON.parse(stored.stdout) as { items: { metadata: { annotations?: Record<string, string> } }[] })
      .items;
    expect(items.length).toBe(objects.length);
    for (const item of items) expect(item.metadata.annotations?.['meta.helm.sh/release-name']).toBe(RELEASE);

    const shipped = parse(readFileSync(SHIPPED_SCHEDULER_CONFIG, 'utf8')) as { extenders: Record<string, unknown>[] };
    expect(notesStanza(notes)).toEqual(shipped.extenders[0]);
  });

  it(
    "kube-apiserver calls the real webhook, run under the chart's ServiceAccount, " +
      "through the chart's Service, trusting its caBundle",
    async () => {
      const p = plane();
      await p.createNode({ name: GPU_NODE, labels: { 'gpushare.io/gpu-memory-mib': '81920' } });
      const tls = await writeSecretFiles('gpushare-webhook-tls');
      const kubeconfig = await p.serviceAccountKubeconfig(NAMESPACE, 'gpushare-webhook');
      webhook = await startWebhookProcess([
        '--host=127.0.0.1',
        '--port=0',
        `--tls-cert=${tls.cert}`,
        `--tls-key=${tls.key}`,
        `--kubeconfig=${kubeconfig}`,
      ]);
      const service = await p.request<{ spec: { clusterIP: string } }>(
        'GET',
        `/api/v1/namespaces/${NAMESPACE}/services/gpushare-webhook`,
      );
      const serviceAddress = `${service.body.spec.clusterIP}:443`;
      proxy.route(serviceAddress, webhook.port);
      await p.createNamespace(TENANT);
      // The API server alone refuses nvidia.com/gpu: 500m; through the webhook it becomes gpushare's request.
      const created = await pollFor(
        'the webhook to answer through the Service',
        async () => {
          const res = await p.request<PodBody>('POST', `/api/v1/namespaces/${TENANT}/pods`, halfGpuPod('half-1'));
          return res.status === 201 ? res : undefined;
        },
        60_000,
      );
      expect(created.body.spec.containers[0]!.resources.limits).toEqual({
        'gpushare.io/gpu-milli': '500',
        'gpushare.io/gpu-slot': '1',
      });
      expect(created.body.metadata.annotations?.['gpushare.io/gpu-milli']).toBe('500');
      expect(proxy.tunnels).toContain(serviceAddress);
      // More than the largest GPU's memory (the webhook's watch of the nodes, under its role) is refused.
      const tooBig = await p.request<{ message: string }>('POST', `/api/v1/namespaces/${TENANT}/pods?dryRun=All`, {
        ...halfGpuPod('too-big'),
        metadata: { name: 'too-big', annotations: { 'gpushare.io/gpu-memory-mib': '163840' } },
      });
      expect(tooBig.status).toBe(422);
      expect(tooBig.body.message).toContain('81920');
    },
  );

  it(
    "the real extender runs under the chart's ServiceAccount, certificates and assignment key " +
      'and binds for kube-scheduler configured from the notes',
    async () => {
      const p = plane();
      const serving = await writeSecretFiles('gpushare-extender-tls');
      const client = await writeSecretFiles('gpushare-scheduler-client-tls');
      // The key file as the Deployment mounts it (/etc/gpushare/assignment-key/key).
      assignmentKeyFile = join(dir, 'assignment-key');
      writeFileSync(assignmentKeyFile, Buffer.from((await secret('gpushare-extender-assignment-key')).key!, 'base64'), {
        mode: 0o600,
      });
      const kubeconfig = await p.serviceAccountKubeconfig(NAMESPACE, 'gpushare-extender');
      extender = await startExtenderProcess({
        dir,
        kubeconfig,
        assignmentKeyFile,
        tls: {
          certFile: serving.cert,
          keyFile: serving.key,
          caFile: serving.ca,
          clientCertFile: client.cert,
          clientKeyFile: client.key,
        },
      });
      // The stanza as printed, with the extender's local address; the certificate names the Service.
      const stanza = notesStanza(notes) as { tlsConfig: Record<string, string> } & Record<string, unknown>;
      const config = {
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: [{ schedulerName: 'default-scheduler' }],
        extenders: [
          {
            ...stanza,
            urlPrefix: extender.urlPrefix,
            tlsConfig: {
              caFile: serving.ca,
              certFile: client.cert,
              keyFile: client.key,
              serverName: `gpushare-extender.${NAMESPACE}.svc`,
            },
          },
        ],
      };
      const configPath = join(dir, 'scheduler-from-notes.yaml');
      writeFileSync(configPath, stringify(config));
      await p.restartScheduler({ configPath, identity: 'component' });
      await p.request(
        'PATCH',
        `/api/v1/nodes/${GPU_NODE}`,
        { metadata: { labels: { 'gpushare.io/managed': 'true' } } },
        PATCH_TYPES.merge,
      );
      await p.createNode({
        name: 'a100-node',
        gpuInventory: gpusOf('a100-node', 2),
        allocatable: {
          'gpushare.io/gpu': '2',
          'gpushare.io/gpu-milli': '2000',
          'gpushare.io/gpu-memory-mib': String(2 * 81_920),
          'gpushare.io/gpu-slot': '32',
        },
      });
      await create(p, TENANT, gpuPod('bind-me', gpuRequest({ gpuMilli: 500 })));
      const pod = await pollFor(
        'the extender to bind bind-me',
        async () =>
          (await listPods(p, TENANT)).find((x) => x.metadata.name === 'bind-me' && boundAssignment(x) !== null),
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nextender log:\n${extender!.log().split('\n').slice(-30).join('\n')}`);
      });
      expect(pod.spec.nodeName).toBe('a100-node');
      expect(boundAssignment(pod)!.gpus.map((g) => g.uuid)).toEqual(['GPU-a100-node-0']);
      // Signed with the chart's key, for this pod; the Binding that carried it passed the chart's policy.
      const signer = assignmentSigner(readFileSync(assignmentKeyFile));
      expect(signer.verify(pod.metadata.uid, boundAssignment(pod)!)).toBe(true);
      // It holds its Lease, in the release's namespace, under the chart's Role.
      const lease = await p.request<{ spec: { holderIdentity: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/gpushare-extender`,
      );
      expect(lease.status).toBe(200);
    },
  );

  it("the chart's policy refuses anyone but the extender writing an assignment through pods/status", async () => {
    const p = plane();
    const name = 'status-writer';
    const user = await p.serviceAccountCredentials(TENANT, name);
    const rbac = [
      [
        'roles',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name },
          rules: [{ apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] }],
        },
      ],
      [
        'rolebindings',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
          subjects: [{ kind: 'ServiceAccount', name, namespace: TENANT }],
        },
      ],
    ] as const;
    for (const [resource, body] of rbac)
      expect(
        (await p.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${TENANT}/${resource}`, body)).status,
      ).toBe(201);
    const path = `/api/v1/namespaces/${TENANT}/pods/bind-me/status`;
    const before = (await listPods(p, TENANT)).find((x) => x.metadata.name === 'bind-me')!;
    const patch = { metadata: { annotations: { [POD_ANNOTATIONS.assignment]: null } } };
    // RBAC allows the write (a label goes through); the policy alone refuses the annotation.
    const refused = await pollFor(
      'the role and the policy to apply',
      async () => {
        const res = await kubeRequest<{ message: string; reason: string }>(
          user,
          'PATCH',
          path,
          patch,
          PATCH_TYPES.merge,
        );
        return res.status === 403 && res.body?.message.includes('ValidatingAdmissionPolicy') ? res : undefined;
      },
      30_000,
    );
    expect([refused.status, refused.body?.reason, refused.body?.message]).toEqual([
      403,
      'Forbidden',
      `pods "bind-me" is forbidden: ValidatingAdmissionPolicy 'gpushare-assignment-writer' with binding ` +
        `'gpushare-assignment-writer' denied request: metadata.annotations[gpushare.io/assignment]: only the ` +
        `gpushare extender (${EXTENDER_USER}) may set, change or remove a pod's assignment ` +
        '(gpushare.io/assignment, gpushare.io/assigned-gpus), through pods, pods/status, pods/binding or bindings; ' +
        `system:serviceaccount:${TENANT}:${name} may not (pods/status UPDATE)`,
    ]);
    const label = await kubeRequest(
      user,
      'PATCH',
      path,
      { metadata: { labels: { checked: 'yes' } } },
      PATCH_TYPES.merge,
    );
    expect(label.status).toBe(200);
    const after = (await listPods(p, TENANT)).find((x) => x.metadata.name === 'bind-me')!;
    expect(after.metadata.annotations?.[POD_ANNOTATIONS.assignment]).toBe(
      before.metadata.annotations?.[POD_ANNOTATIONS.assignment],
    );
  });

  it("the node agent's ServiceAccount publishes its node and is refused the rest", async () => {
    const agent = await plane().serviceAccountCredentials(NAMESPACE, 'gpushare-node-agent');
    const status = await kubeRequest(
      agent,
      'PATCH',
      `/api/v1/nodes/${GPU_NODE}/status`,
      { status: { capacity: { 'gpushare.io/gpu-milli': '1000' }, allocatable: { 'gpushare.io/gpu-milli': '1000' } } },
      PATCH_TYPES.merge,
    );
    expect(status.status).toBe(200);
    expect((await kubeRequest(agent, 'GET', '/api/v1/nodes')).status).toBe(403);
    expect((await kubeRequest(agent, 'GET', `/api/v1/namespaces/${NAMESPACE}/secrets`)).status).toBe(403);
  });

  it(
    'helm upgrade keeps every certificate and the assignment key; ' +
      "the caBundle still verifies the webhook's and the API server still calls it",
    async () => {
      const names = [
        'gpushare-webhook-tls',
        'gpushare-extender-tls',
        'gpushare-scheduler-client-tls',
        'gpushare-extender-assignment-key',
      ];
      const before = await Promise.all(names.map(secret));
      const upgraded = await helm(['upgrade', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--set', 'logLevel=debug']);
      expect(upgraded.stderr).toBe('');
      expect(upgraded.code).toBe(0);
      expect(upgraded.stdout).toContain('REVISION: 2');
      expect(await Promise.all(names.map(secret))).toEqual(before);
      // The key the running extender signs with is still the Secret's, byte for byte.
      expect(Buffer.from(before[3]!.key!, 'base64').equals(readFileSync(assignmentKeyFile))).toBe(true);
      const deployment = await plane().request<{ spec: { template: { spec: { containers: { args: string[] }[] } } } }>(
        'GET',
        `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/gpushare-webhook`,
      );
      expect(deployment.body.spec.template.spec.containers[0]!.args).toContain('--log-level=debug');

      const configuration = await plane().request<WebhookConfiguration>(
        'GET',
        '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gpushare-webhook',
      );
      const ca = new X509Certificate(Buffer.from(configuration.body.webhooks[0]!.clientConfig.caBundle, 'base64'));
      const served = new X509Certificate(Buffer.from(before[0]!['tls.crt']!, 'base64'));
      expect(served.verify(ca.publicKey)).toBe(true);
      expect(served.checkHost(`gpushare-webhook.${NAMESPACE}.svc`)).toBe(`gpushare-webhook.${NAMESPACE}.svc`);

      const created = await plane().request<PodBody>('POST', `/api/v1/namespaces/${TENANT}/pods`, halfGpuPod('half-2'));
      expect(created.status).toBe(201);
      expect(created.body.spec.containers[0]!.resources.limits).toEqual({
        'gpushare.io/gpu-milli': '500',
        'gpushare.io/gpu-slot': '1',
      });
      // Every call went through the Service's address (the API server keeps its connection open).
      const service = await plane().request<{ spec: { clusterIP: string } }>(
        'GET',
        `/api/v1/namespaces/${NAMESPACE}/services/gpushare-webhook`,
      );
      expect([...new Set(proxy.tunnels)]).toEqual([`${service.body.spec.clusterIP}:443`]);
    },
  );
});

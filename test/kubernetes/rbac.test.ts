/**
 * The shipped RBAC (deploy/kubernetes/namespace.yaml, rbac-*.yaml) on the real API server: each
 * component's ServiceAccount token can make the calls its work needs and is refused (403) outside
 * its role; and kube-scheduler runs the shipped KubeSchedulerConfiguration under its own identity,
 * calling an extender over TLS that binds pods with the extender's ServiceAccount.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { POD_ANNOTATIONS } from '../../src/adapters/kubernetes/schema/names.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { startFakeExtender } from './support/fake-extender.js';
import { kubeRequest, PATCH_TYPES, type KubeCredentials } from './support/kube-client.js';
import { writeTestSchedulerConfig } from './support/scheduler-config.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const MANIFESTS = ['namespace.yaml', 'rbac-extender.yaml', 'rbac-webhook.yaml', 'rbac-node-agent.yaml'].map((f) =>
  join(DEPLOY, f),
);
const NAMESPACE = 'gpushare-system';
const TENANT = 'tenant-a';
const GPU_NODE = 'gpu-node-1';
const AGENT_NODE = 'gpu-node-2';
const GPU_RESOURCES = {
  'gpushare.io/gpu': '8',
  'gpushare.io/gpu-milli': '8000',
  'gpushare.io/gpu-memory-mib': '655360',
  'gpushare.io/gpu-slot': '110',
};

/** One API call and the status it must get. */
type Call = readonly [method: string, path: string, status: number, body?: unknown, contentType?: string];

interface PodStatus {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { nodeName?: string };
}

function podManifest(name: string, limits: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'registry.invalid/none:1', resources: { limits } }] },
  };
}

function binding(name: string, node: string, annotations: Record<string, string> = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: TENANT, annotations },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

async function expectCalls(credentials: KubeCredentials, calls: readonly Call[]): Promise<void> {
  for (const [method, path, status, body, contentType] of calls) {
    const res = await kubeRequest(credentials, method, path, body, contentType);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
  }
}

describe.skipIf(!kubernetesAvailable())(
  'the shipped RBAC and scheduler configuration on the real control plane',
  () => {
    const plane = useControlPlane({ scheduler: false });
    let applied = '';
    const account: Record<'extender' | 'webhook' | 'nodeAgent', KubeCredentials> = {} as Record<
      'extender' | 'webhook' | 'nodeAgent',
      KubeCredentials
    >;

    beforeAll(async () => {
      const result = await plane().kubectl(['apply', ...MANIFESTS.flatMap((file) => ['--filename', file])]);
      if (result.code !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
      applied = result.stdout;
      await plane().createNamespace(TENANT);
      await plane().createNode({ name: GPU_NODE, allocatable: GPU_RESOURCES });
      await plane().createNode({ name: AGENT_NODE, allocatable: GPU_RESOURCES });
      account.extender = await plane().serviceAccountCredentials(NAMESPACE, 'gpushare-extender');
      account.webhook = await plane().serviceAccountCredentials(NAMESPACE, 'gpushare-webhook');
      account.nodeAgent = await plane().serviceAccountCredentials(NAMESPACE, 'gpushare-node-agent');
    });

    it("kubectl applies the namespace and each component's ServiceAccount, role and binding", () => {
      expect(applied.trim().split('\n').sort()).toEqual([
        'clusterrole.rbac.authorization.k8s.io/gpushare-extender created',
        'clusterrole.rbac.authorization.k8s.io/gpushare-node-agent created',
        'clusterrole.rbac.authorization.k8s.io/gpushare-webhook created',
        'clusterrolebinding.rbac.authorization.k8s.io/gpushare-extender created',
        'clusterrolebinding.rbac.authorization.k8s.io/gpushare-node-agent created',
        'clusterrolebinding.rbac.authorization.k8s.io/gpushare-webhook created',
        'namespace/gpushare-system created',
        'role.rbac.authorization.k8s.io/gpushare-extender-leader-election created',
        'rolebinding.rbac.authorization.k8s.io/gpushare-extender-leader-election created',
        'serviceaccount/gpushare-extender created',
        'serviceaccount/gpushare-node-agent created',
        'serviceaccount/gpushare-webhook created',
      ]);
    });

    it('the extender reads pods and nodes, binds a pod with its assignment, and writes its Lease', async () => {
      expect(
        (await plane().request('POST', `/api/v1/namespaces/${TENANT}/pods`, podManifest('bind-me', {}))).status,
      ).toBe(201);
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'gpushare-extender' },
        spec: { holderIdentity: 'extender-0', leaseDurationSeconds: 15 },
      };
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`;
      await expectCalls(account.extender, [
        ['GET', '/api/v1/pods', 200],
        ['GET', '/api/v1/pods?watch=true&timeoutSeconds=1', 200],
        ['GET', `/api/v1/namespaces/${TENANT}/pods/bind-me`, 200],
        ['GET', '/api/v1/nodes', 200],
        ['GET', '/api/v1/nodes?watch=true&timeoutSeconds=1', 200],
        ['GET', `/api/v1/nodes/${GPU_NODE}`, 200],
        // The assignment goes onto the pod with its Binding; the extender may not patch pods.
        [
          'PATCH',
          `/api/v1/namespaces/${TENANT}/pods/bind-me`,
          403,
          { metadata: { annotations: { [POD_ANNOTATIONS.assignedGpus]: 'GPU-0' } } },
          PATCH_TYPES.merge,
        ],
        [
          'POST',
          `/api/v1/namespaces/${TENANT}/pods/bind-me/binding`,
          201,
          binding('bind-me', GPU_NODE, { [POD_ANNOTATIONS.assignedGpus]: 'GPU-0' }),
        ],
        ['POST', leases, 201, lease],
        // It writes Events: a Warning on a pod whose assignment it refuses to account.
        [
          'POST',
          `/api/v1/namespaces/${TENANT}/events`,
          201,
          {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name: 'bind-me.gpushare' },
            involvedObject: { kind: 'Pod', namespace: TENANT, name: 'bind-me' },
            reason: 'GpushareBound',
            message: 'bound',
            type: 'Normal',
          },
        ],
      ]);
      const held = await kubeRequest<{ metadata: { resourceVersion: string } }>(
        account.extender,
        'GET',
        `${leases}/gpushare-extender`,
      );
      expect(held.status).toBe(200);
      const renewed = {
        ...lease,
        metadata: { ...lease.metadata, resourceVersion: held.body.metadata.resourceVersion },
        spec: { ...lease.spec, holderIdentity: 'extender-1' },
      };
      await expectCalls(account.extender, [['PUT', `${leases}/gpushare-extender`, 200, renewed]]);
      const pod = await plane().request<PodStatus>('GET', `/api/v1/namespaces/${TENANT}/pods/bind-me`);
      expect(pod.body.spec.nodeName).toBe(GPU_NODE);
      expect(pod.body.metadata.annotations?.[POD_ANNOTATIONS.assignedGpus]).toBe('GPU-0');
    });

    it('the extender is refused outside its role', async () => {
      const denied = await kubeRequest<{ reason: string; message: string }>(
        account.extender,
        'DELETE',
        `/api/v1/nodes/${GPU_NODE}`,
      );
      expect(denied.status).toBe(403);
      expect(denied.body.reason).toBe('Forbidden');
      expect(denied.body.message).toBe(
        `nodes "${GPU_NODE}" is forbidden: User "system:serviceaccount:gpushare-system:gpushare-extender" ` +
          `cannot delete resource "nodes" in API group "" at the cluster scope`,
      );
      await expectCalls(account.extender, [
        ['GET', '/api/v1/secrets', 403],
        ['GET', `/api/v1/namespaces/${NAMESPACE}/secrets`, 403],
        ['POST', `/api/v1/namespaces/${TENANT}/pods`, 403, podManifest('sneaky', {})],
        ['DELETE', `/api/v1/namespaces/${TENANT}/pods/bind-me`, 403],
        ['PATCH', `/api/v1/nodes/${GPU_NODE}`, 403, { metadata: { labels: { x: 'y' } } }, PATCH_TYPES.merge],
        ['PATCH', `/api/v1/nodes/${GPU_NODE}/status`, 403, { status: {} }, PATCH_TYPES.merge],
        // Its Lease only: another name in its namespace, and any Lease elsewhere, are refused.
        ['GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/someone-else`, 403],
        ['GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', 403],
        [
          'POST',
          '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
          403,
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'gpushare-extender' } },
        ],
      ]);
    });

    it('the webhook reads nodes and nothing else', async () => {
      await expectCalls(account.webhook, [
        ['GET', '/api/v1/nodes', 200],
        ['GET', '/api/v1/nodes?watch=true&timeoutSeconds=1', 200],
        ['GET', `/api/v1/nodes/${GPU_NODE}`, 200],
        ['GET', '/api/v1/pods', 403],
        ['GET', `/api/v1/namespaces/${TENANT}/pods/bind-me`, 403],
        ['GET', '/api/v1/secrets', 403],
        ['GET', `/api/v1/namespaces/${NAMESPACE}/secrets`, 403],
        ['PATCH', `/api/v1/nodes/${GPU_NODE}`, 403, { metadata: { labels: { x: 'y' } } }, PATCH_TYPES.merge],
        ['POST', `/api/v1/namespaces/${TENANT}/pods/bind-me/binding`, 403, binding('bind-me', GPU_NODE)],
      ]);
    });

    it("the node agent reads pods, publishes its node's labels and resources, and is refused the rest", async () => {
      expect(
        (await plane().request('POST', `/api/v1/namespaces/${TENANT}/pods`, podManifest('not-bound', {}))).status,
      ).toBe(201);
      await expectCalls(account.nodeAgent, [
        ['GET', `/api/v1/namespaces/${TENANT}/pods/bind-me`, 200],
        ['GET', '/api/v1/pods', 403],
        ['GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${AGENT_NODE}&watch=true&timeoutSeconds=1`, 403],
        [
          'PATCH',
          `/api/v1/nodes/${AGENT_NODE}`,
          200,
          { metadata: { labels: { 'gpushare.io/managed': 'true' } } },
          PATCH_TYPES.merge,
        ],
        [
          'PATCH',
          `/api/v1/nodes/${AGENT_NODE}/status`,
          200,
          {
            status: { capacity: { 'gpushare.io/gpu-milli': '4000' }, allocatable: { 'gpushare.io/gpu-milli': '4000' } },
          },
          PATCH_TYPES.merge,
        ],
        ['GET', '/api/v1/nodes', 403],
        ['DELETE', `/api/v1/nodes/${AGENT_NODE}`, 403],
        ['POST', `/api/v1/namespaces/${TENANT}/pods/not-bound/binding`, 403, binding('not-bound', AGENT_NODE)],
        [
          'PATCH',
          `/api/v1/namespaces/${TENANT}/pods/bind-me`,
          403,
          { metadata: { annotations: { x: 'y' } } },
          PATCH_TYPES.merge,
        ],
        ['DELETE', `/api/v1/namespaces/${TENANT}/pods/bind-me`, 403],
        ['GET', '/api/v1/secrets', 403],
      ]);
      const node = await plane().request<{
        metadata: { labels: Record<string, string> };
        status: { allocatable: Record<string, string> };
      }>('GET', `/api/v1/nodes/${AGENT_NODE}`);
      expect(node.body.metadata.labels['gpushare.io/managed']).toBe('true');
      expect(node.body.status.allocatable['gpushare.io/gpu-milli']).toBe('4k');
    });

    it('kubectl auth can-i agrees, for each ServiceAccount', async () => {
      const checks: [account: string, args: string[], answer: 'yes' | 'no'][] = [
        ['gpushare-extender', ['create', 'pods', '--subresource=binding', '--namespace', TENANT], 'yes'],
        ['gpushare-extender', ['patch', 'pods', '--namespace', TENANT], 'no'],
        ['gpushare-extender', ['update', 'leases/gpushare-extender', '--namespace', NAMESPACE], 'yes'],
        ['gpushare-extender', ['delete', 'nodes'], 'no'],
        ['gpushare-webhook', ['watch', 'nodes'], 'yes'],
        ['gpushare-webhook', ['list', 'secrets', '--namespace', NAMESPACE], 'no'],
        ['gpushare-node-agent', ['patch', 'nodes', '--subresource=status'], 'yes'],
        ['gpushare-node-agent', ['create', 'pods', '--subresource=binding', '--namespace', TENANT], 'no'],
        ['gpushare-node-agent', ['list', 'nodes'], 'no'],
        ['gpushare-node-agent', ['get', 'pods', '--namespace', TENANT], 'yes'],
        ['gpushare-node-agent', ['list', 'pods', '--namespace', TENANT], 'no'],
        ['gpushare-extender', ['create', 'events', '--namespace', TENANT], 'yes'],
        ['gpushare-extender', ['delete', 'events', '--namespace', TENANT], 'no'],
      ];
      for (const [name, args, answer] of checks) {
        const result = await plane().kubectl([
          'auth',
          'can-i',
          ...args,
          `--as=system:serviceaccount:${NAMESPACE}:${name}`,
        ]);
        expect(`${name} ${args.join(' ')}: ${result.stdout.trim()}`).toBe(`${name} ${args.join(' ')}: ${answer}`);
        expect(result.code).toBe(answer === 'yes' ? 0 : 1);
      }
    });

    it(
      'kube-scheduler runs the shipped configuration as system:kube-scheduler; the extender binds ' +
        'over TLS with its ServiceAccount',
      async () => {
        const extender = await startFakeExtender(join(plane().dir, 'extender-ca.crt'), account.extender, {
          [POD_ANNOTATIONS.assignedGpus]: 'GPU-from-extender',
        });
        try {
          const configPath = join(plane().dir, 'shipped-scheduler-config.yaml');
          writeTestSchedulerConfig(configPath, extender.urlPrefix, extender.caFile);
          await plane().restartScheduler({ configPath, identity: 'component' });
          const configz = await kubeRequest<{
            componentconfig: { extenders: Record<string, unknown>[]; profiles: { schedulerName: string }[] };
          }>({ ...plane().admin, serverUrl: plane().schedulerUrl }, 'GET', '/configz');
          expect(configz.status).toBe(200);
          expect(configz.body.componentconfig.profiles.map((p) => p.schedulerName)).toEqual(['default-scheduler']);
          // As loaded (false and empty fields are left out): the shipped stanza with the test's URL and CA.
          expect(configz.body.componentconfig.extenders).toEqual([
            {
              urlPrefix: extender.urlPrefix,
              filterVerb: 'filter',
              prioritizeVerb: 'prioritize',
              weight: 10,
              bindVerb: 'bind',
              enableHTTPS: true,
              tlsConfig: { caFile: extender.caFile },
              httpTimeout: '30s',
              nodeCacheCapable: true,
              managedResources: [
                { name: 'gpushare.io/gpu-slot' },
                { name: 'gpushare.io/gpu', ignoredByScheduler: true },
                { name: 'gpushare.io/gpu-milli', ignoredByScheduler: true },
                { name: 'gpushare.io/gpu-memory-mib', ignoredByScheduler: true },
              ],
            },
          ]);

          expect(
            (
              await plane().request(
                'POST',
                `/api/v1/namespaces/${TENANT}/pods`,
                podManifest('half-gpu', { 'gpushare.io/gpu-milli': '500', 'gpushare.io/gpu-slot': '1' }),
              )
            ).status,
          ).toBe(201);
          expect(
            (await plane().request('POST', `/api/v1/namespaces/${TENANT}/pods`, podManifest('plain', { cpu: '1' })))
              .status,
          ).toBe(201);
          const bound = async (name: string) => {
            const pod = await plane().request<PodStatus>('GET', `/api/v1/namespaces/${TENANT}/pods/${name}`);
            return pod.body.spec.nodeName === undefined ? undefined : pod.body;
          };
          const halfGpu = await pollFor('the extender to bind half-gpu', () => bound('half-gpu'), 60_000);
          const plain = await pollFor('kube-scheduler to bind plain', () => bound('plain'), 60_000);

          expect(extender.bindErrors).toEqual([]);
          expect([GPU_NODE, AGENT_NODE]).toContain(halfGpu.spec.nodeName);
          expect(halfGpu.metadata.annotations?.[POD_ANNOTATIONS.assignedGpus]).toBe('GPU-from-extender');
          expect([GPU_NODE, AGENT_NODE]).toContain(plain.spec.nodeName);
          expect(plain.metadata.annotations?.[POD_ANNOTATIONS.assignedGpus]).toBeUndefined();
          // Only the pod with a managed resource reached the extender, by node names (nodeCacheCapable).
          const podOf = (body: Record<string, unknown>) =>
            (body.Pod as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? body.PodName;
          expect(extender.calls.map((c) => `${c.verb} ${String(podOf(c.body))}`)).toEqual([
            'filter half-gpu',
            'prioritize half-gpu',
            'bind half-gpu',
          ]);
          const filter = extender.calls[0]!.body;
          expect(filter.Nodes).toBeNull();
          expect([...(filter.NodeNames as string[])].sort()).toEqual([GPU_NODE, AGENT_NODE]);
          expect(extender.calls[2]!.body).toMatchObject({
            PodName: 'half-gpu',
            PodNamespace: TENANT,
            Node: halfGpu.spec.nodeName,
          });
        } finally {
          await extender.close();
        }
      },
    );

    it('kube-scheduler also runs with a ServiceAccount token bound to its bootstrap roles', async () => {
      await plane().restartScheduler({ identity: 'serviceAccount' });
      expect(
        (await plane().request('POST', `/api/v1/namespaces/${TENANT}/pods`, podManifest('plain-2', { cpu: '1' })))
          .status,
      ).toBe(201);
      const pod = await pollFor(
        'kube-scheduler (ServiceAccount) to bind plain-2',
        async () => {
          const res = await plane().request<PodStatus>('GET', `/api/v1/namespaces/${TENANT}/pods/plain-2`);
          return res.body.spec.nodeName;
        },
        60_000,
      );
      expect([GPU_NODE, AGENT_NODE]).toContain(pod);
    });
  },
);

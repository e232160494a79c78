/**
 * The test control plane itself (support/control-plane.ts): the skip-or-fail rule when the
 * binaries are missing; and a start that makes Deployments into bound pods on a created Node,
 * finishes pod deletions as a kubelet would, and a stop that leaves no process and no folder.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { pollFor } from '../e2e/support/serve-harness.js';
import { binaryPath, kubernetesAvailable, kubernetesDir } from './support/binaries.js';
import { startControlPlane } from './support/control-plane.js';
import { PATCH_TYPES } from './support/kube-client.js';
import { processesNaming } from '../support/local-process.js';

interface PodList {
  items: { metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string } }[];
}

describe('where the components come from', () => {
  it("reads GPUSHARE_KUBERNETES_DIR, else the build script's cache folder", () => {
    expect(kubernetesDir({ GPUSHARE_KUBERNETES_DIR: '/opt/k8s' })).toBe('/opt/k8s');
    expect(binaryPath('kube-apiserver', { GPUSHARE_KUBERNETES_DIR: '/opt/k8s' })).toBe('/opt/k8s/kube-apiserver');
    expect(kubernetesDir({ HOME: '/ignored' })).toMatch(/\/\.cache\/gpushare\/kubernetes\/v1\.37\.2$/);
  });

  it('skips without the binaries, and fails under GPUSHARE_REQUIRE_TOOLS=1', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(kubernetesAvailable({ GPUSHARE_KUBERNETES_DIR: '/nonexistent/k8s' })).toBe(false);
      expect(write).toHaveBeenCalledWith(
        'skipped: /nonexistent/k8s/etcd not found; install it with: scripts/build-kubernetes.sh\n',
      );
    } finally {
      write.mockRestore();
    }
    expect(() =>
      kubernetesAvailable({ GPUSHARE_KUBERNETES_DIR: '/nonexistent/k8s', GPUSHARE_REQUIRE_TOOLS: '1' }),
    ).toThrow(
      '/nonexistent/k8s/etcd not found; install it with: scripts/build-kubernetes.sh (required because ' +
        'GPUSHARE_REQUIRE_TOOLS=1)',
    );
  });
});

describe.skipIf(!kubernetesAvailable())('the test control plane', () => {
  it("binds a Deployment's pods to a created Node, finishes their deletion, and stops every process", async () => {
    const plane = await startControlPlane();
    const dir = plane.dir;
    try {
      process.stdout.write(`control plane up in ${plane.timings.totalMs} ms: ${JSON.stringify(plane.timings)}\n`);
      expect(processesNaming(dir)).toHaveLength(4);
      const node = await plane.createNode({
        name: 'node-a',
        allocatable: { 'gpushare.io/gpu-milli': '1000' },
        labels: { 'gpushare.io/managed': 'true' },
      });
      expect(node.spec?.taints).toBeUndefined();
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(node.status?.allocatable?.['gpushare.io/gpu-milli']).toBe('1k');
      expect(node.metadata.labels?.['gpushare.io/managed']).toBe('true');

      await plane.createNamespace('team');
      const rootCa = await plane.request<{ data: Record<string, string> }>(
        'GET',
        '/api/v1/namespaces/team/configmaps/kube-root-ca.crt',
      );
      expect(rootCa.body.data['ca.crt']).toBe(plane.caPem);
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'tenths' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'tenths' } },
          template: {
            metadata: { labels: { app: 'tenths' } },
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'registry.invalid/none:1',
                  resources: { limits: { 'gpushare.io/gpu-milli': '300' } },
                },
              ],
            },
          },
        },
      };
      const created = Date.now();
      expect((await plane.request('POST', '/apis/apps/v1/namespaces/team/deployments', deployment)).status).toBe(201);
      const pods = async () => (await plane.request<PodList>('GET', '/api/v1/namespaces/team/pods')).body.items;
      const bound = await pollFor(
        '3 bound pods',
        async () => {
          const all = await pods();
          return all.length === 3 && all.every((p) => p.spec.nodeName === 'node-a') ? all : undefined;
        },
        60_000,
      );
      process.stdout.write(`Deployment of 3 pods bound in ${Date.now() - created} ms\n`);

      // A deleted pod (default grace period) is gone, and its ReplicaSet's replacement cannot fit
      // until it is: 4 × 300 milli-GPU > 1000.
      const victim = bound[0]!.metadata.name;
      expect((await plane.request('DELETE', `/api/v1/namespaces/team/pods/${victim}`)).status).toBe(200);
      const after = await pollFor(
        'the deleted pod gone and its replacement bound',
        async () => {
          const all = await pods();
          return all.length === 3 && all.every((p) => p.spec.nodeName === 'node-a' && p.metadata.name !== victim)
            ? all
            : undefined;
        },
        30_000,
      );
      expect(after.map((p) => p.metadata.name)).not.toContain(victim);

      expect(
        (
          await plane.request(
            'PATCH',
            '/apis/apps/v1/namespaces/team/deployments/tenths',
            { spec: { replicas: 0 } },
            PATCH_TYPES.merge,
          )
        ).status,
      ).toBe(200);
      await pollFor(
        'every pod gone after scaling to 0',
        async () => ((await pods()).length === 0 ? true : undefined),
        30_000,
      );

      const kubectl = await plane.kubectl(['get', 'nodes', '--output=jsonpath={.items[*].metadata.name}']);
      expect(kubectl).toEqual({ code: 0, stdout: 'node-a', stderr: '' });
    } finally {
      const stopping = Date.now();
      await plane.stop();
      process.stdout.write(`control plane stopped in ${Date.now() - stopping} ms\n`);
    }
    expect(processesNaming(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});

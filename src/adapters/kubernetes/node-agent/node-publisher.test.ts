import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InventoryGpu } from '../schema/node-inventory.js';
import { createApiPodSource } from './api-pod-source.js';
import { createClientNodePatcher, publishNodeInventory } from './node-publisher.js';

interface Recorded {
  method: string;
  url: string;
  contentType: string | undefined;
  body: unknown;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
  });
}

describe('node publisher and pod source over @kubernetes/client-node', () => {
  let server: Server;
  let kubeConfig: KubeConfig;
  const requests: Recorded[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((text) => {
        requests.push({
          method: req.method!,
          url: req.url!,
          contentType: req.headers['content-type'],
          body: text === '' ? null : JSON.parse(text),
        });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/v1/namespaces/team-a/pods/job-1') {
          res.end(
            JSON.stringify({
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'job-1', namespace: 'team-a', annotations: { 'gpushare.io/assignment': '{}' } },
            }),
          );
        } else if (req.url!.startsWith('/api/v1/namespaces/')) {
          res.statusCode = 404;
          res.end(
            JSON.stringify({ apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 }),
          );
        } else {
          res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'gpu-node-a' } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        { name: 'test', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'agent', token: 'node-agent-token' }],
      contexts: [{ name: 'test', cluster: 'test', user: 'agent' }],
      currentContext: 'test',
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('merge-patches the node metadata, then its status', async () => {
    requests.length = 0;
    const gpus: InventoryGpu[] = [
      { index: 0, uuid: 'GPU-0', model: 'T4', gpuMemoryMiB: 15360, healthy: true, migEnabled: false, migInstances: [] },
    ];
    await publishNodeInventory(createClientNodePatcher(kubeConfig), 'gpu-node-a', gpus);
    expect(requests.map((r) => [r.method, r.url, r.contentType])).toEqual([
      ['PATCH', '/api/v1/nodes/gpu-node-a?fieldManager=gpushare-node-agent', 'application/merge-patch+json'],
      ['PATCH', '/api/v1/nodes/gpu-node-a/status?fieldManager=gpushare-node-agent', 'application/merge-patch+json'],
    ]);
    expect(requests[1]!.body).toEqual({
      status: {
        capacity: { 'gpushare.io/gpu': '1', 'gpushare.io/gpu-milli': '1000', 'gpushare.io/gpu-memory-mib': '15360' },
        allocatable: { 'gpushare.io/gpu': '1', 'gpushare.io/gpu-milli': '1000', 'gpushare.io/gpu-memory-mib': '15360' },
      },
    });
    expect(
      (requests[0]!.body as { metadata: { labels: Record<string, string> } }).metadata.labels['gpushare.io/gpu-model'],
    ).toBe('T4');
  });

  it("reads a pod's annotations, and null for a pod that does not exist", async () => {
    const pods = createApiPodSource(kubeConfig);
    expect(await pods.getPod('team-a', 'job-1')).toEqual({ annotations: { 'gpushare.io/assignment': '{}' } });
    expect(await pods.getPod('team-a', 'gone')).toBeNull();
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../process/wait-until.js';
import { fixedNodeGpuMemory, nodeLabelGpuMemoryMiB } from './node-gpu-memory.js';
import { watchNodeGpuMemory, type NodeGpuMemoryWatch } from './node-gpu-memory-watch.js';
import { WAIT_MS } from '../../../testing/deadlines.js';
import type { JobRequest } from '../../../core/index.js';
import { formatInventory } from '../schema/node-inventory.js';
import { gpusOf } from '../testing/kube-fixtures.js';

/**
 * A stand-in for the API server's node list and watch on 127.0.0.1 (plain HTTP): lists `nodes`,
 * answers the first `failWatches` watches with 500, then holds each watch open for `push`.
 */
class FakeNodeApi {
  readonly requests: string[] = [];
  private watches: ServerResponse[] = [];
  private server: Server;
  failWatches = 0;

  constructor(private readonly nodes: { name: string; mib?: string; gpus?: number }[]) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get openWatches(): number {
    return this.watches.filter((w) => !w.writableEnded && !w.destroyed).length;
  }

  push(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    name: string,
    mib: string | undefined,
    resourceVersion: string,
    gpus?: number,
  ): void {
    const line = `${JSON.stringify({ type, object: nodeOf(name, mib, resourceVersion, gpus) })}\n`;
    for (const w of this.watches) if (!w.writableEnded && !w.destroyed) w.write(line);
  }

  async stop(): Promise<void> {
    for (const w of this.watches) w.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/nodes') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      if (this.failWatches > 0) {
        this.failWatches -= 1;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"kind":"Status","code":500}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      this.watches.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: '10' },
        items: this.nodes.map((n) => nodeOf(n.name, n.mib, '5', n.gpus)),
      }),
    );
  }
}

/** A Node with the label `mib` and, when `gpus` is given, an inventory of that many A10 GPUs. */
function nodeOf(name: string, mib: string | undefined, resourceVersion: string, gpus?: number): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      resourceVersion,
      labels: mib === undefined ? {} : { 'gpushare.io/gpu-memory-mib': mib },
      ...(gpus === undefined
        ? {}
        : { annotations: { 'gpushare.io/gpus': formatInventory(gpusOf(name, gpus, 'A10', 24_576)) } }),
    },
  };
}

function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: true }],
    users: [{ name: 'webhook', token: 'test-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'webhook' }],
    currentContext: 'fake',
  });
  return kc;
}

let api: FakeNodeApi | undefined;
let watch: NodeGpuMemoryWatch | undefined;
afterEach(async () => {
  await watch?.stop();
  await api?.stop();
  watch = undefined;
  api = undefined;
});

describe('NodeGpuMemory', () => {
  it('reads a node label as a positive whole number of MiB', () => {
    expect([
      nodeLabelGpuMemoryMiB('81920'),
      nodeLabelGpuMemoryMiB('0'),
      nodeLabelGpuMemoryMiB('80Gi'),
      nodeLabelGpuMemoryMiB(undefined),
    ]).toEqual([81920, null, null, null]);
    expect(fixedNodeGpuMemory(40960).maxGpuMemoryMiB()).toBe(40960);
  });

  it('lists and watches labelled nodes: the largest value, updated, deleted, malformed ignored', async () => {
    api = new FakeNodeApi([
      { name: 'a100-1', mib: '81920' },
      { name: 'a10-1', mib: '24576' },
      { name: 'odd', mib: 'lots' },
    ]);
    const server = await api.start();
    watch = watchNodeGpuMemory(kubeConfigFor(server), pino({ level: 'silent' }));
    await watch.synced;
    expect(watch.maxGpuMemoryMiB()).toBe(81920);
    expect(api.requests[0]).toBe('/api/v1/nodes?labelSelector=gpushare.io%2Fgpu-memory-mib');
    expect(await waitUntil(() => api!.openWatches === 1, WAIT_MS)).toBe(true);
    expect(api.requests[1]).toBe(
      '/api/v1/nodes?watch=true&resourceVersion=10&labelSelector=gpushare.io%2Fgpu-memory-mib',
    );

    api.push('ADDED', 'h200-1', '143771', '11');
    expect(await waitUntil(() => watch!.maxGpuMemoryMiB() === 143771, WAIT_MS)).toBe(true);
    api.push('MODIFIED', 'h200-1', 'broken', '12');
    expect(await waitUntil(() => watch!.maxGpuMemoryMiB() === 81920, WAIT_MS)).toBe(true);
    api.push('DELETED', 'a100-1', '81920', '13');
    expect(await waitUntil(() => watch!.maxGpuMemoryMiB() === 24576, WAIT_MS)).toBe(true);
    api.push('DELETED', 'a10-1', '24576', '14');
    expect(await waitUntil(() => watch!.maxGpuMemoryMiB() === null, WAIT_MS)).toBe(true);
  });

  it("keeps the nodes' capacity from their inventories: 3 GPUs fit no 2-GPU node until a 4-GPU one joins", async () => {
    api = new FakeNodeApi([
      { name: 'a10-1', mib: '24576', gpus: 2 },
      { name: 'a10-2', mib: '24576', gpus: 2 },
      { name: 'no-inventory', mib: '24576' },
    ]);
    const server = await api.start();
    watch = watchNodeGpuMemory(kubeConfigFor(server), pino({ level: 'silent' }));
    await watch.synced;
    const three: JobRequest = {
      id: 0,
      tenant: '',
      priority: 0,
      submittedAtMs: 0,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: { gpuCount: 3, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' },
    };
    const largest = (): string | null => {
      const verdict = watch!.capacity!()?.verdict(three) ?? null;
      return verdict === null ? null : (verdict.details.largestNode as { node: string }).node;
    };
    expect(largest()).toBe('a10-1');
    expect(await waitUntil(() => api!.openWatches === 1, WAIT_MS)).toBe(true);
    api.push('ADDED', 'a10-4', '24576', '11', 4);
    expect(await waitUntil(() => largest() === null, WAIT_MS)).toBe(true);
    api.push('DELETED', 'a10-4', '24576', '12', 4);
    expect(await waitUntil(() => largest() === 'a10-1', WAIT_MS)).toBe(true);
  });

  it('starts the watch again after it fails', async () => {
    api = new FakeNodeApi([{ name: 'a100-1', mib: '81920' }]);
    api.failWatches = 1;
    const server = await api.start();
    watch = watchNodeGpuMemory(kubeConfigFor(server), pino({ level: 'silent' }));
    await watch.synced;
    // The first watch fails; the next one, a second later, stays open.
    expect(await waitUntil(() => api!.openWatches === 1, WAIT_MS)).toBe(true);
    expect(api.requests.filter((r) => r.includes('watch=true')).length).toBe(2);
    api.push('ADDED', 'h100-1', '97871', '11');
    expect(await waitUntil(() => watch!.maxGpuMemoryMiB() === 97871, WAIT_MS)).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ClusterView } from './cluster-view.js';
import { buildExtenderServer } from './extender-server.js';
import { PodBinder } from './pod-binder.js';
import { FakeKubeApi } from '../testing/fake-kube-api.js';
import { gpuNode, gpuPod, gpusOf } from '../testing/kube-fixtures.js';

let app: FastifyInstance | null = null;

afterEach(async () => {
  await app?.close();
  app = null;
});

/** The server over a view of n1 (one GPU) and n2 (two), with metrics that record every call. */
function server(notReady: () => string | null = () => null) {
  const view = new ClusterView();
  view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
  view.upsertNode(gpuNode('n2', gpusOf('n2', 2)));
  const api = new FakeKubeApi();
  const observed: string[] = [];
  const metrics = {
    registry: { contentType: 'text/plain; version=0.0.4', metrics: async () => 'gpushare_extender_up 1\n' },
    observe: (verb: string, outcome: string) => void observed.push(`${verb} ${outcome}`),
  };
  app = buildExtenderServer({ view, binder: new PodBinder(view, api), metrics, notReady });
  return { app, view, api, observed };
}

const post = (instance: FastifyInstance, url: string, payload: unknown) =>
  instance.inject({ method: 'POST', url, payload: payload as object });

describe('the extender server', () => {
  it('filters, prioritizes and binds a pod through the verbs', async () => {
    const { app, view, api, observed } = server();
    const pod = gpuPod('x', { gpuCount: 2, gpuMilli: 1000, mode: 'exclusive' });
    view.upsertPod(pod);
    api.addPod(pod);
    const filtered = await post(app, '/scheduler/filter', { Pod: pod, NodeNames: ['n1', 'n2', 'cpu'] });
    expect(filtered.statusCode).toBe(200);
    expect(filtered.json()).toEqual({
      Nodes: null,
      NodeNames: ['n2'],
      FailedNodes: {},
      FailedAndUnresolvableNodes: {
        // One GPU: even empty, n1 never holds two.
        n1:
          'gpushare: even empty, this node could not hold it: only 1 of the 2 GPU(s) needed could hold its ' +
          'share (1000 milli-GPU in exclusive mode)',
        cpu: 'gpushare: not a gpushare node (no gpushare.io/gpus annotation from the node agent)',
      },
      Error: '',
    });
    const prioritized = await post(app, '/scheduler/prioritize', { Pod: pod, NodeNames: ['n2'] });
    expect(prioritized.json()).toEqual([{ Host: 'n2', Score: 10 }]);
    const bound = await post(app, '/scheduler/bind', {
      PodName: 'pod-x',
      PodNamespace: 'team-a',
      PodUID: 'x',
      Node: 'n2',
    });
    expect(bound.json()).toEqual({ Error: '' });
    expect(api.pod('team-a', 'pod-x')!.metadata!.annotations!['gpushare.io/assigned-gpus']).toBe('GPU-n2-0,GPU-n2-1');
    expect(observed).toEqual(['filter ok', 'prioritize ok', 'bind ok']);
  });

  it('answers a bind that fails with its Error, status 200', async () => {
    const { app, observed } = server();
    const bound = await post(app, '/scheduler/bind', {
      PodName: 'pod-y',
      PodNamespace: 'team-a',
      PodUID: 'y',
      Node: 'n1',
    });
    expect(bound.statusCode).toBe(200);
    expect(bound.json()).toEqual({ Error: "pod y is not in the extender's view yet" });
    expect(observed).toEqual(['bind error']);
  });

  it('refuses a malformed body with 400 and the field', async () => {
    const { app } = server();
    const filtered = await post(app, '/scheduler/filter', { Pod: {}, NodeNames: [] });
    expect(filtered.statusCode).toBe(400);
    expect(filtered.json()).toEqual({ Error: 'ExtenderArgs.Pod.metadata.uid: expected a non-empty string' });
    const bound = await post(app, '/scheduler/bind', { PodName: 'p' });
    expect(bound.statusCode).toBe(400);
    expect(bound.json()).toEqual({ Error: 'ExtenderBindingArgs.PodNamespace: Required' });
  });

  it('answers every verb with why it is not ready, and /readyz with 503', async () => {
    const { app, observed } = server(() => 'the cache is not synced yet');
    const pod = gpuPod('x', { gpuMilli: 500, mode: 'mps' });
    expect((await post(app, '/scheduler/filter', { Pod: pod, NodeNames: ['n1'] })).json()).toEqual({
      Nodes: null,
      NodeNames: null,
      FailedNodes: {},
      FailedAndUnresolvableNodes: {},
      Error: 'gpushare extender: the cache is not synced yet',
    });
    const prioritized = await post(app, '/scheduler/prioritize', { Pod: pod, NodeNames: ['n1'] });
    expect([prioritized.statusCode, prioritized.json()]).toEqual([
      503,
      { Error: 'gpushare extender: the cache is not synced yet' },
    ]);
    const bound = await post(app, '/scheduler/bind', {
      PodName: 'pod-x',
      PodNamespace: 'team-a',
      PodUID: 'x',
      Node: 'n1',
    });
    expect(bound.json()).toEqual({ Error: 'gpushare extender: the cache is not synced yet' });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([
      503,
      { status: 'not ready', reason: 'the cache is not synced yet' },
    ]);
    expect(observed).toEqual(['filter error']);
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const { app } = server();
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect([metrics.headers['content-type'], metrics.body]).toEqual([
      'text/plain; version=0.0.4',
      'gpushare_extender_up 1\n',
    ]);
  });
});

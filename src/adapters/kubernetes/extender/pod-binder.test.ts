import { describe, expect, it } from 'vitest';
import { ClusterView } from './cluster-view.js';
import { parseBindingArgs, PodBinder, type BindingArgs } from './pod-binder.js';
import { FakeKubeApi } from '../testing/fake-kube-api.js';
import { gpuNode, gpuPod, gpusOf } from '../testing/kube-fixtures.js';
import type { PodAssignment } from '../schema/pod-assignment.js';

/** A view of node n1 (one A100-80GB) and n2 (two), and an API server that knows the pods given. */
function setUp(...pods: ReturnType<typeof gpuPod>[]) {
  const view = new ClusterView();
  view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
  view.upsertNode(gpuNode('n2', gpusOf('n2', 2)));
  const api = new FakeKubeApi();
  for (const pod of pods) {
    api.addPod(pod);
    view.upsertPod(pod);
  }
  return { view, api, binder: new PodBinder(view, api) };
}

const args = (uid: string, node: string): BindingArgs => ({
  PodName: `pod-${uid}`,
  PodNamespace: 'team-a',
  PodUID: uid,
  Node: node,
});

const wholeGpuOn = (node: string, index = 0): PodAssignment => ({
  schema: 'v1',
  node,
  mode: 'exclusive',
  gpus: [
    { index, uuid: `GPU-${node}-${index}`, gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: 81920, mig: null },
  ],
});

const exclusive = { gpuMilli: 1000, mode: 'exclusive' } as const;

describe('parseBindingArgs', () => {
  it('reads ExtenderBindingArgs', () => {
    expect(parseBindingArgs({ PodName: 'p', PodNamespace: 'ns', PodUID: 'u', Node: 'n1' })).toEqual({
      PodName: 'p',
      PodNamespace: 'ns',
      PodUID: 'u',
      Node: 'n1',
    });
  });

  it('names the first field that is wrong', () => {
    expect(parseBindingArgs({ PodName: 'p', PodNamespace: 'ns', PodUID: '', Node: 'n1' })).toEqual({
      error: 'ExtenderBindingArgs.PodUID: String must contain at least 1 character(s)',
    });
    expect(parseBindingArgs({ PodName: 'p', PodNamespace: 'ns', PodUID: 'u' })).toEqual({
      error: 'ExtenderBindingArgs.Node: Required',
    });
  });
});

describe('PodBinder', () => {
  it('creates one Binding carrying the assignment, and holds the share in the view', async () => {
    const { view, api, binder } = setUp(gpuPod('x', exclusive));
    expect(await binder.bind(args('x', 'n1'))).toEqual({ assignment: wholeGpuOn('n1') });
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/namespaces/team-a/pods/pod-x/binding',
    ]);
    expect(api.calls[0]!.body).toEqual({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: {
        name: 'pod-x',
        namespace: 'team-a',
        uid: 'x',
        annotations: {
          'gpushare.io/assignment': JSON.stringify(wholeGpuOn('n1')),
          'gpushare.io/assigned-gpus': 'GPU-n1-0',
        },
      },
      target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    });
    expect(api.pod('team-a', 'pod-x')!.spec!.nodeName).toBe('n1');
    expect([...view.holdings()]).toEqual([['x', wholeGpuOn('n1')]]);
    // The GPU is taken: another whole-GPU pod no longer fits on n1.
    expect(view.evaluate(gpuPod('y', exclusive), ['n1']).failed.get('n1')?.resolvable).toBe(true);
  });

  it("reads a pod the view has not seen yet from the API server, never from the caller's args", async () => {
    const { view, api, binder } = setUp();
    api.addPod(gpuPod('late', exclusive));
    expect(view.pod('late')).toBeUndefined();
    expect(await binder.bind(args('late', 'n2'))).toEqual({ assignment: wholeGpuOn('n2') });
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v1/namespaces/team-a/pods/pod-late',
      'POST /api/v1/namespaces/team-a/pods/pod-late/binding',
    ]);
    expect(view.pod('late')?.name).toBe('pod-late');
  });

  it('answers the reservation error without calling the API server when the pod cannot be placed there', async () => {
    const { api, binder } = setUp(gpuPod('x', exclusive));
    expect(await binder.bind(args('x', 'cpu-node'))).toEqual({ error: 'node cpu-node is not a gpushare node' });
    expect(api.calls).toEqual([]);
  });

  it('answers an error for a pod neither the view nor the API server knows', async () => {
    const { api, binder } = setUp();
    expect(await binder.bind(args('ghost', 'n1'))).toEqual({ error: "pod ghost is not in the extender's view yet" });
    expect(api.calls.map((c) => c.method)).toEqual(['GET']);
  });

  it('releases the share when the API server refuses the Binding', async () => {
    const { view, api, binder } = setUp(gpuPod('x', exclusive));
    api.nextBinding = { status: 409, body: { kind: 'Status', message: 'pod pod-x is already assigned to node "n2"' } };
    expect(await binder.bind(args('x', 'n1'))).toEqual({
      error: 'creating the Binding of team-a/pod-x to n1 failed: 409: pod pod-x is already assigned to node "n2"',
    });
    // It read the pod back (not bound here), then let the share go.
    expect(api.calls.map((c) => c.method)).toEqual(['POST', 'GET']);
    expect(view.holdings().size).toBe(0);
    expect([...view.evaluate(gpuPod('y', exclusive), ['n1']).scores.keys()]).toEqual(['n1']);
  });

  it('releases the share when the API server cannot be reached', async () => {
    const { view, api, binder } = setUp(gpuPod('x', exclusive));
    api.nextBinding = 'unreachable';
    expect(await binder.bind(args('x', 'n1'))).toEqual({
      error: 'POST /api/v1/namespaces/team-a/pods/pod-x/binding: connect ECONNREFUSED',
    });
    expect(view.holdings().size).toBe(0);
    expect(api.pod('team-a', 'pod-x')!.spec!.nodeName).toBeUndefined();
  });

  it('keeps the share when the answer was lost but the pod is bound here with this assignment', async () => {
    const { view, api, binder } = setUp(gpuPod('x', exclusive));
    api.nextBinding = 'lost';
    expect(await binder.bind(args('x', 'n1'))).toEqual({ assignment: wholeGpuOn('n1') });
    expect(api.calls.map((c) => c.method)).toEqual(['POST', 'GET']);
    expect(api.pod('team-a', 'pod-x')!.metadata!.annotations!['gpushare.io/assigned-gpus']).toBe('GPU-n1-0');
    expect([...view.holdings().keys()]).toEqual(['x']);
  });

  it('refuses a second bind of a pod that is being bound', async () => {
    const { binder } = setUp(gpuPod('x', exclusive));
    expect(await binder.bind(args('x', 'n2'))).toEqual({ assignment: wholeGpuOn('n2') });
    expect(await binder.bind(args('x', 'n2'))).toEqual({ error: 'pod team-a/pod-x is being bound already' });
  });
});

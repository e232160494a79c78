import { describe, expect, it } from 'vitest';
import { assignmentSigner } from '../schema/assignment-signature.js';
import { ClusterView } from './cluster-view.js';
import { gpuNode, gpuPod, gpusOf } from '../testing/kube-fixtures.js';

function viewWith(nodes: Record<string, number>): ClusterView {
  const view = new ClusterView();
  for (const [name, count] of Object.entries(nodes))
    expect(view.upsertNode(gpuNode(name, gpusOf(name, count)))).toBeNull();
  return view;
}

describe('ClusterView', () => {
  it('puts two half-GPU pods on the one free GPU and refuses a third, with a reason', () => {
    const view = viewWith({ n1: 1 });
    for (const uid of ['a', 'b']) {
      const pod = gpuPod(uid, { gpuMilli: 500, mode: 'mps' });
      view.upsertPod(pod);
      expect([...view.evaluate(pod, ['n1']).scores.keys()]).toEqual(['n1']);
      const reserved = view.reserve(uid, 'n1');
      expect('assignment' in reserved && reserved.assignment.gpus.map((g) => [g.uuid, g.gpuMilli])).toEqual([
        ['GPU-n1-0', 500],
      ]);
    }
    const third = view.evaluate(gpuPod('c', { gpuMilli: 500, mode: 'mps' }), ['n1']);
    expect(third.scores.size).toBe(0);
    expect(third.failed.get('n1')).toEqual({
      reason:
        'gpushare: 0 of the 1 GPU(s) needed have 500 milli-GPU and their share of memory free for a mps ' +
        'share (one tenant per MPS GPU)',
      resolvable: true,
    });
  });

  it('gives a pod asking 2 × 0.5 GPU two distinct GPUs, and never a node with one GPU', () => {
    const view = viewWith({ one: 1, two: 2 });
    const pod = gpuPod('p', { gpuCount: 2, gpuMilli: 500, mode: 'mps' });
    view.upsertPod(pod);
    const evaluation = view.evaluate(pod, ['one', 'two']);
    expect([...evaluation.scores.keys()]).toEqual(['two']);
    // Even empty, a one-GPU node never holds two GPUs: unresolvable there.
    expect(evaluation.failed.get('one')).toEqual({
      reason:
        'gpushare: even empty, this node could not hold it: only 1 of the 2 GPU(s) needed could hold its share ' +
        '(500 milli-GPU in mps mode)',
      resolvable: false,
    });
    const reserved = view.reserve('p', 'two');
    expect('assignment' in reserved && reserved.assignment.gpus.map((g) => g.uuid)).toEqual(['GPU-two-0', 'GPU-two-1']);
    expect('error' in view.reserve('p', 'one')).toBe(true);
  });

  it(
    'holds bound pods from the watch, ignores an assignment on a pod that never bound, and frees finished ' +
      'and deleted pods',
    () => {
      const view = viewWith({ n1: 1 });
      view.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }));
      const reserved = view.reserve('x', 'n1');
      if (!('assignment' in reserved)) throw new Error(reserved.error);
      const assignment = reserved.assignment;
      // A crash: the reservation is gone, the pod carries the assignment but never bound.
      const fresh = viewWith({ n1: 1 });
      fresh.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }, { assignment }));
      expect(fresh.holdings().size).toBe(0);
      // Bound: held.
      fresh.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }, { assignment, nodeName: 'n1' }));
      expect([...fresh.holdings().keys()]).toEqual(['x']);
      expect(fresh.evaluate(gpuPod('y', { gpuMilli: 100, mode: 'mps' }), ['n1']).scores.size).toBe(0);
      // Finished: freed.
      fresh.upsertPod(
        gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }, { assignment, nodeName: 'n1', phase: 'Succeeded' }),
      );
      expect(fresh.holdings().size).toBe(0);
      expect(fresh.evaluate(gpuPod('y', { gpuMilli: 100, mode: 'mps' }), ['n1']).scores.size).toBe(1);
      // Deleted: freed too (y, only filtered and assumed, goes first).
      fresh.deletePod('y');
      fresh.upsertPod(
        gpuPod('z', { gpuMilli: 1000, mode: 'exclusive' }, { assignment: { ...assignment }, nodeName: 'n1' }),
      );
      expect(fresh.holdings().has('z')).toBe(true);
      fresh.deletePod('z');
      expect(fresh.holdings().has('z')).toBe(false);
    },
  );

  it('keeps holdings across a node change (the state is rebuilt), and rollback frees a reservation', () => {
    const view = viewWith({ n1: 2 });
    view.upsertPod(gpuPod('a', { gpuMilli: 1000, mode: 'exclusive' }));
    expect('assignment' in view.reserve('a', 'n1')).toBe(true);
    view.upsertNode(gpuNode('n2', gpusOf('n2', 1)));
    const evaluation = view.evaluate(gpuPod('b', { gpuCount: 2, gpuMilli: 1000, mode: 'exclusive' }), ['n1', 'n2']);
    expect(evaluation.scores.size).toBe(0);
    view.rollback('a');
    expect([
      ...view.evaluate(gpuPod('b', { gpuCount: 2, gpuMilli: 1000, mode: 'exclusive' }), ['n1', 'n2']).scores.keys(),
    ]).toEqual(['n1']);
  });

  it('fails nodes without an inventory as unresolvable, and a pod without a valid request on every node', () => {
    const view = viewWith({ n1: 1 });
    const evaluation = view.evaluate(gpuPod('a', {}), ['n1', 'cpu-only']);
    expect(evaluation.failed.get('cpu-only')).toEqual({
      reason: 'gpushare: not a gpushare node (no gpushare.io/gpus annotation from the node agent)',
      resolvable: false,
    });
    const bad = gpuPod('b', {});
    const annotations = { ...bad.metadata!.annotations!, 'gpushare.io/gpu-milli': '1500' };
    const invalid = view.evaluate({ ...bad, metadata: { ...bad.metadata, annotations } }, ['n1']);
    expect(invalid.error).toBe('annotation gpushare.io/gpu-milli must be an integer from 1 to 1000, got 1500');
    expect(invalid.failed.get('n1')?.resolvable).toBe(false);
  });

  it('rejects a memory request larger than any GPU as unresolvable, naming the largest node', () => {
    const view = viewWith({ n1: 1 });
    const evaluation = view.evaluate(gpuPod('a', { gpuMilli: 500, gpuMemoryMiB: 100_000, mode: 'mps' }), ['n1']);
    expect(evaluation.failed.get('n1')).toEqual({
      reason:
        'gpushare: no node could ever hold it, even empty (1 node(s)); the largest for it, n1 (1 GPU(s) ' +
        'A100-80GB of up to 81920 MiB): no GPU with 100000 MiB of memory (largest: 81920 MiB)',
      resolvable: false,
    });
  });

  it('refuses 3 GPUs on 2-GPU nodes as unresolvable on every node, with one line naming the largest node', () => {
    const view = viewWith({ small: 1, b: 2, a: 2 });
    const pod = gpuPod('p', { gpuCount: 3, gpuMilli: 1000, mode: 'exclusive' });
    view.upsertPod(pod);
    const evaluation = view.evaluate(pod, ['a', 'b', 'small']);
    const reason =
      'gpushare: no node could ever hold it, even empty (3 node(s)); the largest for it, a (2 GPU(s) A100-80GB ' +
      'of up to 81920 MiB): only 2 of the 3 GPU(s) needed could hold its share (1000 milli-GPU in exclusive mode)';
    expect([...evaluation.failed]).toEqual([
      ['a', { reason, resolvable: false }],
      ['b', { reason, resolvable: false }],
      ['small', { reason, resolvable: false }],
    ]);
    // A 4-GPU node joins, busy: a shortage there (resolvable), the 2-GPU nodes too small.
    expect(view.upsertNode(gpuNode('big', gpusOf('big', 4)))).toBeNull();
    const holder = gpuPod('h', { gpuCount: 2, gpuMilli: 1000, mode: 'exclusive' });
    view.upsertPod(holder);
    expect('assignment' in view.reserve('h', 'big')).toBe(true);
    const again = view.evaluate(pod, ['a', 'big']);
    expect(again.failed.get('big')?.resolvable).toBe(true);
    expect(again.failed.get('a')).toEqual({
      reason:
        'gpushare: even empty, this node could not hold it: only 2 of the 3 GPU(s) needed could hold its share ' +
        '(1000 milli-GPU in exclusive mode)',
      resolvable: false,
    });
  });
});

describe('ClusterView against forged and repeated calls', () => {
  it('neither keeps nor holds a pod it only saw in a filter call (bound or not, with an assignment or not)', () => {
    const view = viewWith({ n1: 1 });
    view.upsertPod(gpuPod('real', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('real', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.rollback('real');
    const ghost = gpuPod(
      'ghost',
      { gpuMilli: 1000, mode: 'exclusive' },
      { nodeName: 'n1', assignment: reserved.assignment },
    );
    expect([...view.evaluate(ghost, ['n1']).scores.keys()]).toEqual(['n1']);
    expect(view.pod('ghost')).toBeUndefined();
    expect(view.holdings().size).toBe(0);
    expect('error' in view.reserve('ghost', 'n1')).toBe(true);
  });

  it('refuses to bind a pod that is bound already, and keeps its share', () => {
    const view = viewWith({ n1: 2 });
    view.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('x', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.upsertPod(
      gpuPod(
        'x',
        { gpuMilli: 1000, mode: 'exclusive' },
        { assignment: reserved.assignment, nodeName: 'n1', phase: 'Running' },
      ),
    );
    expect(view.reserve('x', 'n1')).toEqual({ error: 'pod team-a/pod-x is already bound to n1' });
    expect(view.gpuSnapshot().map((g) => g.pods.length)).toEqual([1, 0]);
  });

  it('keeps the share of a bind that fails to place, and of a terminating pod until it is gone', () => {
    const view = viewWith({ n1: 1 });
    view.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('x', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.upsertPod(gpuPod('y', { gpuMilli: 1000, mode: 'exclusive' }));
    expect('error' in view.reserve('y', 'n1')).toBe(true);
    expect([...view.holdings().keys()]).toEqual(['x']);
    const bound = gpuPod(
      'x',
      { gpuMilli: 1000, mode: 'exclusive' },
      { assignment: reserved.assignment, nodeName: 'n1', phase: 'Running' },
    );
    view.upsertPod({ ...bound, metadata: { ...bound.metadata, deletionTimestamp: '2026-12-01T00:00:10Z' } });
    expect([...view.holdings().keys()]).toEqual(['x']);
    view.deletePod('x');
    expect(view.holdings().size).toBe(0);
  });
});

describe('ClusterView deletions', () => {
  it('frees the share of a bound pod deleted at once (grace period 0: no update before the delete)', () => {
    const view = viewWith({ n1: 1 });
    view.upsertPod(gpuPod('a', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('a', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.upsertPod(
      gpuPod(
        'a',
        { gpuMilli: 1000, mode: 'exclusive' },
        { assignment: reserved.assignment, nodeName: 'n1', phase: 'Running' },
      ),
    );
    expect(view.gpuSnapshot().map((g) => g.pods.length)).toEqual([1]);
    view.deletePod('a');
    expect(view.gpuSnapshot().map((g) => g.pods.length)).toEqual([0]);
    expect([...view.evaluate(gpuPod('b', { gpuMilli: 1000, mode: 'exclusive' }), ['n1']).scores.keys()]).toEqual([
      'n1',
    ]);
  });
});

describe('ClusterView assumed placements', () => {
  it(
    "holds a filtered pod on its best node until its bind, so the next pod's filter sees it; releases it " +
      'after 30 s without a bind',
    () => {
      let now = 0;
      const view = new ClusterView('default', () => now);
      view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
      view.upsertPod(gpuPod('a', { gpuMilli: 600, mode: 'mps' }));
      view.upsertPod(gpuPod('b', { gpuMilli: 600, mode: 'mps' }));
      // A and B (600 milli each) are filtered before either binds: B must not fit.
      expect([...view.evaluate(gpuPod('a', { gpuMilli: 600, mode: 'mps' }), ['n1']).scores.keys()]).toEqual(['n1']);
      expect(view.evaluate(gpuPod('b', { gpuMilli: 600, mode: 'mps' }), ['n1']).scores.size).toBe(0);
      // A filtered again (the scheduler's retry) is ranked without its own assumed share.
      expect([...view.evaluate(gpuPod('a', { gpuMilli: 600, mode: 'mps' }), ['n1']).scores.keys()]).toEqual(['n1']);
      now += 30_001;
      expect([...view.evaluate(gpuPod('b', { gpuMilli: 600, mode: 'mps' }), ['n1']).scores.keys()]).toEqual(['n1']);
      // Now B is assumed; A's bind must fail, B's succeeds.
      expect('error' in view.reserve('a', 'n1')).toBe(true);
      expect('assignment' in view.reserve('b', 'n1')).toBe(true);
    },
  );
});

describe('ClusterView when a node shrinks under its pods', () => {
  it('blocks the GPU of a running pod the node can no longer hold, and says so', () => {
    const rejected: string[] = [];
    // Its assignment is the extender's own (signed): the node changed under it, nothing was forged.
    const view = new ClusterView('default', Date.now, (m) => rejected.push(m), {
      signer: assignmentSigner(Buffer.from('0123456789abcdef0123456789abcdef')),
      onRefused: (r) => rejected.push(`refused: ${r.code}`),
    });
    view.upsertNode(gpuNode('n1', gpusOf('n1', 2)));
    view.upsertPod(gpuPod('x', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('x', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.upsertPod(
      gpuPod(
        'x',
        { gpuMilli: 1000, mode: 'exclusive' },
        { assignment: reserved.assignment, nodeName: 'n1', phase: 'Running' },
      ),
    );
    const gpu = reserved.assignment.gpus[0]!.index;
    // The GPU now reports less memory than the running pod reserved.
    view.upsertNode(
      gpuNode(
        'n1',
        gpusOf('n1', 2).map((g) => (g.index === gpu ? { ...g, gpuMemoryMiB: 76_000 } : g)),
      ),
    );
    view.upsertPod(gpuPod('y', { gpuMilli: 1000, mode: 'exclusive' }));
    const placed = view.reserve('y', 'n1');
    expect('assignment' in placed && placed.assignment.gpus.map((g) => g.index)).toEqual([1 - gpu]);
    view.upsertPod(gpuPod('z', { gpuMilli: 1000, mode: 'exclusive' }));
    expect('error' in view.reserve('z', 'n1')).toBe(true);
    expect(rejected.filter((m) => m.startsWith('refused'))).toEqual([]);
    expect(rejected[0]).toMatch(
      /^pod team-a\/pod-x holds more than node n1 can hold now \(.*\): its GPUs take no new pod until it ends$/,
    );
  });

  it("gives the autoscaler the core's data: nodes, bound pods as jobs holding GPUs, unbound pods as pending", () => {
    const view = viewWith({ n1: 2 });
    view.upsertPod(gpuPod('bound', { gpuMilli: 1000, mode: 'exclusive' }));
    const reserved = view.reserve('bound', 'n1');
    if (!('assignment' in reserved)) throw new Error(reserved.error);
    view.upsertPod(gpuPod('bound', { gpuMilli: 1000, mode: 'exclusive' }, { ...reserved, nodeName: 'n1' }));
    view.upsertPod(gpuPod('waiting', { gpuMilli: 600, mode: 'mps' }));
    view.upsertPod(gpuPod('done', { gpuMilli: 600, mode: 'mps' }, { phase: 'Succeeded' }));
    const { snapshot, pending } = view.coreSnapshot();
    expect(snapshot.nodes.map((n) => [n.name, n.gpus.length])).toEqual([['n1', 2]]);
    expect(
      snapshot.active.map((j) => [
        j.request.tenant,
        j.assignment.node,
        j.assignment.placement.gpus[0]!.uuid,
        j.preemptible,
      ]),
    ).toEqual([['team-a', 'n1', reserved.assignment.gpus[0]!.uuid, false]]);
    expect(pending.map((r) => [r.tenant, r.gpu.gpuMilli, r.gpu.mode])).toEqual([['team-a', 600, 'mps']]);
  });
});

import { describe, expect, it } from 'vitest';
import { assignmentSigner } from '../schema/assignment-signature.js';
import type { PodAssignment } from '../schema/pod-assignment.js';
import { gpuNode, gpuPod, gpusOf } from '../testing/kube-fixtures.js';
import type { RefusedAssignment } from './assignment-refusals.js';
import { ClusterView } from './cluster-view.js';

const signer = assignmentSigner(Buffer.from('0123456789abcdef0123456789abcdef'));
const WHOLE = { gpuMilli: 1000, mode: 'exclusive' } as const;
const HALF = { gpuMilli: 500, mode: 'mps' } as const;

/** A view of node n1 with one GPU, signing, and the refusals it reports. */
function signingView(): { view: ClusterView; refused: RefusedAssignment[] } {
  const refused: RefusedAssignment[] = [];
  const view = new ClusterView('default', Date.now, undefined, { signer, onRefused: (r) => refused.push(r) });
  view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
  return { view, refused };
}

/** Binds pod `uid` of `gpu` through the view and shows it bound, as the watch would. */
function bindWhole(view: ClusterView, uid: string): PodAssignment {
  view.upsertPod(gpuPod(uid, WHOLE));
  const reserved = view.reserve(uid, 'n1');
  if (!('assignment' in reserved)) throw new Error(reserved.error);
  view.upsertPod(gpuPod(uid, WHOLE, { assignment: reserved.assignment, nodeName: 'n1' }));
  return reserved.assignment;
}

describe('ClusterView and assignments it did not write', () => {
  it("signs its binds' assignments for the pod, and holds them when the watch shows them", () => {
    const { view, refused } = signingView();
    const assignment = bindWhole(view, 'victim');
    expect(signer.verify('victim', assignment)).toBe(true);
    expect([...view.holdings().keys()]).toEqual(['victim']);
    expect(refused).toEqual([]);
  });

  it(
    'does not account a 1-milli share planted on a whole-GPU pod: the GPU is blocked, the filter says ' +
      'why, and it is told once',
    () => {
      const { view, refused } = signingView();
      const assignment = bindWhole(view, 'victim');
      const forged: PodAssignment = {
        ...assignment,
        mode: 'mps',
        gpus: assignment.gpus.map((g) => ({ ...g, gpuMilli: 1, accountedGpuMilli: 1 })),
      };
      for (let i = 0; i < 2; i++) view.upsertPod(gpuPod('victim', WHOLE, { assignment: forged, nodeName: 'n1' }));
      expect(view.holdings().size).toBe(0);
      expect(refused.map((r) => [r.code, r.namespace, r.name, r.node, r.gpuIndexes, r.details])).toEqual([
        [
          'assignment-request-mismatch',
          'team-a',
          'pod-victim',
          'n1',
          [0],
          { field: 'mode', expected: 'exclusive', found: 'mps' },
        ],
      ]);
      const newcomer = gpuPod('newcomer', HALF);
      view.upsertPod(newcomer);
      const evaluation = view.evaluate(newcomer, ['n1']);
      expect(evaluation.scores.size).toBe(0);
      expect(evaluation.failed.get('n1')?.reason).toBe(
        'gpushare: 0 of the 1 GPU(s) needed have 500 milli-GPU and their share of memory free for a mps share ' +
          '(one tenant per MPS GPU); blocked GPUs (assignment-refused): GPU 0 by pod team-a/pod-victim ' +
          '(assignment-request-mismatch)',
      );
      expect(view.gpuSnapshot().map((g) => [g.index, g.schedulable, g.allocatedGpuMilli])).toEqual([[0, false, 0]]);
      // Fixed (the extender's own assignment back): held again, nothing blocked; refused again: told again.
      view.upsertPod(gpuPod('victim', WHOLE, { assignment, nodeName: 'n1' }));
      expect([...view.holdings().keys()]).toEqual(['victim']);
      expect(view.gpuSnapshot().map((g) => [g.index, g.schedulable, g.allocatedGpuMilli])).toEqual([[0, true, 1000]]);
      expect(view.refusedAssignments().size).toBe(0);
      view.upsertPod(gpuPod('victim', WHOLE, { assignment: forged, nodeName: 'n1' }));
      expect(refused).toHaveLength(2);
      // Deleted: the GPU takes the newcomer.
      view.deletePod('victim');
      expect([...view.evaluate(newcomer, ['n1']).scores.keys()]).toEqual(['n1']);
      expect(view.refusedAssignments().size).toBe(0);
    },
  );

  it("refuses a copy of another pod's valid assignment, and one without a signature", () => {
    const { view, refused } = signingView();
    const assignment = bindWhole(view, 'victim');
    view.deletePod('victim');
    view.upsertPod(gpuPod('copycat', WHOLE, { assignment, nodeName: 'n1' }));
    const { signature: _dropped, ...unsigned } = assignment;
    view.upsertPod(gpuPod('plain', WHOLE, { assignment: unsigned, nodeName: 'n1' }));
    expect(view.holdings().size).toBe(0);
    expect(refused.map((r) => [r.name, r.code])).toEqual([
      ['pod-copycat', 'assignment-bad-signature'],
      ['pod-plain', 'assignment-unsigned'],
    ]);
  });

  it('keeps refusals across a rebuild of the state (a node change), and blocks the GPU a planted one names', () => {
    const { view, refused } = signingView();
    view.upsertNode(gpuNode('n1', gpusOf('n1', 2)));
    const planted: PodAssignment = {
      schema: 'v1',
      node: 'n1',
      mode: 'mps',
      gpus: [{ index: 1, uuid: 'GPU-n1-1', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40_960, mig: null }],
    };
    view.upsertPod(gpuPod('planted', HALF, { assignment: planted, nodeName: 'n1' }));
    // A node added: the state is rebuilt from the nodes and the pods.
    view.upsertNode(gpuNode('n2', gpusOf('n2', 1)));
    expect(view.gpuSnapshot().map((g) => [g.node, g.index, g.schedulable])).toEqual([
      ['n1', 0, true],
      ['n1', 1, false],
      ['n2', 0, true],
    ]);
    expect(refused.map((r) => [r.name, r.code, r.gpuIndexes])).toEqual([['pod-planted', 'assignment-unsigned', [1]]]);
  });
});

describe('ClusterView without a key', () => {
  it('still refuses a GPU the node does not have and more memory than the GPU has', () => {
    const refused: RefusedAssignment[] = [];
    const view = new ClusterView('default', Date.now, undefined, { signer: null, onRefused: (r) => refused.push(r) });
    view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
    const base = { index: 0, uuid: 'GPU-n1-0', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40_960, mig: null };
    const of = (gpu: Partial<typeof base>): PodAssignment => ({
      schema: 'v1',
      node: 'n1',
      mode: 'mps',
      gpus: [{ ...base, ...gpu }],
    });
    view.upsertPod(gpuPod('a', HALF, { assignment: of({ uuid: 'GPU-other' }), nodeName: 'n1' }));
    view.upsertPod(gpuPod('b', HALF, { assignment: of({ gpuMemoryMiB: 100_000 }), nodeName: 'n1' }));
    view.upsertPod(gpuPod('c', HALF, { assignment: of({}), nodeName: 'n1' }));
    expect(refused.map((r) => [r.name, r.code])).toEqual([
      ['pod-a', 'assignment-unknown-gpu'],
      ['pod-b', 'assignment-over-capacity'],
    ]);
    expect([...view.holdings().keys()]).toEqual(['c']);
  });
});

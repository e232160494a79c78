import { describe, expect, it } from 'vitest';
import { ClusterView, type PodEvaluation } from './cluster-view.js';
import { EvaluationCache, filterResult, parseExtenderArgs, priorityList, type ExtenderArgs } from './extender-verbs.js';
import { gpuNode, gpuPod, gpusOf } from '../testing/kube-fixtures.js';

const pod = gpuPod('p', { gpuMilli: 500, mode: 'mps' });

/** An evaluation with the given scores and failures (the fields the verbs read). */
function evaluation(
  scores: Record<string, number>,
  failed: Record<string, { reason: string; resolvable: boolean }> = {},
): PodEvaluation {
  return {
    request: null,
    error: null,
    scores: new Map(Object.entries(scores)),
    failed: new Map(Object.entries(failed)),
  };
}

const byNames = (nodeNames: string[]): ExtenderArgs => ({ pod, nodeNames, nodeItems: null });

describe('parseExtenderArgs', () => {
  it('reads NodeNames (nodeCacheCapable)', () => {
    expect(parseExtenderArgs({ Pod: pod, NodeNames: ['a', 'b'], Nodes: null })).toEqual({
      pod,
      nodeNames: ['a', 'b'],
      nodeItems: null,
    });
  });

  it('reads the names of a NodeList and keeps its items', () => {
    const items = [{ metadata: { name: 'a', labels: { zone: 'z1' } } }, { metadata: { name: 'b' } }];
    expect(parseExtenderArgs({ Pod: pod, Nodes: { items } })).toEqual({ pod, nodeNames: ['a', 'b'], nodeItems: items });
  });

  it('takes no nodes as an empty candidate list', () => {
    expect(parseExtenderArgs({ Pod: pod })).toEqual({ pod, nodeNames: [], nodeItems: null });
    expect(parseExtenderArgs({ Pod: pod, Nodes: {} })).toEqual({ pod, nodeNames: [], nodeItems: [] });
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'ExtenderArgs: expected a JSON object'],
    ['a pod without a UID', { Pod: { metadata: {} } }, 'ExtenderArgs.Pod.metadata.uid: expected a non-empty string'],
    [
      'NodeNames not an array',
      { Pod: pod, NodeNames: 'a' },
      'ExtenderArgs.NodeNames: expected an array of node names or null',
    ],
    ['a name not a string', { Pod: pod, NodeNames: ['a', 7] }, 'ExtenderArgs.NodeNames.1: expected a string'],
    ['items not an array', { Pod: pod, Nodes: { items: {} } }, 'ExtenderArgs.Nodes.items: expected an array of Nodes'],
    [
      'an item without a name',
      { Pod: pod, Nodes: { items: [{ metadata: {} }] } },
      'ExtenderArgs.Nodes.items.0.metadata.name: expected a string',
    ],
  ])('names the field that is wrong: %s', (_label, body, error) => {
    expect(parseExtenderArgs(body)).toEqual({ error });
  });
});

describe('filterResult', () => {
  const failed = {
    b: { reason: 'gpushare: 0 of the 1 GPU(s) needed ...', resolvable: true },
    c: { reason: 'gpushare: not a gpushare node', resolvable: false },
  };

  it('answers the passing names in the order asked, and splits failures by whether they may end', () => {
    expect(filterResult(byNames(['d', 'c', 'b', 'a']), evaluation({ a: 40, d: 90 }, failed))).toEqual({
      Nodes: null,
      NodeNames: ['d', 'a'],
      FailedNodes: { b: 'gpushare: 0 of the 1 GPU(s) needed ...' },
      FailedAndUnresolvableNodes: { c: 'gpushare: not a gpushare node' },
      Error: '',
    });
  });

  it('answers the passing items of a NodeList as they came', () => {
    const items = [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }, { metadata: { name: 'c' } }];
    const result = filterResult({ pod, nodeNames: ['a', 'b', 'c'], nodeItems: items }, evaluation({ a: 1 }, failed));
    expect(result).toEqual({
      Nodes: { items: [items[0]] },
      NodeNames: null,
      FailedNodes: { b: failed.b.reason },
      FailedAndUnresolvableNodes: { c: failed.c.reason },
      Error: '',
    });
    expect((result.Nodes as { items: unknown[] }).items[0]).toBe(items[0]);
  });
});

describe('priorityList', () => {
  it('gives the best node 10, the others 0..9 between the worst and the best, and leaves out 0s and failures', () => {
    const scores = { best: 200, high: 150, mid: 110, worst: 100, tie: 200 };
    expect(priorityList(byNames(['worst', 'mid', 'high', 'best', 'tie', 'failed']), evaluation(scores))).toEqual([
      { Host: 'mid', Score: 1 },
      { Host: 'high', Score: 5 },
      { Host: 'best', Score: 10 },
      { Host: 'tie', Score: 10 },
    ]);
  });

  it('gives a single node 10', () => {
    expect(priorityList(byNames(['a', 'b']), evaluation({ b: -3 }))).toEqual([{ Host: 'b', Score: 10 }]);
  });

  it('answers an empty list when no node passed', () => {
    expect(priorityList(byNames(['a']), evaluation({}))).toEqual([]);
  });
});

describe('EvaluationCache', () => {
  /** A view of two one-GPU nodes that counts its evaluations. */
  function countingView() {
    const view = new ClusterView();
    view.upsertNode(gpuNode('n1', gpusOf('n1', 1)));
    view.upsertNode(gpuNode('n2', gpusOf('n2', 1)));
    let evaluations = 0;
    const evaluate = view.evaluate.bind(view);
    view.evaluate = (p, candidates) => {
      evaluations++;
      return evaluate(p, candidates);
    };
    return { view, evaluations: () => evaluations };
  }

  it('answers prioritize with the evaluation of the filter of the same pod', () => {
    const { view, evaluations } = countingView();
    const cache = new EvaluationCache(view);
    const first = cache.evaluate(byNames(['n1', 'n2']));
    expect(cache.evaluate(byNames(['n2']))).toBe(first);
    expect(evaluations()).toBe(1);
    expect([...first.scores.keys()]).toEqual(['n1', 'n2']);
  });

  it('evaluates again for another pod, a node not evaluated, or a change of the view', () => {
    const { view, evaluations } = countingView();
    const cache = new EvaluationCache(view);
    cache.evaluate(byNames(['n1']));
    cache.evaluate(byNames(['n1', 'n2']));
    expect(evaluations()).toBe(2);
    cache.evaluate({ pod: gpuPod('q', { gpuMilli: 500, mode: 'mps' }), nodeNames: ['n1', 'n2'], nodeItems: null });
    expect(evaluations()).toBe(3);
    view.upsertNode(gpuNode('n3', gpusOf('n3', 1)));
    cache.evaluate({ pod: gpuPod('q', { gpuMilli: 500, mode: 'mps' }), nodeNames: ['n1', 'n2'], nodeItems: null });
    expect(evaluations()).toBe(4);
  });
});

/**
 * The kube-scheduler extender's filter and prioritize verbs over the cluster view. Wire format
 * (k8s.io/kube-scheduler extender/v1, structs without json tags, so keys are the Go field names):
 * `ExtenderArgs {Pod, Nodes, NodeNames}` in; `ExtenderFilterResult {Nodes, NodeNames, FailedNodes,
 * FailedAndUnresolvableNodes, Error}` and `HostPriorityList [{Host, Score}]` (0..10) out. Works with
 * `nodeCacheCapable` true (names) and false (a NodeList, whose items are returned filtered).
 */
import type { KubePod } from '../schema/kube-objects.js';
import type { ClusterView, PodEvaluation } from './cluster-view.js';

/** Highest extender score (MaxExtenderPriority). */
export const MAX_EXTENDER_SCORE = 10;

/** A parsed ExtenderArgs. */
export interface ExtenderArgs {
  readonly pod: KubePod;
  readonly nodeNames: readonly string[];
  /** The NodeList items when the scheduler sent full nodes (not node-cache-capable); null otherwise. */
  readonly nodeItems: readonly { metadata: { name: string } }[] | null;
}

/**
 * Parses an ExtenderArgs body (checked by hand: a schema library takes milliseconds over thousands
 * of node names). @returns the args, or an error naming the field
 */
export function parseExtenderArgs(body: unknown): ExtenderArgs | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { error: 'ExtenderArgs: expected a JSON object' };
  const { Pod: pod, Nodes: nodes, NodeNames: names } = body as Record<string, unknown>;
  const uid = (pod as { metadata?: { uid?: unknown } } | null)?.metadata?.uid;
  if (typeof pod !== 'object' || pod === null || typeof uid !== 'string' || uid === '')
    return { error: 'ExtenderArgs.Pod.metadata.uid: expected a non-empty string' };
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names)) return { error: 'ExtenderArgs.NodeNames: expected an array of node names or null' };
    for (let i = 0; i < names.length; i++)
      if (typeof names[i] !== 'string') return { error: `ExtenderArgs.NodeNames.${i}: expected a string` };
    return { pod: pod as KubePod, nodeNames: names as string[], nodeItems: null };
  }
  const items = (nodes as { items?: unknown } | null | undefined)?.items;
  if (items === undefined || items === null)
    return { pod: pod as KubePod, nodeNames: [], nodeItems: nodes === undefined || nodes === null ? null : [] };
  if (!Array.isArray(items)) return { error: 'ExtenderArgs.Nodes.items: expected an array of Nodes' };
  const nodeNames: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const name = (items[i] as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    if (typeof name !== 'string') return { error: `ExtenderArgs.Nodes.items.${i}.metadata.name: expected a string` };
    nodeNames.push(name);
  }
  return { pod: pod as KubePod, nodeNames, nodeItems: items as { metadata: { name: string } }[] };
}

/** The ExtenderFilterResult of an evaluation. */
export function filterResult(args: ExtenderArgs, evaluation: PodEvaluation): Record<string, unknown> {
  const failed: Record<string, string> = {};
  const unresolvable: Record<string, string> = {};
  for (const [node, { reason, resolvable }] of evaluation.failed) (resolvable ? failed : unresolvable)[node] = reason;
  const passing = args.nodeNames.filter((n) => evaluation.scores.has(n));
  if (args.nodeItems !== null) {
    const keep = new Set(passing);
    return {
      Nodes: { items: args.nodeItems.filter((n) => keep.has(n.metadata.name)) },
      NodeNames: null,
      FailedNodes: failed,
      FailedAndUnresolvableNodes: unresolvable,
      Error: '',
    };
  }
  return { Nodes: null, NodeNames: passing, FailedNodes: failed, FailedAndUnresolvableNodes: unresolvable, Error: '' };
}

/**
 * Scores 0..10 from the policy's totals: the best node gets 10 (so the core's own choice wins
 * whenever the extender's weight outweighs the scheduler's plugins), the others 0..9 in proportion
 * between the worst and the best; nodes that cannot take the pod, and those scaled to 0, are left
 * out (the scheduler gives a node missing from the list no extender score, as it would for 0).
 */
export function priorityList(args: ExtenderArgs, evaluation: PodEvaluation): { Host: string; Score: number }[] {
  let best = Number.NEGATIVE_INFINITY;
  let worst = Number.POSITIVE_INFINITY;
  for (const host of args.nodeNames) {
    const total = evaluation.scores.get(host);
    if (total === undefined) continue;
    if (total > best) best = total;
    if (total < worst) worst = total;
  }
  // A node left out gets no extender score, as a 0 would: only the others are listed.
  const list: { Host: string; Score: number }[] = [];
  for (const host of args.nodeNames) {
    const total = evaluation.scores.get(host);
    if (total === undefined) continue;
    const score =
      total >= best
        ? MAX_EXTENDER_SCORE
        : best === worst
          ? MAX_EXTENDER_SCORE - 1
          : Math.min(
              MAX_EXTENDER_SCORE - 1,
              Math.max(0, Math.round(((total - worst) / (best - worst)) * (MAX_EXTENDER_SCORE - 1))),
            );
    if (score > 0) list.push({ Host: host, Score: score });
  }
  return list;
}

/**
 * Evaluates a pod once per view version: the scheduler calls filter then prioritize for the same
 * pod, and the second call reuses the first's answer when nothing changed in between.
 */
export class EvaluationCache {
  private last: { uid: string; version: number; evaluation: PodEvaluation } | null = null;

  constructor(private readonly view: ClusterView) {}

  /**
   * The evaluation of `args` now: the last one when it is for the same pod, nothing changed since, and it covers every
   * node asked about.
   */
  evaluate(args: ExtenderArgs): PodEvaluation {
    const uid = args.pod.metadata?.uid ?? '';
    const last = this.last;
    if (
      last !== null &&
      last.uid === uid &&
      last.version === this.view.version &&
      args.nodeNames.every((n) => last.evaluation.scores.has(n) || last.evaluation.failed.has(n))
    )
      return last.evaluation;
    const evaluation = this.view.evaluate(args.pod, args.nodeNames);
    this.last = { uid, version: this.view.version, evaluation };
    return evaluation;
  }
}

/**
 * The extender's answer for one pod over its candidate nodes: per node, the core's score or why it
 * cannot take the pod, with the memo (node-answer-memo.ts) doing as little as what changed allows:
 * the whole answer of the last filter of the same shape, then per-node answers, then the core's
 * `ClusterQuery.rank` for the rest.
 */
import {
  nodeTooSmall,
  refusalMessage,
  type CapacityCheck,
  type ClusterQuery,
  type JobRequest,
  type Status,
} from '../../../core/index.js';
import type { Failure, NodeAnswerMemo } from './node-answer-memo.js';

/** A filter's answer: scores of the nodes that can take the pod, failures of the others. */
export interface FilterAnswer {
  readonly scores: Map<string, number>;
  readonly failed: Map<string, Failure>;
}

/** What the answer needs of the cluster view. */
export interface AnswerContext {
  readonly memo: NodeAnswerMemo;
  /** The core's query over the gpushare nodes. */
  readonly query: ClusterQuery;
  /** Whether `name` is a gpushare node. */
  isGpushareNode(name: string): boolean;
  /** The gpushare nodes' capacity (every node empty): what could never hold a request. */
  capacity(): CapacityCheck;
  readonly nowMs: number;
}

const NOT_GPUSHARE: Failure = {
  reason: 'gpushare: not a gpushare node (no gpushare.io/gpus annotation from the node agent)',
  resolvable: false,
};

/**
 * Answers the filter for `request` of `tenant` over `candidates`. The maps returned may be kept by
 * the memo and updated in place by the next filter of the same shape: read them before that.
 */
export function answerFilter(
  ctx: AnswerContext,
  request: JobRequest,
  tenant: string,
  candidates: readonly string[],
): FilterAnswer {
  const { memo, query, nowMs } = ctx;
  const key = memo.shapeId(`${tenant}\u0000${JSON.stringify(request.gpu)}`);
  const epoch = query.scoreEpoch();
  const whole = memo.whole(key, candidates, epoch);
  if (whole !== undefined) {
    // The same shape over the same candidates: answer again for the nodes touched since only.
    for (const name of whole.changed) {
      if (whole.scores.delete(name) || whole.failed.delete(name)) answerNodes(ctx, [name], key, epoch, request, whole);
    }
    memo.storeWhole(key, candidates, epoch, whole.scores, whole.failed);
    return whole;
  }
  const answer: FilterAnswer = { scores: new Map(), failed: new Map() };
  const misses: string[] = [];
  const slots = memo.slotsOf(candidates);
  for (let i = 0; i < candidates.length; i++) {
    const name = candidates[i]!;
    // A memoised answer is for a gpushare node (the memo is cleared when the nodes change).
    const known = memo.get(slots[i], key, epoch, nowMs);
    if (known === undefined) misses.push(name);
    else if (known.score !== null) answer.scores.set(name, known.score);
    else answer.failed.set(name, known.failed!);
  }
  answerNodes(ctx, misses, key, epoch, request, answer);
  memo.storeWhole(key, candidates, epoch, answer.scores, answer.failed);
  return answer;
}

/** Answers for `names` with the core (gpushare nodes) and memoises them. */
function answerNodes(
  ctx: AnswerContext,
  names: readonly string[],
  key: number,
  epoch: number,
  request: JobRequest,
  answer: FilterAnswer,
): void {
  const asked: string[] = [];
  for (const name of names) {
    if (ctx.isGpushareNode(name)) asked.push(name);
    else answer.failed.set(name, NOT_GPUSHARE);
  }
  if (asked.length === 0) return;
  const { scores, refusals } = ctx.query.rank(request, asked);
  const lasting = refusals.size === 0 ? refusals : lastingRefusals(ctx, request, refusals);
  for (const name of asked) {
    const score = scores.get(name);
    const refusal = lasting.get(name);
    const failed =
      refusal === undefined ? null : { reason: `gpushare: ${refusalMessage(refusal)}`, resolvable: !refusal.lasting };
    if (score !== undefined) answer.scores.set(name, score);
    else answer.failed.set(name, failed!);
    ctx.memo.set(name, key, epoch, ctx.nowMs, { score: score ?? null, failed });
  }
}

/**
 * The refusals as the scheduler should read them: every node's is `fits-no-node` (the same line, so
 * the kube-scheduler counts them as one reason) when no gpushare node could ever hold the request; a
 * shortage on a node that could not hold it even empty is `node-too-small`; the rest as they are.
 * Only lasting refusals are unresolvable, so the kube-scheduler tries no preemption for them.
 */
function lastingRefusals(
  ctx: AnswerContext,
  request: JobRequest,
  refusals: ReadonlyMap<string, Status>,
): ReadonlyMap<string, Status> {
  const capacity = ctx.capacity();
  const verdict = capacity.verdict(request);
  const out = new Map<string, Status>();
  if (verdict !== null) {
    for (const name of refusals.keys()) out.set(name, verdict);
    return out;
  }
  const shortages = [...refusals].filter(([, r]) => !r.lasting).map(([name]) => name);
  const empty = shortages.length === 0 ? new Map<string, Status | null>() : capacity.emptyRefusals(request, shortages);
  for (const [name, refusal] of refusals) {
    const emptyRefusal = empty.get(name);
    out.set(name, emptyRefusal ? nodeTooSmall(name, emptyRefusal) : refusal);
  }
  return out;
}

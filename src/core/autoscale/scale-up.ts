/**
 * Scale-up: how many nodes of which templates make the pending jobs fit. The jobs that no pass
 * places on the pool as it will be (booting nodes included) and that have waited the wait-time
 * target are the demand; when there are at least the queue-length threshold of them, nodes are
 * added one at a time, each of the template with the lowest price per unit of work it places (the
 * cheapest template that fits), until every such job is placed or a cap stops it. A search fills
 * one new node at a time with a pass over that node alone; full passes over the whole pool and
 * queue then check the count and add what the search missed; then nodes no job needs are taken
 * back, so that with one node fewer of any template a counted job would not be placed. Every
 * trial is a real pass (pool-placement.ts): sharing modes, MIG, CPU and memory bind as they do for
 * the scheduler.
 */
import type { JobRequest } from '../model/request.js';
import { AUTOSCALE_CODES, status, type Status } from '../model/status.js';
import { backoffSecondsLeft } from './autoscale-state.js';
import type { AutoscaleInput, ScaleUp } from './autoscale-types.js';
import { newNodeName, templateNode, type NodeTemplate } from './node-template.js';
import { jobWork, placedJobIds, TemplateFit, trialSnapshot, type TrialBase } from './pool-placement.js';

/** The pool's size and price before the scale-up (booting nodes included, given-up ones not). */
export interface PoolTotals {
  readonly nodes: number;
  readonly costPerHour: number;
  /** Nodes by template. */
  readonly byTemplate: Readonly<Record<string, number>>;
}

/** The outcome of planScaleUp. */
export interface ScaleUpPlan {
  readonly scaleUp: readonly ScaleUp[];
  readonly jobIds: readonly number[];
  readonly statuses: readonly Status[];
}

const NOTHING: ScaleUpPlan = { scaleUp: [], jobIds: [], statuses: [] };

/** A template a trial added a node of, what that trial placed, and its price per unit of work placed. */
interface Choice {
  readonly template: NodeTemplate;
  readonly placed: Set<number>;
  readonly perWork: number;
}

/**
 * Of `open`, the template whose one more node costs least per unit of work it places (the cheapest
 * template that fits); null when none places anything. First wins a tie.
 * @param trial the jobs placed with one more node of a template, and the work they gained
 */
function cheapest(
  open: readonly NodeTemplate[],
  trial: (template: NodeTemplate) => { readonly placed: Set<number>; readonly gain: number },
): Choice | null {
  let best: Choice | null = null;
  for (const template of open) {
    const { placed, gain } = trial(template);
    if (gain <= 0) continue;
    const perWork = template.pricePerHour / gain;
    if (best === null || perWork < best.perWork) best = { template, placed, perWork };
  }
  return best;
}

/** Jobs in the order a pass takes them: higher priority first, then earlier submitted, then lower id. */
function queueOrder(a: JobRequest, b: JobRequest): number {
  return b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.id - b.id;
}

/**
 * Plans the nodes to add. Pure.
 * @param placedNow the pending jobs a pass over `base` places, by id
 */
export function planScaleUp(
  input: AutoscaleInput,
  base: TrialBase,
  totals: PoolTotals,
  placedNow: ReadonlyMap<number, unknown>,
): ScaleUpPlan {
  const { policy, templates, nowMs } = input;
  const pending = input.pending;
  const unplaced = pending.filter((j) => !placedNow.has(j.id)).sort(queueOrder);
  if (unplaced.length === 0) return NOTHING;
  const waited = unplaced.filter((j) => nowMs - j.submittedAtMs >= policy.scaleUpWaitSeconds * 1000);
  const maxWaitMs = policy.scaleUpMaxWaitSeconds === null ? null : policy.scaleUpMaxWaitSeconds * 1000;
  const overdue = maxWaitMs !== null && waited.some((j) => nowMs - j.submittedAtMs >= maxWaitMs);
  if (waited.length < policy.scaleUpQueueLength && !overdue)
    return {
      ...NOTHING,
      statuses: [
        status(AUTOSCALE_CODES.belowQueueThreshold, false, {
          jobCount: waited.length,
          threshold: policy.scaleUpQueueLength,
          waitSeconds: policy.scaleUpWaitSeconds,
        }),
      ],
    };
  const last = input.state.lastScaleUpMs;
  if (last !== null && nowMs - last < policy.scaleUpCooldownSeconds * 1000)
    return {
      ...NOTHING,
      statuses: [
        status(AUTOSCALE_CODES.scaleUpCoolingDown, false, {
          secondsLeft: Math.ceil(policy.scaleUpCooldownSeconds - (nowMs - last) / 1000),
        }),
      ],
    };

  const fit = new TemplateFit(base.scheduling, base.seed);
  const statuses: Status[] = [];
  const target: JobRequest[] = [];
  for (const job of waited) {
    if (templates.some((t) => fit.fits(job, t))) target.push(job);
    else statuses.push(status(AUTOSCALE_CODES.noTemplateFits, true, { jobId: job.id }));
  }
  const counts: Record<string, number> = {};
  const added = (): number => Object.values(counts).reduce((a, b) => a + b, 0);
  const addedCost = (): number => templates.reduce((sum, t) => sum + (counts[t.name] ?? 0) * t.pricePerHour, 0);
  const place = (trial: Readonly<Record<string, number>>): Set<number> =>
    placedJobIds(trialSnapshot(base, templates, trial), pending, base.scheduling, base.seed);
  const workOf = (placed: Set<number>): number =>
    unplaced.reduce((sum, j) => sum + (placed.has(j.id) ? jobWork(j) : 0), 0);

  /** Why `template` cannot grow by one now, or null when it can. */
  const refusal = (template: NodeTemplate, jobId: number): Status | null => {
    const secondsLeft = backoffSecondsLeft(input.state, template.name, policy, nowMs);
    if (secondsLeft > 0)
      return status(AUTOSCALE_CODES.providerBackoff, false, {
        template: template.name,
        failures: input.state.failures[template.name]?.count ?? 0,
        secondsLeft,
        jobId,
      });
    if ((totals.byTemplate[template.name] ?? 0) + (counts[template.name] ?? 0) >= template.maxCount)
      return status(AUTOSCALE_CODES.templateMaxCount, false, {
        template: template.name,
        maxCount: template.maxCount,
        jobId,
      });
    if (totals.nodes + added() >= policy.maxNodes)
      return status(AUTOSCALE_CODES.maxNodes, false, { maxNodes: policy.maxNodes, jobId });
    const costPerHour = totals.costPerHour + addedCost() + template.pricePerHour;
    if (policy.maxCostPerHour !== null && costPerHour > policy.maxCostPerHour + 1e-9)
      return status(AUTOSCALE_CODES.maxCost, false, { maxCostPerHour: policy.maxCostPerHour, costPerHour, jobId });
    return null;
  };

  let wanted = target;
  /** Adds nodes, one at a time, until a full pass places every wanted job or gives it up; that pass's placed jobs. */
  const grow = (): Set<number> => {
    let placed = place(counts);
    while (true) {
      const first = wanted.find((j) => !placed.has(j.id));
      if (first === undefined) return placed;
      const fitting = templates.filter((t) => fit.fits(first, t));
      const refusals = fitting.map((t) => refusal(t, first.id));
      const open = fitting.filter((_, i) => refusals[i] === null);
      if (open.length === 0) {
        statuses.push(refusals.find((r) => r !== null)!);
        wanted = wanted.filter((j) => j !== first);
        continue;
      }
      const before = workOf(placed);
      const best = cheapest(open, (template) => {
        const trial = place({ ...counts, [template.name]: (counts[template.name] ?? 0) + 1 });
        return { placed: trial, gain: workOf(trial) - before };
      });
      if (best === null) {
        // No node places anything more: another job's placement keeps this one out. Give it up.
        statuses.push(status(AUTOSCALE_CODES.noTemplateFits, true, { jobId: first.id }));
        wanted = wanted.filter((j) => j !== first);
        continue;
      }
      counts[best.template.name] = (counts[best.template.name] ?? 0) + 1;
      placed = best.placed;
    }
  };
  // The search fills one new node at a time with the jobs left out (a pass over that node alone:
  // cheap, and the pool's own nodes are full for them); then full passes over the whole pool and
  // queue check the count and add what the search missed.
  let rest = unplaced;
  for (let left = new Set(rest); ; left = new Set(rest)) {
    const first = wanted.find((j) => left.has(j));
    if (first === undefined) break;
    const open = templates.filter((t) => fit.fits(first, t) && refusal(t, first.id) === null);
    const best = cheapest(open, (template) => {
      const node = { nodes: [templateNode(template, newNodeName(template, 0))], active: [] };
      const trial = placedJobIds(node, rest, base.scheduling, base.seed);
      return { placed: trial, gain: rest.reduce((sum, j) => sum + (trial.has(j.id) ? jobWork(j) : 0), 0) };
    });
    // Nothing to add for it here (a cap, or it fits no node alone): the full passes decide and say why.
    if (best === null) break;
    counts[best.template.name] = (counts[best.template.name] ?? 0) + 1;
    rest = rest.filter((j) => !best.placed.has(j.id));
  }
  const placed = grow();
  const counted = wanted.filter((j) => placed.has(j.id));
  const all = (trial: Readonly<Record<string, number>>): boolean => {
    const p = place(trial);
    return counted.every((j) => p.has(j.id));
  };
  // Take back every node the counted jobs do not need, so that each remaining one is needed.
  for (let changed = true; changed;) {
    changed = false;
    for (const t of templates) {
      if ((counts[t.name] ?? 0) === 0) continue;
      const fewer = { ...counts, [t.name]: counts[t.name]! - 1 };
      if (all(fewer)) {
        counts[t.name] = fewer[t.name]!;
        changed = true;
      }
    }
  }
  const scaleUp: ScaleUp[] = templates
    .filter((t) => (counts[t.name] ?? 0) > 0)
    .map((t) => ({
      template: t.name,
      count: counts[t.name]!,
      reason: status(AUTOSCALE_CODES.unschedulableJobs, false, {
        jobCount: counted.length,
        nodeCount: counts[t.name]!,
        template: t.name,
      }),
    }));
  return { scaleUp, jobIds: scaleUp.length === 0 ? [] : counted.map((j) => j.id), statuses };
}

/**
 * Carries out a decision recorded in flight (in-flight.ts), one step at a time, writing the record
 * after each (docs/decisions/0027): first the nodes to cordon, then per template: every node that
 * leaves is cordoned and looked at again — one that runs gpushare jobs again is kept, cordoned, and
 * the count is raised by one for it — then the provider is told the count and the nodes that
 * leave. A provider failure (or a failed cordon) is recorded for the template's back-off. A step
 * is marked done whatever its outcome; the record is cleared after the last.
 *
 * Run again on a record that a restart found in flight, it skips the steps marked done and repeats
 * the others with the same requests: cordoning is idempotent, and the providers compare the
 * request with the group before writing (NodeProvider).
 */
import {
  AUTOSCALE_CODES,
  backoffSecondsLeft,
  recordProviderFailure,
  recordProviderSuccess,
  status,
  type AutoscalePolicy,
} from '../../core/index.js';
import type { AutoscalerRecord, InFlightStep, TemplateGroup } from '../ports/autoscaler-store.js';
import type { AutoscalerReport, AutoscalerReporter } from '../ports/autoscaler-reporter.js';
import type { AutoscalerStore } from '../ports/autoscaler-store.js';
import type { NodeProvider, ProviderOutcome } from '../ports/node-provider.js';
import type { PoolCluster } from '../ports/pool-cluster.js';

/** Lines for the log. */
export interface AutoscalerLog {
  info(message: string): void;
  warn(message: string): void;
}

/** What the autoscaler acts through. */
export interface AutoscalerDeps {
  readonly cluster: PoolCluster;
  readonly provider: NodeProvider;
  readonly store: AutoscalerStore;
  readonly reporter: AutoscalerReporter;
  readonly log: AutoscalerLog;
  /** Now, ms since the epoch. */
  readonly nowMs: () => number;
}

/** The empty group of a template first acted on. */
function groupOf(record: AutoscalerRecord, template: string, fromCount: number): TemplateGroup {
  return record.groups[template] ?? { desiredCount: fromCount, raisedAtMs: null, removedNodes: [], lastOutcome: null };
}

/** Where the nodes a step removes are: to hand to the provider, without a Node (booting or gone), kept. */
interface Leaving {
  /** Nodes that exist, cordoned, without gpushare jobs. */
  readonly removeNodes: string[];
  /** Nodes without a Node object: booting ones given up, or ones already gone. */
  readonly absent: string[];
  /** The step's count, plus one per node kept because it runs jobs again. */
  readonly desiredCount: number;
}

/** Cordons the nodes `step` removes, and sorts them (see Leaving). */
async function leavingNodes(deps: AutoscalerDeps, step: InFlightStep): Promise<Leaving> {
  const removeNodes: string[] = [];
  const absent: string[] = [];
  let desiredCount = step.desiredCount;
  for (const r of step.remove) {
    if (!(await deps.cluster.cordon(r.node))) {
      absent.push(r.node);
      continue;
    }
    const jobs = await deps.cluster.jobsOn(r.node);
    if (jobs.length > 0) {
      desiredCount += 1;
      deps.log.warn(
        `node ${r.node} is kept, cordoned: gpushare pods were bound to it since the decision (${jobs.join(', ')})`,
      );
      const reason = status(AUTOSCALE_CODES.nodeNotEmpty, false, { node: r.node, template: step.template, jobs });
      await deps.reporter.report({ kind: 'kept-busy', node: r.node, template: step.template, jobs, reason });
      continue;
    }
    removeNodes.push(r.node);
  }
  return { removeNodes, absent, desiredCount };
}

/**
 * Carries out one step. @returns the record after it (the step marked done) and what to report once
 *   that record is saved
 */
async function runStep(
  deps: AutoscalerDeps,
  policy: AutoscalePolicy,
  record: AutoscalerRecord,
  decision: { id: string; decidedAtMs: number },
  step: InFlightStep,
): Promise<{ record: AutoscalerRecord; reports: AutoscalerReport[] }> {
  const group = groupOf(record, step.template, step.fromCount);
  const reports: AutoscalerReport[] = [];
  let outcome: ProviderOutcome;
  let leaving: Leaving = { removeNodes: [], absent: [], desiredCount: step.desiredCount };
  try {
    leaving = await leavingNodes(deps, step);
    outcome = await deps.provider.scale({
      decisionId: decision.id,
      template: step.template,
      desiredCount: leaving.desiredCount,
      removeNodes: leaving.removeNodes,
    });
  } catch (err) {
    outcome = { ok: false, changed: false, detail: (err as Error).message };
  }
  const nowMs = deps.nowMs();
  const lastOutcome = { ok: outcome.ok, detail: outcome.detail, atMs: nowMs };
  let state = record.state;
  let next: TemplateGroup;
  const { removeNodes, absent, desiredCount } = leaving;
  if (outcome.ok) {
    state = recordProviderSuccess(state, step.template);
    next = {
      desiredCount,
      raisedAtMs: desiredCount > step.fromCount ? decision.decidedAtMs : group.raisedAtMs,
      removedNodes: [...group.removedNodes, ...removeNodes.filter((n) => !group.removedNodes.includes(n))],
      lastOutcome,
    };
    deps.log.info(`${deps.provider.kind} provider, template ${step.template}: ${outcome.detail}`);
    for (const r of step.remove) {
      const nodeExists = removeNodes.includes(r.node);
      if (nodeExists || absent.includes(r.node))
        reports.push({
          kind: 'remove',
          node: r.node,
          template: step.template,
          reason: r.reason,
          nodeExists,
        });
    }
    const reason = step.scaleUp?.reason ?? step.remove[0]?.reason;
    if (reason !== undefined && desiredCount !== step.fromCount)
      reports.push({
        kind: 'scale',
        template: step.template,
        fromCount: step.fromCount,
        toCount: desiredCount,
        reason,
        unchanged: !outcome.changed,
      });
  } else {
    state = recordProviderFailure(state, step.template, nowMs);
    next = { ...group, lastOutcome };
    const reason = status(AUTOSCALE_CODES.providerBackoff, false, {
      template: step.template,
      failures: state.failures[step.template]?.count ?? 1,
      secondsLeft: backoffSecondsLeft(state, step.template, policy, nowMs),
    });
    deps.log.warn(`${deps.provider.kind} provider failed for template ${step.template}: ${outcome.detail}`);
    reports.push({ kind: 'provider-failure', template: step.template, reason, detail: outcome.detail });
  }
  const inFlight = record.inFlight!;
  return {
    record: {
      ...record,
      state,
      groups: { ...record.groups, [step.template]: next },
      inFlight: {
        ...inFlight,
        steps: inFlight.steps.map((s) => (s.template === step.template ? { ...s, done: true } : s)),
      },
    },
    reports,
  };
}

/**
 * Carries out `record.inFlight` (steps not done yet), saving the record after each step and once
 * more, cleared, at the end. @returns the record saved last
 * @throws Error when the store cannot be written (the decision stays in flight for the next round)
 */
export async function carryOut(
  deps: AutoscalerDeps,
  policy: AutoscalePolicy,
  start: AutoscalerRecord,
): Promise<AutoscalerRecord> {
  let record = start;
  const decision = record.inFlight;
  if (decision === null) return record;
  if (!decision.cordonsDone) {
    const cordoned: AutoscalerReport[] = [];
    for (const c of decision.cordon) {
      try {
        if (await deps.cluster.cordon(c.node))
          cordoned.push({ kind: 'cordon', node: c.node, template: c.template, reason: c.reason });
      } catch (err) {
        deps.log.warn(`could not cordon node ${c.node}: ${(err as Error).message}`);
      }
    }
    record = { ...record, inFlight: { ...decision, cordonsDone: true } };
    await deps.store.save(record);
    for (const report of cordoned) await deps.reporter.report(report);
  }
  for (const step of decision.steps) {
    if (step.done) continue;
    const done = await runStep(deps, policy, record, decision, step);
    record = done.record;
    // Reported once the step is recorded: a restart before that repeats the step and reports it then.
    await deps.store.save(record);
    for (const report of done.reports) await deps.reporter.report(report);
  }
  record = { ...record, inFlight: null };
  await deps.store.save(record);
  return record;
}

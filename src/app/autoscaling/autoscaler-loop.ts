/**
 * One autoscaler (docs/autoscaler.md, "Providers and `gpushare autoscaler`"): each round finishes
 * a decision a restart left in flight, reads the cluster, asks the core's `autoscale` what the pool
 * should do, records the decision in the store before the first action, and carries it out through
 * the provider (decision-runner.ts). Rounds are started by the owner (src/main/autoscaler.ts runs
 * one every `--interval-seconds`), one at a time.
 */
import {
  autoscale,
  INITIAL_AUTOSCALE_STATE,
  type AutoscaleDecision,
  type AutoscalePolicy,
  type NodeTemplate,
  type ScheduleOptions,
} from '../../core/index.js';
import type { AutoscalerRecord, TemplateGroup } from '../ports/autoscaler-store.js';
import { carryOut, type AutoscalerDeps } from './decision-runner.js';
import { planInFlight } from './in-flight.js';
import { poolNow } from './pool-nodes.js';

/** What the autoscaler decides with. */
export interface AutoscalerSettings {
  readonly templates: readonly NodeTemplate[];
  readonly policy: AutoscalePolicy;
  /** How jobs are placed: the same as the scheduler's (the extender's `--policy`). */
  readonly scheduling?: ScheduleOptions;
}

/** What one round did. */
export interface RoundResult {
  /** The id of a decision found in flight and finished first; null for none. */
  readonly resumed: string | null;
  /** The core's decision of this round. */
  readonly decision: AutoscaleDecision;
  /** The id of the decision carried out this round; null when it changed nothing. */
  readonly carriedOut: string | null;
  /** The record saved at the end of the round. */
  readonly record: AutoscalerRecord;
}

/** The record of an autoscaler that has done nothing yet. */
export const EMPTY_RECORD: AutoscalerRecord = { schema: 1, state: INITIAL_AUTOSCALE_STATE, groups: {}, inFlight: null };

/** An autoscaler's rounds. */
export class AutoscalerLoop {
  private record: AutoscalerRecord | null = null;
  private decisions = 0;

  constructor(
    private readonly deps: AutoscalerDeps,
    private readonly settings: AutoscalerSettings,
  ) {}

  /**
   * Runs one round. @throws Error when the cluster or the store cannot be read or written (the
   *   record is read again next round; a decision in flight stays recorded and is finished then)
   */
  async round(): Promise<RoundResult> {
    const { deps, settings } = this;
    try {
      let record = this.record ?? (await deps.store.load()) ?? EMPTY_RECORD;
      let resumed: string | null = null;
      if (record.inFlight !== null) {
        resumed = record.inFlight.id;
        const stepsLeft = record.inFlight.steps.filter((s) => !s.done).length;
        deps.log.info(`finishing decision ${resumed} found in flight (${stepsLeft} step(s) left)`);
        await deps.reporter.report({ kind: 'resumed', decisionId: resumed, stepsLeft });
        record = await carryOut(deps, settings.policy, record);
      }
      const nowMs = deps.nowMs();
      const view = await deps.cluster.read();
      const pool = poolNow(view, record.groups, settings.templates, nowMs);
      const decision = autoscale({
        nowMs,
        snapshot: pool.snapshot,
        pool: pool.pool,
        pending: view.pending,
        templates: settings.templates,
        policy: settings.policy,
        state: record.state,
        ...(settings.scheduling ? { scheduling: settings.scheduling } : {}),
      });
      const id = `${nowMs}-${++this.decisions}`;
      const planned = planInFlight(decision, pool.desired, record.state, settings.policy, id, nowMs);
      await deps.reporter.report({ kind: 'waits', statuses: [...decision.statuses, ...planned.held] });
      const groups: Record<string, TemplateGroup> = {};
      for (const t of settings.templates) {
        const group = record.groups[t.name];
        const count = planned.counts[t.name] ?? pool.desired[t.name] ?? 0;
        groups[t.name] = {
          desiredCount: count,
          raisedAtMs: group?.raisedAtMs ?? null,
          removedNodes: pool.removing[t.name] ?? [],
          lastOutcome: group?.lastOutcome ?? null,
        };
      }
      const next: AutoscalerRecord = { ...record, state: decision.state, groups, inFlight: planned.inFlight };
      if (JSON.stringify(next) !== JSON.stringify(record)) await deps.store.save(next);
      record = next;
      if (planned.inFlight !== null) record = await carryOut(deps, settings.policy, record);
      for (const t of settings.templates)
        await deps.reporter.report({ kind: 'desired', template: t.name, count: record.groups[t.name]!.desiredCount });
      this.record = record;
      return { resumed, decision, carriedOut: planned.inFlight?.id ?? null, record };
    } catch (err) {
      this.record = null;
      throw err;
    }
  }
}

/**
 * The autoscaler's /metrics (`gpushare autoscaler`, docs/autoscaler.md): its actions by kind,
 * template and reason code, each template's desired count, provider failures, the reasons nothing
 * was done in the last round, decisions finished after a restart, and rounds. Fed by the same
 * reports as its Events (app/ports/autoscaler-reporter.ts).
 *
 * - `gpushare_autoscaler_actions_total{action,template,reason}` counter; action `scale-up`,
 *   `scale-down`, `cordon`, `remove`, `keep-busy` (a node chosen for removal that runs pods again);
 *   reason the Status code (`unschedulable-jobs`, `node-idle`, ...; `node-not-empty` for `keep-busy`)
 * - `gpushare_autoscaler_desired_nodes{template}` gauge: the count last carried out
 * - `gpushare_autoscaler_provider_failures_total{template}` counter
 * - `gpushare_autoscaler_waits{reason}` gauge: Statuses of the last round by code (e.g.
 *   `no-template-fits`, `provider-backoff`)
 * - `gpushare_autoscaler_resumed_decisions_total` counter: decisions found in flight at a start
 * - `gpushare_autoscaler_rounds_total{outcome}` counter, outcome `ok` or `error`
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { AutoscalerReport, AutoscalerReporter } from '../../app/ports/autoscaler-reporter.js';

/** The registry and what feeds it. */
export interface AutoscalerMetrics {
  readonly registry: Registry;
  readonly reporter: AutoscalerReporter;
  /** Counts a round and how it ended. */
  round(outcome: 'ok' | 'error'): void;
}

/** Builds the registry. @param version the package version (`gpushare_build_info`) */
export function createAutoscalerMetrics(version: string): AutoscalerMetrics {
  const registry = new Registry();
  new Gauge({
    name: 'gpushare_build_info',
    help: 'gpushare build (always 1).',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
  const actions = new Counter({
    name: 'gpushare_autoscaler_actions_total',
    help: 'Autoscaler actions by kind (scale-up, scale-down, cordon, remove, keep-busy), template and reason code.',
    labelNames: ['action', 'template', 'reason'],
    registers: [registry],
  });
  const desired = new Gauge({
    name: 'gpushare_autoscaler_desired_nodes',
    help: "Nodes each template's group was last asked to have.",
    labelNames: ['template'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'gpushare_autoscaler_provider_failures_total',
    help: 'Provider calls that failed (non-zero exit, time-out, API error), by template.',
    labelNames: ['template'],
    registers: [registry],
  });
  const waits = new Gauge({
    name: 'gpushare_autoscaler_waits',
    help: 'Reasons the last round did nothing or less, by code.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const resumed = new Counter({
    name: 'gpushare_autoscaler_resumed_decisions_total',
    help: 'Decisions found in flight at a start and finished.',
    registers: [registry],
  });
  const rounds = new Counter({
    name: 'gpushare_autoscaler_rounds_total',
    help: 'Autoscaler rounds by outcome (ok, error).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const reporter: AutoscalerReporter = {
    async report(report: AutoscalerReport): Promise<void> {
      switch (report.kind) {
        case 'scale':
          if (report.toCount !== report.fromCount)
            actions.inc({
              action: report.toCount > report.fromCount ? 'scale-up' : 'scale-down',
              template: report.template,
              reason: report.reason.code,
            });
          return;
        case 'cordon':
        case 'remove':
          actions.inc({ action: report.kind, template: report.template, reason: report.reason.code });
          return;
        case 'kept-busy':
          actions.inc({ action: 'keep-busy', template: report.template, reason: report.reason.code });
          return;
        case 'provider-failure':
          failures.inc({ template: report.template });
          return;
        case 'waits': {
          waits.reset();
          for (const s of report.statuses) waits.inc({ reason: s.code });
          return;
        }
        case 'resumed':
          resumed.inc();
          return;
        case 'desired':
          desired.set({ template: report.template }, report.count);
          return;
      }
    },
  };
  return { registry, reporter, round: (outcome) => rounds.inc({ outcome }) };
}

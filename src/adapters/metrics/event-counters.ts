/**
 * Counters and the pass histogram (docs/metrics.md "Scheduler and job events"), fed from the
 * plane's event bus (src/app/scheduling/plane-events.ts). Job counters follow the committed
 * transitions the store reports (observed-store.ts), so they count exactly what the store recorded:
 * - submitted: a job inserted (`from` null);
 * - placements: a transition to `scheduled`, labelled with the placement's sharing mode;
 * - preemptions: a victim's transition to `preempted`, labelled with the victim's tenant and class;
 * - outcomes: a transition to `succeeded`, `failed` or `cancelled`.
 * The histogram gets one observation per `pass` event, i.e. per scheduling pass the plane ran
 * (the same passes `GET /api/v1/status` counts in `scheduler.passes`).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { priorityClassOf } from '../../core/index.js';
import type { PlaneEvents } from '../../app/scheduling/plane-events.js';

/** Bucket bounds of the pass-duration histogram, seconds (passes take from microseconds to a few hundred ms). */
export const PASS_DURATION_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/**
 * Registers the counters and the histogram; `tenants` are pre-set to 0; returns the function that stops following
 * events.
 */
export function registerEventCounters(registry: Registry, events: PlaneEvents, tenants: readonly string[]): () => void {
  const passes = new Histogram({
    name: 'gpushare_scheduling_pass_duration_seconds',
    help: 'Duration of each scheduling pass, seconds (one observation per pass).',
    buckets: PASS_DURATION_BUCKETS_SECONDS,
    registers: [registry],
  });
  const submitted = new Counter({
    name: 'gpushare_jobs_submitted_total',
    help: 'Jobs submitted, by tenant.',
    labelNames: ['tenant'],
    registers: [registry],
  });
  const placements = new Counter({
    name: 'gpushare_placements_total',
    help: 'Jobs placed on GPUs (transitions to scheduled), by tenant and sharing mode.',
    labelNames: ['tenant', 'mode'],
    registers: [registry],
  });
  const preemptions = new Counter({
    name: 'gpushare_preemptions_total',
    help: "Jobs preempted (victims), by the victim's tenant and priority class.",
    labelNames: ['tenant', 'priority_class'],
    registers: [registry],
  });
  const reconfigurations = new Counter({
    name: 'gpushare_mig_reconfigurations_total',
    help: 'GPUs whose MIG instances were destroyed or created to launch a job.',
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'gpushare_job_outcomes_total',
    help: 'Jobs that ended, by tenant and outcome (succeeded, failed, cancelled).',
    labelNames: ['tenant', 'outcome'],
    registers: [registry],
  });
  for (const tenant of tenants) {
    submitted.inc({ tenant }, 0);
    for (const outcome of ['succeeded', 'failed', 'cancelled']) outcomes.inc({ tenant, outcome }, 0);
  }
  return events.on((event) => {
    switch (event.type) {
      case 'pass':
        passes.observe(event.durationMs / 1000);
        break;
      case 'mig-reconfigured':
        reconfigurations.inc(event.count);
        break;
      case 'job':
        if (event.from === null) submitted.inc({ tenant: event.tenant });
        else if (event.to === 'scheduled') placements.inc({ tenant: event.tenant, mode: event.mode ?? 'none' });
        else if (event.to === 'preempted')
          preemptions.inc({ tenant: event.tenant, priority_class: priorityClassOf(event.priority) });
        else if (event.to === 'succeeded' || event.to === 'failed' || event.to === 'cancelled')
          outcomes.inc({ tenant: event.tenant, outcome: event.to });
        break;
      default:
        break;
    }
  });
}

/**
 * Queue gauges (docs/metrics.md "Queue"): jobs waiting to run (pending, or preempted and waiting to
 * resume) and how long the oldest has waited, by tenant and priority class. The wait is measured
 * from the job's submit time, as the queue's aging does (src/core/queue/queue-order.ts).
 */
import type { Registry } from 'prom-client';
import { PRIORITY_CLASSES, priorityClassOf } from '../../core/index.js';
import { collectedGauge } from './collected-gauge.js';
import type { ScrapeSnapshot } from './scrape-snapshot.js';

/** Registers the queue gauges. Every (tenant, priority class) is reported, with 0 when nothing waits. */
export function registerQueueMetrics(registry: Registry, snapshot: () => ScrapeSnapshot): void {
  /** Per tenant and class: count and earliest submit time of the waiting jobs. */
  const groups = (s: ScrapeSnapshot) => {
    const byKey = new Map<string, { tenant: string; priority_class: string; count: number; oldestMs: number | null }>();
    const key = (tenant: string, cls: string) => `${tenant}\u0000${cls}`;
    for (const tenant of s.tenants)
      for (const cls of Object.keys(PRIORITY_CLASSES))
        byKey.set(key(tenant, cls), { tenant, priority_class: cls, count: 0, oldestMs: null });
    for (const job of s.activeJobs) {
      if (job.state !== 'pending' && job.state !== 'preempted') continue;
      const cls = priorityClassOf(job.priority);
      const entry = byKey.get(key(job.tenant, cls)) ?? {
        tenant: job.tenant,
        priority_class: cls,
        count: 0,
        oldestMs: null,
      };
      entry.count++;
      entry.oldestMs = entry.oldestMs === null ? job.submittedAtMs : Math.min(entry.oldestMs, job.submittedAtMs);
      byKey.set(key(job.tenant, cls), entry);
    }
    return [...byKey.values()];
  };
  collectedGauge(registry, {
    name: 'gpushare_queue_pending_jobs',
    help: 'Jobs waiting to run (pending, or preempted and waiting to resume), by tenant and priority class.',
    labelNames: ['tenant', 'priority_class'],
    fill: (set) => {
      for (const g of groups(snapshot())) set({ tenant: g.tenant, priority_class: g.priority_class }, g.count);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_queue_oldest_wait_seconds',
    help: 'Seconds since the submit of the oldest waiting job, by tenant and priority class; 0 when none waits.',
    labelNames: ['tenant', 'priority_class'],
    fill: (set) => {
      const s = snapshot();
      for (const g of groups(s))
        set(
          { tenant: g.tenant, priority_class: g.priority_class },
          g.oldestMs === null ? 0 : Math.max(0, (s.nowMs - g.oldestMs) / 1000),
        );
    },
  });
}

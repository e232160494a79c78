/**
 * Tenant quota gauges (docs/metrics.md "Tenants"): GPU-equivalents each tenant holds, its guarantee
 * and its limit (absent when unlimited), as `GET /api/v1/quotas` reports them
 * (src/app/services/quota-use.ts; GPU-equivalents: src/core/fairness).
 */
import type { Registry } from 'prom-client';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import type { StateStore } from '../../app/ports/state-store.js';
import { quotaUse } from '../../app/services/quota-use.js';
import { collectedGauge } from './collected-gauge.js';
import type { ScrapeSnapshot } from './scrape-snapshot.js';

/** Registers the quota gauges. */
export function registerTenantMetrics(
  registry: Registry,
  plane: ControlPlane,
  store: StateStore,
  snapshot: () => ScrapeSnapshot,
): void {
  const uses = () => {
    const s = snapshot();
    const queued = s.activeJobs.filter((j) => j.state === 'pending' || j.state === 'preempted');
    return quotaUse(store.listTenants(), [...s.placedJobs.values()], queued, plane.roster.devices());
  };
  collectedGauge(registry, {
    name: 'gpushare_tenant_quota_used_gpu_equivalents',
    help: "GPU-equivalents held by the tenant's scheduled and running jobs.",
    labelNames: ['tenant'],
    fill: (set) => {
      for (const u of uses()) set({ tenant: u.tenant }, u.usedGpuEquivalents);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_tenant_quota_guaranteed_gpu_equivalents',
    help: 'GPU-equivalents guaranteed to the tenant.',
    labelNames: ['tenant'],
    fill: (set) => {
      for (const u of uses()) set({ tenant: u.tenant }, u.guaranteedGpuEquivalents);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_tenant_quota_limit_gpu_equivalents',
    help: 'Most GPU-equivalents the tenant may hold; absent when unlimited.',
    labelNames: ['tenant'],
    fill: (set) => {
      for (const u of uses()) if (u.limitGpuEquivalents !== null) set({ tenant: u.tenant }, u.limitGpuEquivalents);
    },
  });
}

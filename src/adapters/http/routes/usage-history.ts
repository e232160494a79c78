/**
 * `GET /api/v1/usage/history`: the usage samples the dashboard charts (cluster allocation ratio,
 * mean measured utilization, per-GPU allocated milli-GPU), oldest first. Every principal may read
 * it: it holds cluster totals only, no job or tenant names.
 */
import { UsageHistorySchema } from '../../../contract/api.js';
import { toUsageSampleView } from '../../../app/services/dashboard-snapshot.js';
import { authorize } from '../../../app/auth/authorize.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** Registers the usage-history route. */
export function registerUsageHistoryRoutes(api: Api, { usageHistory }: ServerServices): void {
  api.get(
    '/usage/history',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Cluster allocation and utilization over time',
        response: { 200: UsageHistorySchema },
      },
    },
    async (request) => {
      authorize(request.principal, 'usage.read');
      return {
        intervalSeconds: usageHistory.intervalMs / 1000,
        capacity: usageHistory.capacity,
        samples: usageHistory.samples().map(toUsageSampleView),
      };
    },
  );
}

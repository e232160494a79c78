/**
 * `GET /api/v1/dashboard/jobs`: the dashboard's job list, filtered on the server (name pattern,
 * states, tenant) and paged, with the count of every matching job
 * (app/services/dashboard-jobs.ts). A bad query is a 400 naming the field.
 */
import type { JobState } from '../../../core/index.js';
import {
  DASHBOARD_JOB_PAGE_DEFAULT,
  DashboardJobPageSchema,
  DashboardJobsQuerySchema,
} from '../../../contract/dashboard.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** Registers the dashboard's job-list route. */
export function registerDashboardJobRoutes(api: Api, services: ServerServices): void {
  api.get(
    '/dashboard/jobs',
    {
      schema: {
        tags: ['dashboard'],
        summary:
          "The dashboard's job list: jobs matching a name pattern, states and a tenant, one page at a " +
          'time, with their count',
        querystring: DashboardJobsQuerySchema,
        response: { 200: DashboardJobPageSchema },
      },
    },
    async (request) => {
      const { name, states, tenant, limit, offset } = request.query;
      return services.dashboardJobs(request.principal, {
        namePattern: name ?? null,
        states: states === undefined ? null : (states.split(',') as JobState[]),
        tenant: tenant ?? null,
        limit: limit ?? DASHBOARD_JOB_PAGE_DEFAULT,
        offset: offset ?? 0,
      });
    },
  );
}

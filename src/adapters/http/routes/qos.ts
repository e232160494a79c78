/**
 * QoS route: `POST /api/v1/jobs/:id/qos-reports` (a running job's progress report, and the GPU use it
 * reports for its usage peak; the job's own report token, its tenant's token or an admin token). See
 * docs/qos.md and docs/server.md "Measured peaks".
 */
import { QosReportResultSchema, QosReportSchema } from '../../../contract/api.js';
import type { ServerServices } from '../server-services.js';
import { IdParams, type Api } from './jobs.js';

/** Registers the QoS routes. */
export function registerQosRoutes(api: Api, services: ServerServices): void {
  const { qos } = services;
  api.post(
    '/jobs/:id/qos-reports',
    {
      schema: {
        tags: ['qos'],
        summary:
          "Report a running job's progress against its QoS targets, or the GPU memory and utilization it uses " +
          "(the job's GPUSHARE_JOB_TOKEN, its tenant's token, or an admin token)",
        // The same id check as the job routes: an id above 2^53-1 is a 400, not a rounded "not found".
        params: IdParams,
        body: QosReportSchema,
        response: { 200: QosReportResultSchema },
      },
    },
    async (request) => qos.report(request.principal, request.params.id, request.body),
  );
}

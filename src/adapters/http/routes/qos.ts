/**
 * QoS route: `POST /api/v1/jobs/:id/qos-reports` (a running job's progress report; the job's own
 * report token, its tenant's token or an admin token). See docs/qos.md.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { QosReportResultSchema, QosReportSchema } from '../../../contract/api.js';
import { QosService } from '../../../app/qos/qos-service.js';
import type { ServerServices } from '../build-server.js';
import { IdParams, type Api } from './jobs.js';

/**
 * The zod validator, keeping only the first issue of each field: `{"stepSeconds":1e999}` (JSON
 * reads it as Infinity) breaks both "finite" and "at most 86400"; the answer names the first.
 */
function firstIssuePerField(route: Parameters<FastifySchemaCompiler<unknown>>[0]): ReturnType<FastifySchemaCompiler<unknown>> {
  const validate = validatorCompiler(route as Parameters<FastifySchemaCompiler<ZodTypeAny>>[0]);
  return (data) => {
    const result = validate(data);
    if (typeof result !== 'object' || !('error' in result) || !Array.isArray(result.error)) return result;
    const seen = new Set<string>();
    return {
      error: result.error.filter((issue) => {
        if (seen.has(issue.instancePath)) return false;
        seen.add(issue.instancePath);
        return true;
      }),
    };
  };
}

/** Registers the QoS routes. */
export function registerQosRoutes(api: Api, services: ServerServices): void {
  const qos = new QosService(services.plane);
  api.post('/jobs/:id/qos-reports', {
    schema: {
      tags: ['qos'],
      summary: 'Report a running job\'s progress against its QoS targets (the job\'s GPUSHARE_JOB_TOKEN, its tenant\'s token, or an admin token)',
      // The same id check as the job routes: an id above 2^53-1 is a 400, not a rounded "not found".
      params: IdParams,
      body: QosReportSchema,
      response: { 200: QosReportResultSchema },
    },
    validatorCompiler: firstIssuePerField,
  }, async (request) => qos.report(request.principal, request.params.id, request.body));
}

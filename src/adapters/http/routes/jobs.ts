/**
 * Job routes: submit, list, show, cancel (one, or many by a selector), logs.
 */
import type {
  FastifyInstance,
  RawServerDefault,
  FastifyBaseLogger,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
} from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  decimalParameter,
  JobDetailSchema,
  NoBodySchema,
  JobSchema,
  LogsQuerySchema,
  LogsSchema,
  SubmitJobSchema,
} from '../../../contract/api.js';
import { BulkCancelResultSchema, BulkCancelSchema } from '../../../contract/bulk-cancel.js';
import { JobPageSchema, JobTablePageSchema, ListJobsQuerySchema } from '../../../contract/job-list.js';
import { diskLow, invalidField } from '../../../app/errors.js';
import { authorize } from '../../../app/auth/authorize.js';
import type { ServerServices } from '../server-services.js';

/** The Fastify instance type the routes are registered on. */
export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** `:id` path parameter. */
export const IdParams = z.object({ id: decimalParameter(1, Number.MAX_SAFE_INTEGER, 'the job id') });

/** Registers the job routes. */
export function registerJobRoutes(api: Api, { jobs, diskProblem }: ServerServices): void {
  api.post(
    '/jobs',
    { schema: { tags: ['jobs'], summary: 'Submit a job', body: SubmitJobSchema, response: { 201: JobSchema } } },
    async (request, reply) => {
      // Below the free-space threshold a new job is refused before any write could fail (docs/server.md), after
      // the caller's right to submit (403 first).
      const problem = diskProblem?.() ?? null;
      if (problem?.reason === 'disk-low') {
        authorize(request.principal, 'job.submit', { tenant: request.body.tenant ?? request.principal.tenant });
        throw diskLow(problem.dataDir, problem.freeBytes, problem.minFreeBytes);
      }
      return reply.status(201).send(jobs.submit(request.principal, request.body));
    },
  );
  api.get(
    '/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary:
          'List jobs by ascending id (active only unless all=true or state=), a page at a time with limit= and ' +
          'after=; with view=table the rows of the job table instead',
        querystring: ListJobsQuerySchema,
        response: { 200: z.union([JobPageSchema, JobTablePageSchema]) },
      },
      // The page is built from typed views (JobPage): plain JSON.stringify, not a zod parse of every
      // job first (the route tests check answers against JobPageSchema).
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request) => {
      const { all, state, tenant, name, since, limit, after, fields, view } = request.query;
      if (view === 'table' && fields !== undefined)
        throw invalidField('fields', 'not with view=table: the table has its own columns');
      const query = {
        all: all === 'true',
        ...(state === undefined ? {} : { states: state }),
        ...(tenant === undefined ? {} : { tenant }),
        ...(name === undefined ? {} : { namePattern: name }),
        ...(since === undefined ? {} : { submittedSinceMs: since }),
        ...(limit === undefined ? {} : { limit }),
        ...(after === undefined ? {} : { afterId: after }),
        ...(fields === undefined ? {} : { fields }),
      };
      return view === 'table' ? jobs.listTablePage(request.principal, query) : jobs.listPage(request.principal, query);
    },
  );
  api.post(
    '/jobs/cancel',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel the jobs a selector names (ids, states, tenant, name pattern, submitted since)',
        body: BulkCancelSchema,
        response: { 200: BulkCancelResultSchema },
      },
    },
    async (request) => {
      return jobs.cancelMany(request.principal, request.body);
    },
  );
  api.get(
    '/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        summary: 'A job with its transitions and attempts',
        params: IdParams,
        response: { 200: JobDetailSchema },
      },
    },
    async (request) => {
      return jobs.get(request.principal, request.params.id);
    },
  );
  api.post(
    '/jobs/:id/cancel',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel a job',
        params: IdParams,
        body: NoBodySchema,
        response: { 200: JobSchema },
      },
    },
    async (request) => {
      return jobs.cancel(request.principal, request.params.id);
    },
  );
  api.get(
    '/jobs/:id/logs',
    {
      schema: {
        tags: ['jobs'],
        summary: "Read an attempt's output from a byte offset",
        params: IdParams,
        querystring: LogsQuerySchema,
        response: { 200: LogsSchema },
      },
    },
    async (request) => {
      const { stream, attempt, offset } = request.query;
      return jobs.logs(request.principal, request.params.id, {
        stream,
        offset,
        ...(attempt !== undefined ? { attempt } : {}),
      });
    },
  );
}

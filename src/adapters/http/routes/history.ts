/**
 * `GET /api/v1/history`: the jobs the server ran, as a trace file in the simulator's pod-list format
 * (text/csv; contract/history.ts, docs/server.md "History as a trace"): every tenant's for an admin,
 * its own tenant's for anyone else. Streamed a page of jobs at a time.
 */
import { Readable } from 'node:stream';
import { HISTORY_CONTENT_TYPE, HistoryCsvSchema, HistoryQuerySchema } from '../../../contract/history.js';
import type { ServerServices } from '../server-services.js';
import { textResponse } from '../text-responses.js';
import type { Api } from './jobs.js';

/** Registers the history route. */
export function registerHistoryRoutes(api: Api, { jobs }: ServerServices): void {
  api.get(
    '/history',
    {
      schema: {
        tags: ['jobs'],
        summary:
          "The jobs that ran and ended, as a trace in the simulator's pod-list format (text/csv), " +
          'submitted in [since, until)',
        querystring: HistoryQuerySchema,
        response: { 200: textResponse(HistoryCsvSchema, 'text/csv') },
      },
    },
    async (request, reply) => {
      const { since, until } = request.query;
      const chunks = jobs.history(request.principal, {
        ...(since === undefined ? {} : { sinceMs: since }),
        ...(until === undefined ? {} : { untilMs: until }),
      });
      // A stream is sent as it is read (not through the response schema, which types the answer as the text it makes).
      return reply.type(HISTORY_CONTENT_TYPE).send(Readable.from(chunks) as unknown as string);
    },
  );
}

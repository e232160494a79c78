/**
 * Declares the API's error answers on every documented route: each route's `response` schema gets
 * `4xx` and `5xx` entries holding the one error body of the API (`ErrorSchema` of src/contract:
 * `{ error: { code, message, details? } }`), so that /openapi.json says what a failed call returns
 * and the body of every error answer is checked against that schema when it is sent. A route that
 * declares its own `4xx`/`5xx` (or a specific error status) keeps it; hidden routes (`/healthz`,
 * `/openapi.json`, `/metrics`) and routes without a response schema are left alone.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorSchema } from '../../contract/api.js';

/** The error entries added to each route's responses: every 4xx and 5xx answer is an `ErrorSchema` body. */
export const ERROR_RESPONSES = {
  '4xx': ErrorSchema.describe(
    'the request was refused: error.code names the cause (e.g. GPUSHARE_INVALID_FIELD, ' +
      'GPUSHARE_UNAUTHENTICATED, GPUSHARE_FORBIDDEN, GPUSHARE_JOB_NOT_FOUND, GPUSHARE_CONFLICT), ' +
      'error.message the field and the allowed values',
  ),
  '5xx': ErrorSchema.describe(
    'the server could not do it: GPUSHARE_DRAINING (503), GPUSHARE_DISK_FULL (507), or an internal error ' +
      'whose details are in the server log',
  ),
} as const;

/** Adds {@link ERROR_RESPONSES} to the response schema of `route` (mutated), when it has one and is not hidden. */
function declareErrorResponses(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (schema === undefined || schema.hide === true || schema.response === undefined) return;
  schema.response = { ...ERROR_RESPONSES, ...schema.response };
}

/** Installs the hook on `app`; call it before any route (and the OpenAPI plugin) is registered. */
export function registerErrorResponses(app: FastifyInstance): void {
  app.addHook('onRoute', declareErrorResponses);
}

/**
 * Declares the API's error answers on every documented route: each route's `response` schema gets
 * `4xx` and `5xx` entries holding the one error body of the API (`ErrorSchema` of src/contract:
 * `{ error: { code, message, details? } }`), and the statuses every call can answer by name (400,
 * 401, 403, 429; 404 with a path parameter; 413 and 415 with a body), so that /openapi.json says
 * what a failed call returns and the body of every error answer is checked against that schema
 * when it is sent. A route that declares its own `4xx`/`5xx` (or a specific error status) keeps it;
 * hidden routes (`/healthz`, `/openapi.json`, `/metrics`) and routes without a response schema are
 * left alone.
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

/**
 * The error statuses a documented route names one by one, beside the `4xx`/`5xx` catch-alls: those
 * every API call can answer (400 a request that breaks the document, 401 no valid token, 403 a role
 * or a job token's scope that does not allow it, 429 the token's request rate spent), 404 where the
 * path names something, and 413/415 where the route reads a body.
 */
function namedErrorResponses(route: RouteOptions, hasBody: boolean): Record<string, typeof ErrorSchema> {
  const named: Record<string, typeof ErrorSchema> = {
    400: ErrorSchema.describe('the request breaks this document: GPUSHARE_INVALID_FIELD, details naming each field'),
    401: ErrorSchema.describe('no token, or a wrong, revoked or expired one: GPUSHARE_UNAUTHENTICATED'),
    403: ErrorSchema.describe("the token's role or scope does not allow this call: GPUSHARE_FORBIDDEN"),
    429: ErrorSchema.describe(
      "the token's request rate is spent: GPUSHARE_TOO_MANY_REQUESTS, with Retry-After in seconds",
    ),
  };
  if (route.url.includes(':'))
    named[404] = ErrorSchema.describe('what the path names does not exist, or the caller may not see it');
  if (hasBody) {
    named[413] = ErrorSchema.describe('a body over 1 MiB: GPUSHARE_BODY_TOO_LARGE');
    named[415] = ErrorSchema.describe('a body that is not application/json: GPUSHARE_UNSUPPORTED_MEDIA_TYPE');
  }
  return named;
}

/** Adds {@link ERROR_RESPONSES} to the response schema of `route` (mutated), when it has one and is not hidden. */
function declareErrorResponses(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; body?: unknown; response?: Record<string, unknown> } | undefined;
  if (schema === undefined || schema.hide === true || schema.response === undefined) return;
  schema.response = {
    ...ERROR_RESPONSES,
    ...namedErrorResponses(route, schema.body !== undefined),
    ...schema.response,
  };
}

/** Installs the hook on `app`; call it before any route (and the OpenAPI plugin) is registered. */
export function registerErrorResponses(app: FastifyInstance): void {
  app.addHook('onRoute', declareErrorResponses);
}

/**
 * One error mapping for the whole API: catalogue errors keep their status and code, validation
 * failures become 400 naming each field path, anything else is a 500 whose details stay in the log.
 * Body: `{ error: { code, message, details } }`.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { GpushareError } from '../../app/errors.js';

/** Where a 500's details go: the server's log (the response says only "see the server log"). */
export type InternalErrorLog = (error: Error, request: { readonly method: string; readonly url: string }) => void;

/** Installs the error and not-found handlers. */
export function registerErrorHandler(app: FastifyInstance, logInternalError: InternalErrorLog = () => undefined): void {
  app.setErrorHandler((error: FastifyError | GpushareError, request, reply) => {
    if (error instanceof GpushareError) {
      const retryAfter = error.details?.retryAfterSeconds;
      if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply.status(error.httpStatus).send({ error: { code: error.code, message: error.message, details: error.details } });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      // One issue per field, the first: `{"stepSeconds":1e999}` (JSON reads it as Infinity) breaks
      // both "finite" and "at most 86400", and saying the first is enough.
      const seen = new Set<string>();
      const firstPerField = error.validation.filter((v) => !seen.has(v.instancePath) && seen.add(v.instancePath));
      const issues = firstPerField.map((v) => {
        const field = [error.validationContext, ...v.instancePath.split('/').filter(Boolean)].join('.');
        const params = v.params as { issue?: { message?: string; options?: unknown[]; received?: unknown } };
        const allowed = Array.isArray(params.issue?.options) ? ` (allowed: ${params.issue!.options!.join(', ')})` : '';
        return { field, message: `${field}: ${v.message ?? 'invalid'}${allowed}` };
      });
      return reply.status(400).send({ error: { code: 'GPUSHARE_INVALID_FIELD', message: issues.map((i) => i.message).join('; '), details: { issues } } });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) logInternalError(error, { method: request.method, url: request.url });
    return reply.status(status).send({ error: { code: error.code ?? 'GPUSHARE_INTERNAL', message: status >= 500 ? 'internal error; see the server log' : error.message } });
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ error: { code: 'GPUSHARE_NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } }));
}

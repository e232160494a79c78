/**
 * One error mapping for the whole API: catalogue errors keep their status and code, validation
 * failures become 400 naming each field path, Fastify's own refusals (body too large, wrong content
 * type, bad Content-Length) get the API's codes and words, anything else is a 500 whose details go
 * to the server's log. Body: `{ error: { code, message, details } }`.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { GpushareError } from '../../app/errors.js';
import { BODY_LIMIT_BYTES } from './json-body.js';

/**
 * The API's own error for a refusal Fastify makes before a route runs; null for any other error.
 * Fastify's texts name no limit or allowed value, so none of them reaches a client.
 */
function frameworkRefusal(error: FastifyError, request: FastifyRequest): GpushareError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GpushareError(
        'GPUSHARE_BODY_TOO_LARGE',
        413,
        `body: larger than the limit of ${BODY_LIMIT_BYTES} bytes (1 MiB)`,
        { field: 'body', limitBytes: BODY_LIMIT_BYTES },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GpushareError(
        'GPUSHARE_UNSUPPORTED_MEDIA_TYPE',
        415,
        `Content-Type: ${JSON.stringify(request.headers['content-type'] ?? '')} is not accepted; send application/json`,
        { field: 'content-type', allowed: ['application/json'] },
      );
    case 'FST_ERR_BAD_URL':
      return new GpushareError('GPUSHARE_INVALID_FIELD', 400, 'url: not valid percent-encoded UTF-8', { field: 'url' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GpushareError('GPUSHARE_INVALID_FIELD', 400, "Content-Length: does not match the body's length", {
        field: 'content-length',
      });
    default:
      return null;
  }
}

/** Where a 500's details go: the server's log (the response says only "see the server log"). */
export type InternalErrorLog = (error: Error, request: { readonly method: string; readonly url: string }) => void;

/** Installs the error and not-found handlers. */
export function registerErrorHandler(app: FastifyInstance, logInternalError: InternalErrorLog = () => undefined): void {
  app.setErrorHandler((error: FastifyError | GpushareError, request, reply) => {
    if (error instanceof GpushareError) {
      const retryAfter = error.details?.retryAfterSeconds;
      if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply
        .status(error.httpStatus)
        .send({ error: { code: error.code, message: error.message, details: error.details } });
    }
    const refusal = frameworkRefusal(error, request);
    if (refusal !== null)
      return reply
        .status(refusal.httpStatus)
        .send({ error: { code: refusal.code, message: refusal.message, details: refusal.details } });
    if (hasZodFastifySchemaValidationErrors(error)) {
      // One issue per field, the first: `{"stepSeconds":1e999}` (JSON reads it as Infinity) breaks
      // both "finite" and "at most 86400", and saying the first is enough.
      const seen = new Set<string>();
      const firstPerField = error.validation.filter((v) => !seen.has(v.instancePath) && seen.add(v.instancePath));
      const issues = firstPerField.map((v) => {
        const field = [error.validationContext, ...v.instancePath.split('/').filter(Boolean)].join('.');
        const params = v.params as {
          issue?: { code?: string; message?: string; options?: unknown[]; received?: unknown };
        };
        // No body where one is needed (a body that is not an object never gets here: json-body.ts).
        if (field === 'body' && params.issue?.code === 'invalid_type') {
          return { field, message: 'body: must be a JSON object (Content-Type: application/json), got no body' };
        }
        const allowed = Array.isArray(params.issue?.options) ? ` (allowed: ${params.issue!.options!.join(', ')})` : '';
        return { field, message: `${field}: ${v.message ?? 'invalid'}${allowed}` };
      });
      // A refinement between fields (UNPROCESSABLE of src/contract) is a rule the document cannot
      // state: 422 when it is the only complaint, 400 for anything the schema itself refuses.
      const unprocessable = firstPerField.every(
        (v) => (v.params as { issue?: { params?: { httpStatus?: number } } }).issue?.params?.httpStatus === 422,
      );
      return reply.status(unprocessable ? 422 : 400).send({
        error: {
          code: 'GPUSHARE_INVALID_FIELD',
          message: issues.map((i) => i.message).join('; '),
          details: { issues },
        },
      });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) logInternalError(error, { method: request.method, url: request.url });
    // A 500's code and text are the server's business (a Node errno code, a path): the log has them.
    if (status >= 500)
      return reply
        .status(500)
        .send({ error: { code: 'GPUSHARE_INTERNAL', message: 'internal error; see the server log' } });
    return reply.status(status).send({ error: { code: 'GPUSHARE_BAD_REQUEST', message: error.message } });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      error: { code: 'GPUSHARE_NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` },
    }),
  );
}

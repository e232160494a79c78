/**
 * The one request body format of the API: JSON, `Content-Type: application/json`, at most
 * {@link BODY_LIMIT_BYTES}. Replaces Fastify's own parsers so that every refusal is the API's own
 * error (error-handler.ts) and says what was wrong:
 * - an empty body (no bytes) is no body (`undefined`): a route that needs one answers 400 "must be a JSON
 *   object"; white space alone is not JSON (400);
 * - text that is not JSON: 400 with the parser's words and position;
 * - JSON that is not an object (an array, a string, a number, null): 400, on every route (none
 *   takes anything else);
 * - a `__proto__` key, or a `constructor` key holding `prototype` (prototype pollution): 400;
 * - any other content type: 415 naming application/json (error-handler.ts);
 * - a bigger body: 413 naming the limit in bytes (error-handler.ts).
 */
import type { FastifyInstance } from 'fastify';
import { GpushareError } from '../../app/errors.js';

/** The largest request body the API reads, in bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1 << 20;

/** A 400 for a body that is not JSON, or is JSON the API refuses. */
function invalidJson(message: string): GpushareError {
  return new GpushareError('GPUSHARE_INVALID_FIELD', 400, `body: ${message}`, { field: 'body' });
}

/** `an array`, `null`, `a string`: what a JSON value that is not an object is. */
function describeJson(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Parses `text` as a JSON object, refusing prototype-polluting keys; empty text (no bytes) is no body
 * (`undefined`). @throws GpushareError 400
 */
export function parseJsonBody(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') throw invalidJson('the key "__proto__" is not allowed');
      if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
        throw invalidJson('a "constructor" key holding "prototype" is not allowed');
      }
      return value;
    });
  } catch (error) {
    if (error instanceof GpushareError) throw error;
    throw invalidJson(`not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidJson(`must be a JSON object, got ${describeJson(value)}`);
  return value as Record<string, unknown>;
}

/** Makes `application/json` the only body type `app` reads (Fastify's text/plain parser goes too). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

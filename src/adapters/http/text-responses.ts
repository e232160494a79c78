/**
 * Answers that are not JSON (the CSV of `GET /api/v1/history`) in /openapi.json: a route's response
 * schema registered with {@link textResponse} is declared under its own media type instead of
 * `application/json`, so that clients and the API fuzzing (docs/api-fuzzing.md) expect what the
 * server sends. Error answers stay JSON. Also where the document's route schemas get the keywords of
 * src/contract/openapi-notes.ts, and where a body that can hold nothing is made optional
 * ({@link optionalEmptyBodies}).
 */
import type { ZodTypeAny } from 'zod';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { mergeDocumentedKeywords } from './openapi-notes-transform.js';

const MEDIA_TYPES = new WeakMap<ZodTypeAny, string>();

/** Marks `schema` as the schema of an answer of `mediaType` (e.g. `text/csv`); returns it. */
export function textResponse<T extends ZodTypeAny>(schema: T, mediaType: string): T {
  MEDIA_TYPES.set(schema, mediaType);
  return schema;
}

/**
 * fastify-type-provider-zod's `jsonSchemaTransform`, with the refinements the contract documents
 * (src/contract/openapi-notes.ts) stated in the body, query and path schemas, and the answers of
 * {@link textResponse} under their media type.
 */
export const openApiTransform: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
  const inputs = input.schema as Partial<Record<'body' | 'querystring' | 'params', ZodTypeAny>> | undefined;
  const outputs = transformed.schema as Partial<Record<'body' | 'querystring' | 'params', unknown>> | undefined;
  for (const part of ['body', 'querystring', 'params'] as const) {
    const zod = inputs?.[part];
    if (zod !== undefined && outputs?.[part] !== undefined) mergeDocumentedKeywords(zod, outputs[part]);
  }
  const declared = (input.schema as { response?: Record<string, ZodTypeAny> } | undefined)?.response;
  const converted = (transformed.schema as { response?: Record<string, unknown> } | undefined)?.response;
  if (declared === undefined || converted === undefined) return transformed;
  for (const [status, schema] of Object.entries(declared)) {
    const mediaType = MEDIA_TYPES.get(schema);
    if (mediaType === undefined) continue;
    converted[status] = {
      description: schema.description ?? 'Default Response',
      content: { [mediaType]: { schema: converted[status] } },
    };
  }
  return transformed;
};

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is walked as plain JSON */

/**
 * The whole document's last step (@fastify/swagger `transformObject`): a request body whose schema
 * allows no field (`maxProperties: 0`, the routes that take none: NoBodySchema) is not required, as
 * the server reads no body as `{}`; @fastify/swagger marks every body required.
 */
export function optionalEmptyBodies(input: { openapiObject?: any; swaggerObject?: any }): any {
  const document = input.openapiObject ?? input.swaggerObject;
  for (const item of Object.values<any>(document?.paths ?? {}))
    for (const operation of Object.values<any>(item)) {
      const body = operation?.requestBody;
      if (body?.content?.['application/json']?.schema?.maxProperties === 0) body.required = false;
    }
  return document;
}

/* eslint-enable @typescript-eslint/no-explicit-any */

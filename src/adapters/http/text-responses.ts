/**
 * Answers that are not JSON (the CSV of `GET /api/v1/history`) in /openapi.json: a route's response
 * schema registered with {@link textResponse} is declared under its own media type instead of
 * `application/json`, so that clients and the API fuzzing (docs/api-fuzzing.md) expect what the
 * server sends. Error answers stay JSON.
 */
import type { ZodTypeAny } from 'zod';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

const MEDIA_TYPES = new WeakMap<ZodTypeAny, string>();

/** Marks `schema` as the schema of an answer of `mediaType` (e.g. `text/csv`); returns it. */
export function textResponse<T extends ZodTypeAny>(schema: T, mediaType: string): T {
  MEDIA_TYPES.set(schema, mediaType);
  return schema;
}

/**
 * fastify-type-provider-zod's `jsonSchemaTransform`, with the answers of {@link textResponse} under their
 * media type.
 */
export const openApiTransform: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
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

/**
 * Merges the JSON Schema keywords of src/contract/openapi-notes.ts into the JSON Schema that
 * fastify-type-provider-zod made from a route's zod schemas (body, querystring, params), so that
 * /openapi.json states the refinements too. The zod tree and the JSON Schema tree are walked side
 * by side: an object's fields, an array's items, a record's values, and the wrappers (optional, default, effects,
 * nullable, pipeline) that leave the JSON Schema node as it is.
 */
import type { ZodTypeAny } from 'zod';
import { documentedKeywords } from '../../contract/openapi-notes.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- zod definitions and JSON Schema are walked as data */

/** Adds the documented keywords of `schema` and of everything inside it to `json` (mutated). */
export function mergeDocumentedKeywords(schema: ZodTypeAny, json: any): void {
  if (json === null || typeof json !== 'object') return;
  const keywords = documentedKeywords(schema);
  if (keywords !== undefined) Object.assign(json, keywords);
  const def = schema._def as any;
  switch (def.typeName) {
    case 'ZodObject':
      for (const [key, field] of Object.entries<ZodTypeAny>(def.shape()))
        mergeDocumentedKeywords(field, json.properties?.[key]);
      return;
    case 'ZodArray':
      mergeDocumentedKeywords(def.type, json.items);
      return;
    case 'ZodRecord':
      mergeDocumentedKeywords(def.valueType, json.additionalProperties);
      return;
    case 'ZodOptional':
    case 'ZodDefault':
    case 'ZodReadonly':
      mergeDocumentedKeywords(def.innerType, json);
      return;
    case 'ZodNullable':
      // openApi3: `nullable: true` on the same node, or `anyOf: [inner], nullable` for an object.
      mergeDocumentedKeywords(def.innerType, Array.isArray(json.anyOf) ? json.anyOf[0] : json);
      return;
    case 'ZodEffects':
      mergeDocumentedKeywords(def.schema, json);
      return;
    case 'ZodPipeline':
      mergeDocumentedKeywords(def.in, json);
      return;
    case 'ZodBranded':
      mergeDocumentedKeywords(def.type, json);
      return;
    default:
      return;
  }
}

/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * What a zod refinement checks, stated in JSON Schema for the OpenAPI document. A `.refine` or
 * `.superRefine` is invisible to the JSON Schema made from a zod schema, so the document would allow
 * values the server refuses (an empty selector, a name of only spaces); {@link documented} attaches
 * the JSON Schema keywords that say the same thing (`minProperties`, `pattern`, `anyOf` …), and the
 * HTTP adapter merges them into /openapi.json (src/adapters/http/openapi-transform.ts). The zod
 * check stays the one that decides; the keywords must describe exactly the values it accepts.
 */
import type { ZodTypeAny } from 'zod';

/** JSON Schema keywords, e.g. `{ minProperties: 1 }`. */
export type JsonSchemaKeywords = Readonly<Record<string, unknown>>;

const NOTES = new WeakMap<ZodTypeAny, JsonSchemaKeywords>();

/** Marks `schema` with the JSON Schema `keywords` that state its refinements; returns it. */
export function documented<T extends ZodTypeAny>(schema: T, keywords: JsonSchemaKeywords): T {
  NOTES.set(schema, { ...NOTES.get(schema), ...keywords });
  return schema;
}

/** The keywords {@link documented} attached to `schema`, if any. */
export function documentedKeywords(schema: ZodTypeAny): JsonSchemaKeywords | undefined {
  return NOTES.get(schema);
}

/** Pattern source of the characters no printable name may hold (src/lib/control-characters.ts, surrogates aside). */
const CONTROL_CLASS =
  '\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e' +
  '\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
/** Pattern source of the white space `String.prototype.trim` removes beyond the control characters. */
const SPACE_CLASS = ' \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';

/** Pattern source of a run of characters none of which is a control character (no anchors). */
export const withoutControlCharactersPattern = `[^${CONTROL_CLASS}]*`;

/**
 * JSON Schema of a printable name of 1 to `maxLength` characters: no control character, at least
 * one that is not white space (what `printableName` of api.ts checks).
 */
export function printableNameKeywords(maxLength: number): JsonSchemaKeywords {
  return {
    minLength: 1,
    maxLength,
    pattern: `^[^${CONTROL_CLASS}]*[^${CONTROL_CLASS}${SPACE_CLASS}][^${CONTROL_CLASS}]*$`,
  };
}

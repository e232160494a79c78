/**
 * Small readers of the JSON objects an AdmissionReview carries (plain `JSON.parse` output, not typed
 * Kubernetes classes: the webhook must keep every field it does not know, unchanged).
 */
import type { JsonValue } from './json-patch.js';

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object under `key`, or undefined when absent, null or not an object. */
export function childObject(parent: JsonObject, key: string): JsonObject | undefined {
  const value = parent[key];
  return isJsonObject(value) ? value : undefined;
}

/** The object under `key`, created (`{}`) when absent or null. */
export function ensureChildObject(parent: JsonObject, key: string): JsonObject {
  const existing = childObject(parent, key);
  if (existing !== undefined) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/** The object at `path` below `root`, or undefined when a step is missing or not an object. */
export function objectAtPath(root: JsonObject, path: readonly string[]): JsonObject | undefined {
  let current: JsonObject | undefined = root;
  for (const key of path) {
    if (current === undefined) return undefined;
    current = childObject(current, key);
  }
  return current;
}

/** The string entries of a map such as `metadata.annotations` (non-string values are left out). */
export function stringEntries(map: JsonObject | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) if (typeof value === 'string') out[key] = value;
  return out;
}

/**
 * JSON Patch (RFC 6902) operations that turn one JSON document into another, with JSON Pointer
 * (RFC 6901) paths: the form of an admission webhook's `patch` (admission.k8s.io/v1
 * AdmissionResponse, base64 of the JSON array; ../shared contracts §3.2).
 *
 * The webhook edits a copy of the object and {@link diffJsonPatch} states the difference, so the
 * paths are right by construction (`nvidia.com/gpu` → `nvidia.com~1gpu`) and a missing parent map is
 * added whole (`add /metadata/annotations {…}`).
 */

/** A JSON value as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One JSON Patch operation; the webhook emits only `add`, `remove` and `replace`. */
export type JsonPatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string };

/** One reference token of a JSON Pointer: `~` → `~0`, then `/` → `~1` (RFC 6901 §3). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer from its unescaped tokens (`['metadata', 'annotations', 'a/b']` → `/metadata/annotations/a~1b`). */
export function jsonPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]!));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k]!, b[k]!));
  }
  return false;
}

/**
 * The operations that turn `from` into `to`: objects are compared key by key (removed keys →
 * `remove`, new keys → `add`, changed ones recursively), arrays of the same length element by
 * element, and an array whose length changed is replaced whole (the webhook only shortens `env`
 * lists). Equal documents give `[]`.
 */
export function diffJsonPatch(
  from: JsonValue,
  to: JsonValue,
  path: readonly (string | number)[] = [],
): JsonPatchOperation[] {
  if (sameJson(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(from)) {
      if (!(key in to)) ops.push({ op: 'remove', path: jsonPointer([...path, key]) });
    }
    for (const key of Object.keys(to)) {
      if (key in from) ops.push(...diffJsonPatch(from[key]!, to[key]!, [...path, key]));
      else ops.push({ op: 'add', path: jsonPointer([...path, key]), value: to[key]! });
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    return from.flatMap((item, i) => diffJsonPatch(item, to[i]!, [...path, i]));
  }
  return [{ op: 'replace', path: jsonPointer(path), value: to }];
}

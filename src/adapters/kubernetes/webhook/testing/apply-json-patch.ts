/**
 * A small JSON Patch (RFC 6902) applier for tests: `add`, `remove`, `replace` and `test`, with RFC
 * 6901 pointers. Written independently of json-patch.ts so that tests check the webhook's patches
 * the way the API server applies them: a missing parent, a missing key to remove or replace, or a
 * failed `test` throws.
 */
import type { JsonValue } from '../json-patch.js';

type Op = { op: string; path: string; value?: JsonValue };

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`JSON pointer ${JSON.stringify(pointer)} must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function container(doc: JsonValue, path: string[]): JsonValue {
  let node = doc;
  for (const t of path) {
    if (Array.isArray(node)) node = node[Number(t)]!;
    else if (typeof node === 'object' && node !== null && t in node) node = node[t]!;
    else throw new Error(`no parent at /${path.join('/')}`);
    if (node === undefined) throw new Error(`no parent at /${path.join('/')}`);
  }
  return node;
}

/** Applies `patch` to a copy of `document` and returns the copy. */
export function applyJsonPatch(document: JsonValue, patch: readonly Op[]): JsonValue {
  let doc = structuredClone(document);
  for (const op of patch) {
    const path = tokens(op.path);
    if (path.length === 0) {
      if (op.op === 'add' || op.op === 'replace') doc = structuredClone(op.value!);
      else throw new Error(`unsupported ${op.op} of the whole document`);
      continue;
    }
    const key = path[path.length - 1]!;
    const parent = container(doc, path.slice(0, -1));
    if (typeof parent !== 'object' || parent === null) throw new Error(`parent of ${op.path} is not a container`);
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : Number(key);
      if (!Number.isInteger(index) || index < 0 || index > parent.length)
        throw new Error(`bad array index in ${op.path}`);
      if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value!));
      else if (index >= parent.length) throw new Error(`no element at ${op.path}`);
      else if (op.op === 'remove') parent.splice(index, 1);
      else if (op.op === 'replace') parent[index] = structuredClone(op.value!);
      else if (op.op === 'test') {
        if (JSON.stringify(parent[index]) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`);
      } else throw new Error(`unsupported op ${op.op}`);
      continue;
    }
    if (op.op === 'add') parent[key] = structuredClone(op.value!);
    else if (!(key in parent)) throw new Error(`no member at ${op.path} for ${op.op}`);
    else if (op.op === 'remove') delete parent[key];
    else if (op.op === 'replace') parent[key] = structuredClone(op.value!);
    else if (op.op === 'test') {
      if (JSON.stringify(parent[key]) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`);
    } else throw new Error(`unsupported op ${op.op}`);
  }
  return doc;
}

/** The JSON Patch of an AdmissionReview response (base64 → array); [] when it has none. */
export function decodePatch(response: { patch?: string; patchType?: string }): Op[] {
  if (response.patch === undefined) return [];
  if (response.patchType !== 'JSONPatch') throw new Error(`patchType ${String(response.patchType)} with a patch`);
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as Op[];
}

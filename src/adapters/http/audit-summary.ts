/**
 * The summary of a request as the audit log keeps it: method, route pattern, path parameters,
 * query and body, with secrets removed. The value of every field named like a secret (its name
 * contains `token`, `secret`, `password`, `authorization`, `key` or `credential`, in any case:
 * `apiKey`, `AWS_SECRET`) becomes `[redacted]`, whatever its type; a job's `environment` becomes
 * the list of its variable names (never their values), and an `environment` that is not an object
 * becomes `[not an object: N characters|items, values not recorded]`; strings longer than 256 characters,
 * arrays longer than 64 items and nesting deeper than 6 are cut, saying how much was cut.
 */
import type { JsonValue } from '../../app/ports/audit-log.js';

const MAX_STRING = 256;
const MAX_ITEMS = 64;
const MAX_KEYS = 64;
const MAX_DEPTH = 6;
const SECRET_KEY = /token|secret|password|authorization|key|credential/i;

/** A string cut to {@link MAX_STRING} characters, saying how many were left out. */
export function cutString(text: string, max = MAX_STRING): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(+${text.length - max} chars)`;
}

/** `value` made safe to record (see the module comment); `key` is the field it is the value of. */
export function auditValue(value: unknown, key = '', depth = 0): JsonValue {
  if (value !== null && value !== undefined && SECRET_KEY.test(key)) return '[redacted]';
  if (key === 'environment') {
    if (typeof value === 'string') return `[not an object: ${value.length} characters, values not recorded]`;
    if (Array.isArray(value)) return `[not an object: ${value.length} items, values not recorded]`;
    if (value === null || typeof value !== 'object')
      return value === null || value === undefined ? null : `[not an object: ${typeof value}, value not recorded]`;
  }
  if (typeof value === 'string') return cutString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean' || value === null) return value;
  if (value === undefined) return null;
  if (typeof value !== 'object') return String(typeof value);
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (key === 'environment')
    return Object.keys(value)
      .sort()
      .slice(0, MAX_ITEMS)
      .map((name) => cutString(name));
  if (Array.isArray(value)) {
    const items: JsonValue[] = value.slice(0, MAX_ITEMS).map((item) => auditValue(item, key, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`…(+${value.length - MAX_ITEMS} items)`);
    return items;
  }
  const out: Record<string, JsonValue> = {};
  const keys = Object.keys(value);
  for (const name of keys.slice(0, MAX_KEYS)) {
    const field = (value as Record<string, unknown>)[name];
    // A secret-named field is dropped whole, whatever it holds (`{ token: { value } }`, `{ password: 1234 }`).
    out[cutString(name, 64)] = auditValue(field, name, depth + 1);
  }
  if (keys.length > MAX_KEYS) out['…'] = `+${keys.length - MAX_KEYS} fields`;
  return out;
}

/** The summary of one request (see the module comment). */
export function requestSummary(request: {
  readonly method: string;
  readonly route: string;
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}): { [key: string]: JsonValue } {
  const summary: { [key: string]: JsonValue } = { method: request.method, route: cutString(request.route) };
  const isFilled = (v: unknown): boolean => v !== null && typeof v === 'object' && Object.keys(v).length > 0;
  if (isFilled(request.params)) summary.params = auditValue(request.params);
  if (isFilled(request.query)) summary.query = auditValue(request.query);
  if (request.body !== undefined && request.body !== null) summary.body = auditValue(request.body);
  return summary;
}

/**
 * The audit log's hash chain (docs/security.md "Audit log", decision 0016).
 *
 * Entry `seq` stores `prev_hash` (the hash of entry `seq - 1`; 64 zeros for entry 1) and
 * `hash = SHA-256(prev_hash + "\n" + "[" + seq + "," + at_ms + "," + json(actor) + "," + json(role)
 * + "," + json(tenant) + "," + json(action) + "," + json(target) + "," + summary + "," + outcome
 * + "]")` in lower-case hex, where `json` is `JSON.stringify` (`null` for a missing tenant) and
 * `summary` and `outcome` are the texts of their columns as stored (canonical JSON: object keys
 * sorted, no whitespace). Editing an entry breaks its own hash; deleting or moving one breaks the
 * next entry's `prev_hash`; re-hashing everything after an edit is caught by the head journal kept
 * outside the store (`<data-dir>/audit-head`, one `seq hash` line per entry) and the anchor command's
 * copy (audit-verification.ts).
 */
import * as crypto from 'node:crypto';
import type { AuditEntry, AuditOutcome, JsonValue, NewAuditEntry } from '../ports/audit-log.js';

/** The `prev_hash` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** An entry as stored: the hashed fields, `summary` and `outcome` as canonical JSON text. */
export interface StoredAuditRow extends Pick<
  NewAuditEntry,
  'atMs' | 'actor' | 'role' | 'tenant' | 'action' | 'target'
> {
  readonly seq: number;
  /** Canonical JSON text of the summary object. */
  readonly summaryJson: string;
  /** Canonical JSON text of the outcome object. */
  readonly outcomeJson: string;
  readonly prevHash: string;
  readonly hash: string;
}

/** `value` with the keys of every object sorted, for {@link canonicalJson}. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}

/** JSON text of `value` with every object's keys sorted and no whitespace: the form that is hashed and stored. */
export function canonicalJson(value: JsonValue | { readonly [key: string]: JsonValue | undefined }): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * The hash of a stored entry given the previous entry's hash (see the module comment).
 * @returns lower-case hex SHA-256
 */
export function auditEntryHash(prevHash: string, row: Omit<StoredAuditRow, 'prevHash' | 'hash'>): string {
  const fields =
    `[${row.seq},${row.atMs},${JSON.stringify(row.actor)},${JSON.stringify(row.role)},` +
    `${JSON.stringify(row.tenant)},${JSON.stringify(row.action)},${JSON.stringify(row.target)},` +
    `${row.summaryJson},${row.outcomeJson}]`;
  return sha256Hex(`${prevHash}\n${fields}`);
}

/** Lower-case hex SHA-256 of UTF-8 `text`: the one-shot `crypto.hash` where Node has it (20.12+), which is faster. */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** The parsed JSON object of `text`, or null when `text` is not JSON or not an object. */
function jsonObjectOf(text: string): Record<string, JsonValue> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, JsonValue>)
      : null;
  } catch {
    return null;
  }
}

/**
 * `'summary'` or `'outcome'` when that column of a stored row is not a JSON object whose canonical form is its
 * text; null when both
 * are.
 */
export function malformedAuditColumn(row: StoredAuditRow): 'summary' | 'outcome' | null {
  for (const [name, text] of [
    ['summary', row.summaryJson],
    ['outcome', row.outcomeJson],
  ] as const) {
    const parsed = jsonObjectOf(text);
    if (parsed === null || canonicalJson(parsed) !== text) return name;
  }
  return null;
}

/**
 * `text` with lone UTF-16 surrogates replaced by U+FFFD, so that it reads back from a UTF-8 store exactly as hashed.
 */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * The stored form of `entry` as the entry after `head`: seq `head.seq + 1`, chained to `head.hash`.
 * Strings are made well-formed (lone surrogates become U+FFFD) before hashing.
 */
export function chainAuditEntry(
  head: { readonly seq: number; readonly hash: string },
  entry: NewAuditEntry,
): StoredAuditRow {
  const fields = {
    seq: head.seq + 1,
    atMs: Math.trunc(entry.atMs),
    actor: wellFormed(entry.actor),
    role: wellFormed(entry.role),
    tenant: entry.tenant === null ? null : wellFormed(entry.tenant),
    action: wellFormed(entry.action),
    target: wellFormed(entry.target),
    summaryJson: canonicalJson(entry.summary),
    outcomeJson: canonicalJson({
      result: entry.outcome.result,
      httpStatus: entry.outcome.httpStatus,
      message: entry.outcome.message === null ? null : wellFormed(entry.outcome.message),
    }),
  };
  return { ...fields, prevHash: head.hash, hash: auditEntryHash(head.hash, fields) };
}

/**
 * The entry a stored row holds (summary and outcome parsed). A column that is not a JSON object
 * (an edited row) never throws: the summary becomes `{ unreadable: <text> }`, the outcome
 * `{ result: 'unreadable', httpStatus: null, message: <text> }` (`gpushare audit verify` names the entry).
 */
export function auditEntryOfRow(row: StoredAuditRow): AuditEntry {
  const summary = jsonObjectOf(row.summaryJson) ?? { unreadable: row.summaryJson };
  const parsedOutcome = jsonObjectOf(row.outcomeJson);
  const outcome: AuditOutcome =
    parsedOutcome !== null && typeof parsedOutcome.result === 'string'
      ? (parsedOutcome as unknown as AuditOutcome)
      : { result: 'unreadable', httpStatus: null, message: row.outcomeJson };
  return {
    seq: row.seq,
    atMs: row.atMs,
    actor: row.actor,
    role: row.role,
    tenant: row.tenant,
    action: row.action,
    target: row.target,
    summary,
    outcome,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

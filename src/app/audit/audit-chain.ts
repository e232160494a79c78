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
 * outside the store (`<data-dir>/audit-head`, one `seq hash` line per entry).
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

/** The head journal as read: the first hash it recorded for each seq. */
export interface AuditJournal {
  /** Hash per seq (the first line for a seq wins: a later one was written over a store that had lost entries). */
  readonly hashes: ReadonlyMap<number, string>;
  /** The largest seq it records; 0 when empty. */
  readonly lastSeq: number;
}

/** What is wrong with the first bad entry. */
export type AuditProblem =
  /**
   * The entry's fields do not hash to its stored hash, or its summary or outcome is not a JSON object in canonical form
   * (text moved across their boundary keeps the hash): it was edited.
   */
  | 'edited'
  /** The seq is not in the store although a later one (or the journal) is: the entry was deleted. */
  | 'missing'
  /** The entry's `prev_hash` is not the previous entry's hash: entries were deleted, moved or swapped. */
  | 'broken-link'
  /**
   * The entry is consistent in the store but the journal recorded another hash for its seq: the chain was rewritten.
   */
  | 'rewritten'
  /**
   * The seq lies between the journal's first and last lines but has no line: the server did not write it (forged
   * entry).
   */
  | 'unwitnessed'
  /** The journal records entries after the store's last: the newest entries were deleted. */
  | 'truncated'
  /** The store has entries but the journal file is missing. */
  | 'journal-missing';

/** The result of {@link verifyAuditChain}. */
export interface AuditVerification {
  readonly ok: boolean;
  /** Entries read from the store. */
  readonly entries: number;
  /** The store's last entry (seq 0 and 64 zeros when empty). */
  readonly head: { readonly seq: number; readonly hash: string };
  /** Entries up to this seq are witnessed by the journal; later ones are not yet (at most one batch). */
  readonly witnessedThroughSeq: number;
  /** The first bad entry, null when the log verifies. */
  readonly firstBad: { readonly seq: number; readonly problem: AuditProblem; readonly message: string } | null;
}

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
 * `'summary'` or `'outcome'` when that column is not a JSON object whose canonical form is its text; null when both
 * are.
 */
function malformedColumn(row: StoredAuditRow): 'summary' | 'outcome' | null {
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
 * Recomputes the chain over `rows` (in seq order) and checks it against `journal` (null: no
 * journal file). Stops at the first bad entry.
 */
export function verifyAuditChain(rows: Iterable<StoredAuditRow>, journal: AuditJournal | null): AuditVerification {
  let expectedSeq = 1;
  let prev = GENESIS_HASH;
  let entries = 0;
  let journalFirstSeq = Infinity;
  for (const seq of journal?.hashes.keys() ?? []) if (seq < journalFirstSeq) journalFirstSeq = seq;
  const fail = (seq: number, problem: AuditProblem, message: string): AuditVerification => ({
    ok: false,
    entries,
    head: { seq: expectedSeq - 1, hash: prev },
    witnessedThroughSeq: Math.min(journal?.lastSeq ?? 0, expectedSeq - 1),
    firstBad: { seq, problem, message },
  });
  for (const row of rows) {
    if (row.seq !== expectedSeq) {
      return fail(
        expectedSeq,
        'missing',
        `entry ${expectedSeq} is missing: the store goes from entry ${expectedSeq - 1} to entry ${row.seq} (deleted)`,
      );
    }
    if (row.prevHash !== prev) {
      return fail(
        row.seq,
        'broken-link',
        `entry ${row.seq} does not follow entry ${row.seq - 1}: its prev_hash ` +
          `${row.prevHash.slice(0, 16)}… is not that entry's hash ${prev.slice(0, 16)}… (entries deleted, ` +
          `moved or swapped)`,
      );
    }
    const computed = auditEntryHash(prev, row);
    if (computed !== row.hash) {
      return fail(
        row.seq,
        'edited',
        `entry ${row.seq} was edited: its fields hash to ${computed.slice(0, 16)}…, the stored hash is ` +
          `${row.hash.slice(0, 16)}…`,
      );
    }
    const malformed = malformedColumn(row);
    if (malformed !== null) {
      return fail(
        row.seq,
        'edited',
        `entry ${row.seq} was edited: its ${malformed} is not a JSON object in canonical form (sorted ` +
          `keys, no whitespace)`,
      );
    }
    const witnessed = journal?.hashes.get(row.seq);
    if (witnessed === undefined && row.seq >= journalFirstSeq && row.seq <= (journal?.lastSeq ?? 0)) {
      return fail(
        row.seq,
        'unwitnessed',
        `entry ${row.seq} is missing from the audit-head journal, which records entries ` +
          `${journalFirstSeq}–${journal!.lastSeq}: it was not written by the server (forged entry)`,
      );
    }
    if (witnessed !== undefined && witnessed !== row.hash) {
      return fail(
        row.seq,
        'rewritten',
        `entry ${row.seq} differs from the audit-head journal (journal ${witnessed.slice(0, 16)}…, store ` +
          `${row.hash.slice(0, 16)}…): the chain was rewritten from here`,
      );
    }
    entries += 1;
    prev = row.hash;
    expectedSeq += 1;
  }
  const last = expectedSeq - 1;
  if (journal === null) {
    if (last > 0)
      return fail(
        1,
        'journal-missing',
        `the audit-head journal is missing while the store has ${last} entries: nothing witnesses them ` +
          `(deleted journal?)`,
      );
    return { ok: true, entries, head: { seq: 0, hash: GENESIS_HASH }, witnessedThroughSeq: 0, firstBad: null };
  }
  if (journal.lastSeq > last) {
    return fail(
      last + 1,
      'truncated',
      `entries ${last + 1}–${journal.lastSeq} are recorded in the audit-head journal but missing from the ` +
        `store (the newest entries were deleted)`,
    );
  }
  return { ok: true, entries, head: { seq: last, hash: prev }, witnessedThroughSeq: journal.lastSeq, firstBad: null };
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

/**
 * Verification of the audit log (docs/security.md "Audit log", decisions 0016 and 0030): the hash
 * chain of the store's rows (src/app/audit/audit-chain.ts), checked against the head journal
 * `<data-dir>/audit-head` (one `seq hash` line per entry, at most one batch behind the store), the
 * store's append-only triggers and, when given, an outside copy of the heads the anchor command
 * received. Every problem is a code with the entry (`seq`) or the line it concerns.
 */
import { auditEntryHash, GENESIS_HASH, malformedAuditColumn, type StoredAuditRow } from './audit-chain.js';
import type { AuditHeadLines } from './audit-head-lines.js';
import { headLineFindings, journalFindings } from './audit-journal-findings.js';
import type { AuditFinding, AuditProblem } from './audit-problems.js';

/** Default most entries the store may lead the journal by: the journal's batch (audit-head-journal.ts). */
export const AUDIT_JOURNAL_BATCH_ENTRIES = 100;

/** The result of {@link verifyAuditChain} and {@link checkAuditLinks}. */
export interface AuditVerification {
  readonly ok: boolean;
  /** Entries read from the store before the first bad one (all of them when none is bad). */
  readonly entries: number;
  /** The store's last verified entry (seq 0 and 64 zeros when empty). */
  readonly head: { readonly seq: number; readonly hash: string };
  /** Entries up to this seq are witnessed by the journal; later ones are not yet (at most one batch). */
  readonly witnessedThroughSeq: number;
  /** The first bad entry, null when there is none (other problems may still be listed in `problems`). */
  readonly firstBad: { readonly seq: number; readonly problem: AuditProblem; readonly message: string } | null;
  /** Every problem: the first bad entry first (when any), then those of the journal, the triggers and the anchor. */
  readonly problems: readonly AuditFinding[];
}

/** Options of {@link verifyAuditChain} and {@link checkAuditLinks}. */
export interface AuditVerifyOptions {
  /** Most entries the store may lead the journal by. Default {@link AUDIT_JOURNAL_BATCH_ENTRIES}. */
  readonly batchEntries?: number;
  /** Names of the append-only triggers that are missing or altered (the store adapter finds them). */
  readonly missingTriggers?: readonly string[];
  /** An outside copy of the heads the anchor command received; null or absent: none. */
  readonly anchor?: AuditHeadLines | null;
}

/** What {@link checkAuditLinks} reads of a row. */
export type AuditLink = Pick<StoredAuditRow, 'seq' | 'prevHash' | 'hash'>;

type EntryProblem = { readonly seq: number; readonly problem: AuditProblem; readonly message: string };

/**
 * Recomputes the chain over `rows` (in seq order) and checks it against `journal` (null: no journal
 * file), the triggers and the anchor's copy of `options`. Stops at the first bad entry; the problems
 * of the files are listed whatever it finds.
 */
export function verifyAuditChain(
  rows: Iterable<StoredAuditRow>,
  journal: AuditHeadLines | null,
  options: AuditVerifyOptions = {},
): AuditVerification {
  return walk(rows, journal, options, (row, prev) => {
    const computed = auditEntryHash(prev, row);
    if (computed !== row.hash)
      return (
        `entry ${row.seq} was edited: its fields hash to ${computed.slice(0, 16)}…, the stored hash is ` +
        `${row.hash.slice(0, 16)}…`
      );
    const malformed = malformedAuditColumn(row);
    return malformed === null
      ? null
      : `entry ${row.seq} was edited: its ${malformed} is not a JSON object in canonical form (sorted keys, no ` +
          `whitespace)`;
  });
}

/**
 * {@link verifyAuditChain} without recomputing each entry's hash: the links between entries, the
 * journal, the triggers and the anchor's copy (what the server checks at start, in time linear in
 * the entries but without hashing them).
 */
export function checkAuditLinks(
  links: Iterable<AuditLink>,
  journal: AuditHeadLines | null,
  options: AuditVerifyOptions = {},
): AuditVerification {
  return walk(links, journal, options, null);
}

/** The walk over the rows shared by both checks; `edited` returns the message of an edited row, null when intact. */
function walk<Row extends AuditLink>(
  rows: Iterable<Row>,
  journal: AuditHeadLines | null,
  options: AuditVerifyOptions,
  edited: ((row: Row, prevHash: string) => string | null) | null,
): AuditVerification {
  let expectedSeq = 1;
  let prev = GENESIS_HASH;
  let entries = 0;
  const journalFirstSeq = journal?.firstSeq ?? Infinity;
  const anchor = options.anchor ?? null;
  let firstBad: EntryProblem | null = null;
  let lastGoodAnchorSeq = 0;
  let rowsSeen = 0;
  for (const row of rows) {
    rowsSeen += 1;
    firstBad = entryProblem(row, expectedSeq, prev, journal, journalFirstSeq);
    if (firstBad === null && edited !== null) {
      const message = edited(row, prev);
      if (message !== null) firstBad = { seq: row.seq, problem: 'edited', message };
    }
    const anchored = anchor?.hashes.get(row.seq);
    if (firstBad === null && anchored !== undefined && anchored !== row.hash) {
      firstBad = {
        seq: row.seq,
        problem: 'anchor-mismatch',
        message:
          `entry ${row.seq} differs from the anchor's copy (copy ${anchored.slice(0, 16)}…, store ` +
          `${row.hash.slice(0, 16)}…): the chain was rewritten after entry ${lastGoodAnchorSeq} (the last head ` +
          `the copy confirms)`,
      };
    }
    if (firstBad !== null) break;
    if (anchored !== undefined) lastGoodAnchorSeq = row.seq;
    entries += 1;
    prev = row.hash;
    expectedSeq += 1;
  }
  const last = expectedSeq - 1;
  firstBad ??= endProblem(last, journal, anchor);
  const findings: AuditFinding[] = firstBad === null ? [] : [{ ...firstBad, lineNumber: null }];
  findings.push(
    ...journalFindings(journal, rowsSeen, last, firstBad === null, options.batchEntries ?? AUDIT_JOURNAL_BATCH_ENTRIES),
  );
  for (const name of options.missingTriggers ?? []) {
    findings.push({
      problem: 'triggers-missing',
      seq: null,
      lineNumber: null,
      message:
        `the append-only trigger ${name} of audit_log is missing or altered: rows could be updated or deleted ` +
        `without an error (dropped triggers?)`,
    });
  }
  if (anchor !== null) findings.push(...headLineFindings(anchor, 'anchor-unparsable', "the anchor's copy"));
  if (anchor !== null && anchor.hashes.size === 0)
    findings.push({ problem: 'anchor-empty', seq: null, lineNumber: null, message: "the anchor's copy holds no head" });
  return {
    ok: findings.length === 0,
    entries,
    head: { seq: last, hash: prev },
    witnessedThroughSeq: Math.min(journal?.lastSeq ?? 0, last),
    firstBad,
    problems: findings,
  };
}

/** The problem of one row given the entries before it, null when it is good so far. */
function entryProblem(
  row: AuditLink,
  expectedSeq: number,
  prev: string,
  journal: AuditHeadLines | null,
  journalFirstSeq: number,
): EntryProblem | null {
  if (row.seq !== expectedSeq)
    return {
      seq: expectedSeq,
      problem: 'missing',
      message:
        `entry ${expectedSeq} is missing: the store goes from entry ${expectedSeq - 1} to entry ${row.seq} ` +
        `(deleted)`,
    };
  if (row.prevHash !== prev)
    return {
      seq: row.seq,
      problem: 'broken-link',
      message:
        `entry ${row.seq} does not follow entry ${row.seq - 1}: its prev_hash ${row.prevHash.slice(0, 16)}… is not ` +
        `that entry's hash ${prev.slice(0, 16)}… (entries deleted, moved or swapped)`,
    };
  const witnessed = journal?.hashes.get(row.seq);
  if (witnessed === undefined && row.seq >= journalFirstSeq && row.seq <= (journal?.lastSeq ?? 0))
    return {
      seq: row.seq,
      problem: 'unwitnessed',
      message:
        `entry ${row.seq} is missing from the audit-head journal, which records entries ` +
        `${Math.max(1, journalFirstSeq)}–${journal!.lastSeq}: it was not written by the server (forged entry)`,
    };
  if (witnessed !== undefined && witnessed !== row.hash)
    return {
      seq: row.seq,
      problem: 'rewritten',
      message:
        `entry ${row.seq} differs from the audit-head journal (journal ${witnessed.slice(0, 16)}…, store ` +
        `${row.hash.slice(0, 16)}…): the chain was rewritten from here`,
    };
  return null;
}

/** The problem of the store's end (`last`: its last seq) against the journal and the anchor's copy. */
function endProblem(last: number, journal: AuditHeadLines | null, anchor: AuditHeadLines | null): EntryProblem | null {
  if (journal === null && last > 0)
    return {
      seq: 1,
      problem: 'journal-missing',
      message:
        `the audit-head journal is missing while the store has ${last} entries: nothing witnesses them ` +
        `(deleted journal?)`,
    };
  if (journal !== null && journal.lastSeq > last)
    return {
      seq: last + 1,
      problem: 'truncated',
      message:
        `entries ${last + 1}–${journal.lastSeq} are recorded in the audit-head journal but missing from the ` +
        `store (the newest entries were deleted)`,
    };
  if (anchor !== null && anchor.lastSeq > last)
    return {
      seq: last + 1,
      problem: 'anchor-ahead',
      message:
        `the anchor's copy records head ${anchor.lastSeq} but the store ends at entry ${last} (the newest ` +
        `entries were deleted)`,
    };
  return null;
}

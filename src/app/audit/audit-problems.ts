/**
 * The problems `gpushare audit verify` and the server's start name (docs/security.md "Verifying"):
 * a code and the entry or line it concerns.
 */

/** What is wrong: a code (docs/security.md "Verifying" lists each with the tampering it names). */
export type AuditProblem =
  /** The entry's fields do not hash to its stored hash, or its summary or outcome is not canonical JSON: edited. */
  | 'edited'
  /** The seq is not in the store although a later one (or the journal) is: the entry was deleted. */
  | 'missing'
  /** The entry's `prev_hash` is not the previous entry's hash: entries were deleted, moved or swapped. */
  | 'broken-link'
  /** The entry is consistent in the store but the journal recorded another hash for its seq: the chain was rewritten */
  | 'rewritten'
  /** The seq lies between the journal's first and last lines but has no line: the server did not write it (forged). */
  | 'unwitnessed'
  /** The journal records entries after the store's last: the newest entries were deleted. */
  | 'truncated'
  /** The store has entries but the journal file is missing. */
  | 'journal-missing'
  /** The journal file has no line (emptied) while the store has entries. */
  | 'journal-empty'
  /** The journal does not start at seq 0 (its genesis line) or 1, or skips a seq: lines were cut out. */
  | 'journal-gap'
  /** A journal line is not `seq hash` (its line number is given). */
  | 'journal-unparsable'
  /** The store leads the journal by more than one batch: the journal was cut, or the entries were not witnessed. */
  | 'journal-behind'
  /** An append-only trigger of `audit_log` is missing or not as gpushare made it. */
  | 'triggers-missing'
  /** The anchor's copy recorded another hash for this seq: the chain was rewritten at or before it. */
  | 'anchor-mismatch'
  /** The anchor's copy records entries after the store's last: the newest entries were deleted. */
  | 'anchor-ahead'
  /** A line of the anchor's copy does not end in `seq hash` (its line number is given). */
  | 'anchor-unparsable'
  /** The anchor's copy holds no head. */
  | 'anchor-empty';

/** One problem found. */
export interface AuditFinding {
  readonly problem: AuditProblem;
  /** The entry it concerns; null for a problem of a file or of the schema. */
  readonly seq: number | null;
  /** The line of the journal or of the anchor's copy it concerns (from 1); null otherwise. */
  readonly lineNumber: number | null;
  readonly message: string;
}

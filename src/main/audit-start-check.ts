/**
 * The audit log's check at the server's start (docs/security.md "At start", decision 0030): the
 * links of the store's chain, the head journal (present, not empty, no line cut out or unparsable,
 * agreeing with the store, at most one batch behind it) and the append-only triggers. On a problem
 * the server refuses to start, unless started with `--accept-audit-problems`: then the triggers are
 * made again, the journal is kept aside as evidence and written anew from the store, and the start
 * records an `audit.accept-problems` entry naming every problem.
 */
import { renameSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { checkAuditLinks } from '../app/audit/audit-verification.js';
import type { AuditFinding } from '../app/audit/audit-problems.js';
import type { AuditHeadLines } from '../app/audit/audit-head-lines.js';
import type { AuditServices } from '../adapters/http/server-services.js';
import { readAuditHeadJournal, writeAuditHeadJournal } from '../adapters/store/audit-head-journal.js';
import { missingAuditTriggers, restoreAuditTriggers } from '../adapters/store/audit-triggers.js';
import { readAuditLinks } from '../adapters/store/sqlite-audit-log.js';

/** The server's start refused because of audit problems (`--accept-audit-problems` accepts them). */
export class AuditStartRefusedError extends Error {
  constructor(
    readonly problems: readonly AuditFinding[],
    dataDir: string,
  ) {
    const named = problems.map(
      (p) => `${p.problem}${p.lineNumber === null ? '' : ` (line ${p.lineNumber})`}: ${p.message}`,
    );
    super(
      `the audit log fails its check at start: ${named.join('; ')}. ` +
        `Run \`gpushare audit verify --data-dir ${dataDir}\` for the whole report; to start anyway (recorded in the ` +
        `audit log; the journal is kept aside and written anew from the store, the triggers made again), start ` +
        `with --accept-audit-problems`,
    );
    this.name = 'AuditStartRefusedError';
  }
}

/** What the start check found and did. */
export interface AuditStartCheck {
  /** The journal as read before the start (null: none, or it was replaced). */
  readonly journal: AuditHeadLines | null;
  /** The problems accepted with `--accept-audit-problems`; empty when the log passed. */
  readonly accepted: readonly AuditFinding[];
  /** Triggers made again. */
  readonly triggersRestored: readonly string[];
  /** Where the replaced journal was kept; null when it was not replaced. */
  readonly journalKeptAs: string | null;
}

/**
 * Checks the audit log of `db` and the journal at `journalPath` before the server opens them; makes
 * the journal of a new store (its genesis line).
 * @param nowMs the start time (names the kept journal)
 * @throws AuditStartRefusedError naming every problem unless `acceptProblems`
 */
export function checkAuditAtStart(
  db: Database.Database,
  journalPath: string,
  dataDir: string,
  acceptProblems: boolean,
  nowMs: number,
): AuditStartCheck {
  const journal = readAuditHeadJournal(journalPath);
  const missingTriggers = missingAuditTriggers(db);
  const check = checkAuditLinks(readAuditLinks(db), journal, { missingTriggers });
  if (check.ok) {
    if (journal === null) writeAuditHeadJournal(journalPath, []);
    return { journal, accepted: [], triggersRestored: [], journalKeptAs: null };
  }
  if (!acceptProblems) throw new AuditStartRefusedError(check.problems, dataDir);
  const triggersRestored = missingTriggers.length > 0 ? restoreAuditTriggers(db) : [];
  let journalKeptAs: string | null = null;
  if (journal !== null) {
    journalKeptAs = `${journalPath}.replaced-${new Date(nowMs).toISOString().replaceAll(':', '-')}`;
    renameSync(journalPath, journalKeptAs);
  }
  writeAuditHeadJournal(journalPath, readAuditLinks(db));
  return { journal: null, accepted: check.problems, triggersRestored, journalKeptAs };
}

/** Records the `audit.accept-problems` entry of a start that accepted problems (nothing when none were). */
export function recordAcceptedAuditProblems(audit: AuditServices, start: AuditStartCheck): void {
  if (start.accepted.length === 0) return;
  audit.record({
    atMs: audit.nowMs(),
    actor: 'server',
    role: 'server',
    tenant: null,
    action: 'audit.accept-problems',
    target: 'audit log',
    summary: {
      reason: 'server started with --accept-audit-problems',
      problems: start.accepted.map((p) => ({ problem: p.problem, seq: p.seq, lineNumber: p.lineNumber })),
      triggersRestored: [...start.triggersRestored],
      journalKeptAs: start.journalKeptAs,
    },
    outcome: { result: 'ok', httpStatus: null, message: null },
  });
}

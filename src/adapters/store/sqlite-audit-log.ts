/**
 * The audit log in the store's SQLite database: table `audit_log` (migration 6), append-only by
 * triggers that abort every UPDATE and DELETE, each row chained to the previous by its hash
 * (src/app/audit/audit-chain.ts). The last entry's seq and hash are kept in memory, so an append is
 * one INSERT in one transaction. See docs/store.md and docs/security.md "Audit log".
 */
import type Database from 'better-sqlite3';
import { auditEntryOfRow, chainAuditEntry, GENESIS_HASH, type StoredAuditRow } from '../../app/audit/audit-chain.js';
import type { AuditEntry, AuditFilter, AuditHead, AuditLog, NewAuditEntry } from '../../app/ports/audit-log.js';
import type { CrashPoints } from '../../app/ports/crash-points.js';

/** Options of {@link createSqliteAuditLog}. */
export interface SqliteAuditLogOptions {
  /** Called with every entry once its transaction committed (the head journal records it). */
  readonly onAppend?: (entry: AuditEntry) => void;
  /** Told of `audit.commit` before and after each append's COMMIT (app/ports/crash-points.ts); absent: none. */
  readonly crashPoints?: CrashPoints;
}

/** The columns of a row, in {@link StoredAuditRow} order. */
const COLUMNS = 'seq, at_ms, actor, role, tenant, action, target, summary, outcome, prev_hash, hash';

type RawRow = [number, number, string, string, string | null, string, string, string, string, string, string];

const rowOf = (raw: RawRow): StoredAuditRow => ({
  seq: raw[0],
  atMs: raw[1],
  actor: raw[2],
  role: raw[3],
  tenant: raw[4],
  action: raw[5],
  target: raw[6],
  summaryJson: raw[7],
  outcomeJson: raw[8],
  prevHash: raw[9],
  hash: raw[10],
});

/**
 * Every row of `audit_log` in seq order, read lazily (for `gpushare audit verify`; works on a
 * read-only connection while the server writes).
 */
export function* readAuditRows(db: Database.Database): Generator<StoredAuditRow> {
  const statement = db.prepare<[], RawRow>(`SELECT ${COLUMNS} FROM audit_log ORDER BY seq`).raw();
  for (const raw of statement.iterate()) yield rowOf(raw);
}

/**
 * The seq, `prev_hash` and hash of every row of `audit_log` in seq order, read lazily: what the
 * server's start checks (audit-verification.ts `checkAuditLinks`) and the journal it writes from the
 * store when started with `--accept-audit-problems`.
 */
export function* readAuditLinks(db: Database.Database): Generator<{ seq: number; prevHash: string; hash: string }> {
  const statement = db
    .prepare<[], [number, string, string]>('SELECT seq, prev_hash, hash FROM audit_log ORDER BY seq')
    .raw();
  for (const [seq, prevHash, hash] of statement.iterate()) yield { seq, prevHash, hash };
}

/**
 * The audit log over an open store connection (the store's own: `SqliteStateStore.database`), whose
 * schema has the `audit_log` table.
 */
export function createSqliteAuditLog(db: Database.Database, options: SqliteAuditLogOptions = {}): AuditLog {
  const insert = db.prepare<
    [number, number, string, string, string | null, string, string, string, string, string, string]
  >(`INSERT INTO audit_log (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const last = db
    .prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1')
    .get();
  let head: AuditHead = last === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: last.seq, hash: last.hash };
  const statements = new Map<string, Database.Statement<unknown[], RawRow>>();
  const listStatement = (filter: AuditFilter): Database.Statement<unknown[], RawRow> => {
    const where: string[] = [];
    if (filter.tenant !== undefined) where.push('tenant = ?');
    if (filter.sinceMs !== undefined) where.push('at_ms >= ?');
    if (filter.afterSeq !== undefined) where.push('seq > ?');
    const key = `${where.join(' AND ')}|${filter.newest === true}`;
    let statement = statements.get(key);
    if (statement === undefined) {
      const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
      const sql =
        filter.newest === true
          ? `SELECT * FROM (SELECT ${COLUMNS} FROM audit_log${whereSql} ORDER BY seq DESC LIMIT ?) ORDER BY seq`
          : `SELECT ${COLUMNS} FROM audit_log${whereSql} ORDER BY seq LIMIT ?`;
      statement = db.prepare<unknown[], RawRow>(sql).raw();
      statements.set(key, statement);
    }
    return statement;
  };
  const points = options.crashPoints ?? null;
  const appendTransaction = db.transaction((row: StoredAuditRow): void => {
    insert.run(
      row.seq,
      row.atMs,
      row.actor,
      row.role,
      row.tenant,
      row.action,
      row.target,
      row.summaryJson,
      row.outcomeJson,
      row.prevHash,
      row.hash,
    );
    points?.reach({ site: 'audit.commit', phase: 'before', detail: row.action });
  });
  return {
    append: (entry: NewAuditEntry): AuditEntry => {
      const row = chainAuditEntry(head, entry);
      appendTransaction(row);
      head = { seq: row.seq, hash: row.hash };
      points?.reach({ site: 'audit.commit', phase: 'after', detail: row.action });
      const stored = auditEntryOfRow(row);
      options.onAppend?.(stored);
      return stored;
    },
    list: (filter: AuditFilter): AuditEntry[] => {
      const args: unknown[] = [];
      if (filter.tenant !== undefined) args.push(filter.tenant);
      if (filter.sinceMs !== undefined) args.push(filter.sinceMs);
      if (filter.afterSeq !== undefined) args.push(filter.afterSeq);
      args.push(Math.max(1, Math.floor(filter.limit)));
      return listStatement(filter)
        .all(...args)
        .map((raw) => auditEntryOfRow(rowOf(raw)));
    },
    head: () => head,
  };
}

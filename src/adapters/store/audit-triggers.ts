/**
 * The append-only triggers of the `audit_log` table (migration 7, src/adapters/store/migrations.ts):
 * which are missing or altered, and putting them back (docs/security.md "Audit log"). They stop every
 * code path and any careless `sqlite3` session from changing an entry; someone who drops them is
 * caught by the hash chain, and the server's start and `gpushare audit verify` name the dropped
 * triggers (`triggers-missing`).
 */
import type Database from 'better-sqlite3';

/** Each trigger's name and the statement that makes it (as migration 7 does). */
const AUDIT_TRIGGERS: readonly { readonly name: string; readonly sql: string }[] = [
  {
    name: 'audit_log_no_update',
    sql:
      'CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log ' +
      "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
  },
  {
    name: 'audit_log_no_delete',
    sql:
      'CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log ' +
      "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
  },
];

/** `sql` with runs of whitespace made one space and no trailing semicolon, to compare statements. */
const normalized = (sql: string): string =>
  sql
    .replace(/\s+/g, ' ')
    .replace(/;?\s*$/, '')
    .trim();

/**
 * Names of the append-only triggers that are missing from `db`, or whose statement is not the one
 * gpushare makes (a trigger of that name that no longer refuses). Works on a read-only connection.
 */
export function missingAuditTriggers(db: Database.Database): string[] {
  const rows = db
    .prepare<[], { name: string; sql: string | null }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'",
    )
    .all();
  const found = new Map(rows.map((r) => [r.name, normalized(r.sql ?? '')]));
  return AUDIT_TRIGGERS.filter((t) => found.get(t.name) !== normalized(t.sql)).map((t) => t.name);
}

/**
 * Makes the append-only triggers again: each one missing or altered is dropped (when present) and
 * created as migration 7 made it, in one transaction.
 * @returns the names of the triggers made again
 */
export function restoreAuditTriggers(db: Database.Database): string[] {
  const missing = missingAuditTriggers(db);
  db.transaction(() => {
    for (const trigger of AUDIT_TRIGGERS.filter((t) => missing.includes(t.name))) {
      db.exec(`DROP TRIGGER IF EXISTS ${trigger.name}`);
      db.exec(trigger.sql);
    }
  })();
  return missing;
}

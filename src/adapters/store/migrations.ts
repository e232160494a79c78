/**
 * Schema migrations of the SQLite state store and the runner that applies them.
 *
 * Rule: `MIGRATIONS` only grows. Entry i (0-based) takes a database from schema version i to
 * i + 1; once an entry has shipped it is never edited, reordered or removed — a schema change is a
 * new entry appended at the end. The version lives in `PRAGMA user_version`, written in the same
 * transaction as the migration's SQL, so a database is always at exactly one version.
 */
import type Database from 'better-sqlite3';
import { legacyReason } from './legacy-reasons.js';

/**
 * Tenant caps and per-token limits: the highest priority class a tenant may submit at (tenants that
 * exist when it runs get `high`, which the server logs at that start; new tenants `normal`), and
 * its tokens' request rate, burst and event streams (NULL = the server's defaults).
 */
export const TENANT_LIMITS_MIGRATION = `
  ALTER TABLE tenants ADD COLUMN max_priority_class TEXT NOT NULL DEFAULT 'normal';
  ALTER TABLE tenants ADD COLUMN requests_per_second REAL;
  ALTER TABLE tenants ADD COLUMN request_burst INTEGER;
  ALTER TABLE tenants ADD COLUMN event_streams_per_token INTEGER;
  UPDATE tenants SET max_priority_class = 'high';
  `;

/** The ordered schema migrations (SQL scripts). Append only; never edit a shipped entry. */
export const MIGRATIONS: readonly string[] = [
  // 1: initial schema.
  `
  CREATE TABLE tenants (
    name          TEXT PRIMARY KEY NOT NULL,
    created_at_ms INTEGER NOT NULL
  );

  CREATE TABLE tokens (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    digest        TEXT NOT NULL UNIQUE,
    role          TEXT NOT NULL,
    tenant        TEXT REFERENCES tenants(name),
    label         TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
  );

  CREATE TABLE jobs (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    name               TEXT NOT NULL,
    tenant             TEXT NOT NULL REFERENCES tenants(name),
    state              TEXT NOT NULL,
    reason             TEXT,
    priority           INTEGER NOT NULL,
    submitted_at_ms    INTEGER NOT NULL,
    updated_at_ms      INTEGER NOT NULL,
    command            TEXT NOT NULL,
    working_directory  TEXT NOT NULL,
    environment        TEXT NOT NULL,
    time_limit_seconds INTEGER,
    retries            INTEGER NOT NULL,
    cpu_milli          INTEGER NOT NULL,
    host_memory_mib    INTEGER NOT NULL,
    gpu                TEXT NOT NULL,
    placement          TEXT,
    attempt            INTEGER NOT NULL,
    process            TEXT,
    started_at_ms      INTEGER,
    ended_at_ms        INTEGER,
    exit_code          INTEGER,
    signal             TEXT
  );
  CREATE INDEX jobs_by_state ON jobs(state);
  CREATE INDEX jobs_by_tenant_state ON jobs(tenant, state);

  CREATE TABLE job_events (
    seq        INTEGER PRIMARY KEY,
    job_id     INTEGER NOT NULL REFERENCES jobs(id),
    at_ms      INTEGER NOT NULL,
    from_state TEXT,
    to_state   TEXT NOT NULL,
    reason     TEXT
  );
  CREATE INDEX job_events_by_job ON job_events(job_id, seq);

  CREATE TABLE job_attempts (
    job_id        INTEGER NOT NULL REFERENCES jobs(id),
    attempt       INTEGER NOT NULL,
    started_at_ms INTEGER NOT NULL,
    ended_at_ms   INTEGER,
    exit_code     INTEGER,
    signal        TEXT,
    end_reason    TEXT,
    PRIMARY KEY (job_id, attempt)
  ) WITHOUT ROWID;

  CREATE TABLE gpu_cordons (
    uuid           TEXT PRIMARY KEY NOT NULL,
    cordoned_at_ms INTEGER NOT NULL
  );
  `,
  // 2: tenant quotas (guarantee, limit in GPU-equivalents; NULL limit = none) and preemptible jobs.
  `
  ALTER TABLE tenants ADD COLUMN guaranteed_gpu_equivalents REAL NOT NULL DEFAULT 0;
  ALTER TABLE tenants ADD COLUMN limit_gpu_equivalents REAL;
  ALTER TABLE jobs ADD COLUMN preemptible INTEGER NOT NULL DEFAULT 1;
  -- Jobs stored before this column existed get the submit default: preemptible below priority high.
  UPDATE jobs SET preemptible = 0 WHERE priority >= 900;
  `,
  // 3: QoS targets (JSON, NULL = none) and the digest of the current attempt's report token.
  `
  ALTER TABLE jobs ADD COLUMN qos TEXT;
  ALTER TABLE jobs ADD COLUMN report_token_digest TEXT;
  CREATE UNIQUE INDEX jobs_by_report_token ON jobs(report_token_digest) WHERE report_token_digest IS NOT NULL;
  `,
  // 4: the job's private folder under <data-dir>/jobs (NULL before its first launch). Jobs that
  // were launched before keep their folder, named by their id; a job never launched gets a new one.
  `
  ALTER TABLE jobs ADD COLUMN folder TEXT;
  UPDATE jobs SET folder = CAST(id AS TEXT) WHERE attempt > 0 OR state IN ('scheduled', 'running');
  CREATE UNIQUE INDEX jobs_by_folder ON jobs(folder) WHERE folder IS NOT NULL;
  `,
  // 5: token roles. A tenant token of before keeps what it could do as a tenant-admin.
  `
  UPDATE tokens SET role = 'tenant-admin' WHERE role = 'tenant';
  `,
  // 6: the token that submitted a job (its owner for a member's token); NULL for jobs stored before.
  `
  ALTER TABLE jobs ADD COLUMN submitted_by_token_id INTEGER;
  `,
  // 7: the audit log: append-only (triggers refuse UPDATE and DELETE), each entry chained to the
  // previous one by its hash (src/app/audit/audit-chain.ts, decision 0016).
  `
  CREATE TABLE audit_log (
    seq       INTEGER PRIMARY KEY NOT NULL,
    at_ms     INTEGER NOT NULL,
    actor     TEXT NOT NULL,
    role      TEXT NOT NULL,
    tenant    TEXT,
    action    TEXT NOT NULL,
    target    TEXT NOT NULL,
    summary   TEXT NOT NULL,
    outcome   TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
  );
  CREATE INDEX audit_log_by_tenant ON audit_log(tenant, seq);
  CREATE INDEX audit_log_by_time ON audit_log(at_ms);
  CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
  CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
  `,
  // 8: tenant caps and per-token limits (TENANT_LIMITS_MIGRATION).
  TENANT_LIMITS_MIGRATION,
  // 9: token expiry, revocation and rotation (ms since the epoch; NULL = never/not), and which
  // admin tokens the server made for its admin token file (those of before carry its label).
  `
  ALTER TABLE tokens ADD COLUMN expires_at_ms INTEGER;
  ALTER TABLE tokens ADD COLUMN revoked_at_ms INTEGER;
  ALTER TABLE tokens ADD COLUMN rotated_at_ms INTEGER;
  ALTER TABLE tokens ADD COLUMN created_by_server INTEGER NOT NULL DEFAULT 0;
  UPDATE tokens SET created_by_server = 1 WHERE role = 'admin' AND label = 'admin (created by gpushare serve)';
  CREATE INDEX tokens_by_tenant ON tokens(tenant, id);
  `,
  // 10: job listings by name pattern (its literal prefix is a range of this index) and by submit
  // time (`since`); tenant and state already have theirs (1).
  `
  CREATE INDEX jobs_by_name ON jobs(name);
  CREATE INDEX jobs_by_submitted ON jobs(submitted_at_ms);
  `,
  // 11: reasons as codes with details (JSON), the only form read from here on (decision 0026); the
  // text columns keep the admin's line for people reading the file. REASON_CONVERSIONS converts the
  // rows stored before, in the same transaction.
  `
  ALTER TABLE jobs ADD COLUMN reason_code TEXT;
  ALTER TABLE jobs ADD COLUMN reason_details TEXT;
  ALTER TABLE job_events ADD COLUMN reason_code TEXT;
  ALTER TABLE job_events ADD COLUMN reason_details TEXT;
  ALTER TABLE job_attempts ADD COLUMN end_reason_code TEXT;
  ALTER TABLE job_attempts ADD COLUMN end_reason_details TEXT;
  `,
  // 12: each job's peak measured GPU usage (docs/server.md "Measured peaks"): device memory on any one
  // of its GPUs, MiB, and attributable utilization, percent; NULL = never measured. Written only
  // when a value rises.
  `
  CREATE TABLE job_usage_peaks (
    job_id         INTEGER PRIMARY KEY NOT NULL REFERENCES jobs(id),
    gpu_memory_mib INTEGER,
    gpu_util_pct   REAL,
    updated_at_ms  INTEGER NOT NULL
  );
  `,
];

/**
 * Row conversions that SQL alone cannot write, by the index of the migration they follow (run in
 * its transaction, after its SQL). Append only, like `MIGRATIONS`.
 */
export const CONVERSIONS: ReadonlyMap<number, (db: Database.Database) => void> = new Map([[10, convertLegacyReasons]]);

/** Migration 11: every reason stored as text gets its code and details (legacy-reasons.ts). */
function convertLegacyReasons(db: Database.Database): void {
  const coded = (text: string, exitCode: number | null = null): [string, string] => {
    const reason = legacyReason(text, exitCode);
    return [reason.code, JSON.stringify(reason.details)];
  };
  const job = db.prepare('UPDATE jobs SET reason_code = ?, reason_details = ? WHERE id = ?');
  for (const row of db.prepare('SELECT id, reason FROM jobs WHERE reason IS NOT NULL').all() as {
    id: number;
    reason: string;
  }[])
    job.run(...coded(row.reason), row.id);
  const event = db.prepare('UPDATE job_events SET reason_code = ?, reason_details = ? WHERE seq = ?');
  for (const row of db.prepare('SELECT seq, reason FROM job_events WHERE reason IS NOT NULL').all() as {
    seq: number;
    reason: string;
  }[])
    event.run(...coded(row.reason), row.seq);
  const attempt = db.prepare(
    'UPDATE job_attempts SET end_reason_code = ?, end_reason_details = ? WHERE job_id = ? AND attempt = ?',
  );
  for (const row of db
    .prepare('SELECT job_id, attempt, exit_code, end_reason FROM job_attempts WHERE end_reason IS NOT NULL')
    .all() as { job_id: number; attempt: number; exit_code: number | null; end_reason: string }[])
    attempt.run(...coded(row.end_reason, row.exit_code), row.job_id, row.attempt);
}

/** The schema version this build reads and writes (the number of migrations). */
export const SCHEMA_VERSION: number = MIGRATIONS.length;

/** Thrown when a database file's schema version is not one this build can use. */
export class StoreSchemaVersionError extends Error {
  override readonly name = 'StoreSchemaVersionError';

  /**
   * @param file the database file
   * @param fileVersion the file's `user_version`
   * @param supportedVersion the version this build knows (`SCHEMA_VERSION`)
   * @param detail what to do about it
   */
  constructor(
    readonly file: string,
    readonly fileVersion: number,
    readonly supportedVersion: number,
    detail: string,
  ) {
    super(
      `state store ${file} has schema version ${fileVersion}, this gpushare supports version ` +
        `${supportedVersion}: ${detail}`,
    );
  }
}

/** The `user_version` of an open database. */
export function readSchemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database to `SCHEMA_VERSION`, one migration per `BEGIN IMMEDIATE` transaction (each
 * re-reads the version under the write lock, so two processes opening the same new file migrate it
 * once). A read-only connection only checks.
 * @param file the database file, for error messages
 * @returns the schema version after migrating (always `SCHEMA_VERSION`)
 * @throws StoreSchemaVersionError when the file is newer than this build, or older and `readonly`
 */
export function migrate(db: Database.Database, file: string, readonly: boolean): number {
  const checkNotNewer = (version: number): void => {
    if (version > SCHEMA_VERSION) {
      throw new StoreSchemaVersionError(
        file,
        version,
        SCHEMA_VERSION,
        'it was written by a newer gpushare; upgrade gpushare or restore a backup made by this version',
      );
    }
  };
  const initial = readSchemaVersion(db);
  checkNotNewer(initial);
  if (readonly) {
    if (initial < SCHEMA_VERSION) {
      throw new StoreSchemaVersionError(file, initial, SCHEMA_VERSION, 'open it read-write once to migrate it');
    }
    return initial;
  }
  const step = db.transaction((): boolean => {
    const version = readSchemaVersion(db);
    checkNotNewer(version);
    const sql = MIGRATIONS[version];
    if (sql === undefined) return false;
    db.exec(sql);
    CONVERSIONS.get(version)?.(db);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration applied; look for the next
  }
  return readSchemaVersion(db);
}

/**
 * The production state store: one SQLite file (`<data-dir>/gpushare.db`) in WAL mode through
 * better-sqlite3. Every write method is one transaction; statements are prepared once at open.
 * See docs/store.md.
 */
import Database from 'better-sqlite3';
import type { JobState } from '../../core/index.js';
import {
  type AttemptRecord,
  type JobChange,
  type JobEvent,
  type JobFilter,
  type JobRecord,
  type NewJob,
  type StateStore,
  StoreConflictError,
  type TenantRecord,
  type TokenRecord,
} from '../../app/ports/state-store.js';
import { replaceFileAtomically } from './atomic-file.js';
import { migrate, readSchemaVersion } from './migrations.js';
import { planJobChanges, reasonUpdate } from './plan-job-changes.js';
import {
  type AttemptRow,
  attemptFromRow,
  type EventRow,
  eventFromRow,
  JOB_COLUMNS,
  jobFromRow,
  type JobRow,
  newJobParams,
  type TenantRow,
  tenantFromRow,
  toJsonOrNull,
  type TokenRow,
  tokenFromRow,
} from './sqlite-rows.js';

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** Open without writing: no migration, no journal-mode change; every write method throws. The file must exist. */
  readonly?: boolean;
  /** How long a statement waits for another connection's lock before failing, ms (default 5000). */
  busyTimeoutMs?: number;
}

/** The SQLite state store, with a few extras beyond the port. */
export interface SqliteStateStore extends StateStore {
  /** The database file it was opened on. */
  readonly path: string;
  /** The file's schema version (`PRAGMA user_version`). */
  schemaVersion(): number;
  /** The underlying connection, for diagnostics and tests; do not write through it. */
  readonly database: Database.Database;
}

/** Default `busy_timeout`, ms. */
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating when missing, unless `readonly`) the SQLite state store at `path` and migrates it
 * to the current schema. Sets WAL journal mode, `synchronous = NORMAL`, `foreign_keys = ON` and
 * `busy_timeout`.
 * @param path database file (`:memory:` for a private in-memory database)
 * @throws StoreSchemaVersionError when the file was written by a newer gpushare (or needs a
 *   migration and `readonly` is set); Error naming `path` when the file cannot be opened
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStateStore {
  const readonly = options.readonly ?? false;
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (err) {
    throw new Error(`cannot open state store ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    if (!readonly) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, path, readonly);
    return createSqliteStore(db, path);
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Maps a constraint violation that slipped past the explicit checks to StoreConflictError. */
function asConflict(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')) {
    return new StoreConflictError((err as Error).message, { cause: err });
  }
  return err;
}

function createSqliteStore(db: Database.Database, path: string): SqliteStateStore {
  const sql = {
    tenantGet: db.prepare<[string], TenantRow>('SELECT name, created_at_ms FROM tenants WHERE name = ?'),
    tenantInsert: db.prepare<[string, number]>('INSERT INTO tenants (name, created_at_ms) VALUES (?, ?)'),
    tenantList: db.prepare<[], TenantRow>('SELECT name, created_at_ms FROM tenants ORDER BY name'),
    tokenByDigest: db.prepare<[string], TokenRow>('SELECT id, digest, role, tenant, label, created_at_ms FROM tokens WHERE digest = ?'),
    tokenInsert: db.prepare<[string, string, string | null, string, number]>(
      'INSERT INTO tokens (digest, role, tenant, label, created_at_ms) VALUES (?, ?, ?, ?, ?)',
    ),
    jobInsert: db.prepare(
      `INSERT INTO jobs (${JOB_COLUMNS.replace('id, ', '')}) VALUES (${JOB_COLUMNS.replace('id, ', '').split(', ').map((c) => `@${c}`).join(', ')})`,
    ),
    jobGet: db.prepare<[number], JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`),
    jobState: db.prepare<[number], string>('SELECT state FROM jobs WHERE id = ?').pluck(),
    jobUpdate: db.prepare(`UPDATE jobs SET
        state = @state,
        updated_at_ms = @at_ms,
        reason = CASE WHEN @set_reason THEN @reason ELSE reason END,
        placement = CASE WHEN @set_placement THEN @placement ELSE placement END,
        attempt = CASE WHEN @set_attempt THEN @attempt ELSE attempt END,
        process = CASE WHEN @set_process THEN @process ELSE process END,
        started_at_ms = CASE WHEN @set_started_at_ms THEN @started_at_ms ELSE started_at_ms END,
        ended_at_ms = CASE WHEN @set_ended_at_ms THEN @ended_at_ms ELSE ended_at_ms END,
        exit_code = CASE WHEN @set_exit_code THEN @exit_code ELSE exit_code END,
        signal = CASE WHEN @set_signal THEN @signal ELSE signal END
      WHERE id = @id`),
    eventInsert: db.prepare<[number, number, string | null, string, string | null]>(
      'INSERT INTO job_events (job_id, at_ms, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)',
    ),
    eventList: db.prepare<[number], EventRow>('SELECT job_id, at_ms, from_state, to_state, reason FROM job_events WHERE job_id = ? ORDER BY seq'),
    attemptExists: db.prepare<[number, number], number>('SELECT 1 FROM job_attempts WHERE job_id = ? AND attempt = ?').pluck(),
    attemptStart: db.prepare<[number, number, number]>('INSERT INTO job_attempts (job_id, attempt, started_at_ms) VALUES (?, ?, ?)'),
    attemptEnd: db.prepare<[number, number | null, string | null, string, number, number]>(
      'UPDATE job_attempts SET ended_at_ms = ?, exit_code = ?, signal = ?, end_reason = ? WHERE job_id = ? AND attempt = ?',
    ),
    attemptList: db.prepare<[number], AttemptRow>(
      'SELECT job_id, attempt, started_at_ms, ended_at_ms, exit_code, signal, end_reason FROM job_attempts WHERE job_id = ? ORDER BY attempt',
    ),
    cordonList: db.prepare<[], string>('SELECT uuid FROM gpu_cordons ORDER BY uuid').pluck(),
    cordonSet: db.prepare<[string, number]>('INSERT INTO gpu_cordons (uuid, cordoned_at_ms) VALUES (?, ?) ON CONFLICT (uuid) DO NOTHING'),
    cordonUnset: db.prepare<[string]>('DELETE FROM gpu_cordons WHERE uuid = ?'),
  };

  /** `listJobs` statements by filter shape (tenant or not × number of states): at most 2 × 7. */
  const listStatements = new Map<string, Database.Statement<unknown[], JobRow>>();
  const listStatement = (byTenant: boolean, stateCount: number): Database.Statement<unknown[], JobRow> => {
    const key = `${byTenant ? 't' : '-'}${stateCount}`;
    let statement = listStatements.get(key);
    if (statement === undefined) {
      const where: string[] = [];
      if (byTenant) where.push('tenant = ?');
      if (stateCount > 0) where.push(`state IN (${new Array<string>(stateCount).fill('?').join(', ')})`);
      const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
      statement = db.prepare<unknown[], JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs${whereSql} ORDER BY id`);
      listStatements.set(key, statement);
    }
    return statement;
  };

  /** Wraps `fn` in one (deferred) transaction; constraint violations become StoreConflictError. */
  function write<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    const transaction = db.transaction(fn);
    return (...args: A): R => {
      try {
        return transaction(...args);
      } catch (err) {
        throw asConflict(err);
      }
    };
  }

  const requireTenant = (name: string): void => {
    if (sql.tenantGet.get(name) === undefined) throw new StoreConflictError(`tenant ${name} does not exist`);
  };

  const createTenant = write((name: string, atMs: number): TenantRecord => {
    if (sql.tenantGet.get(name) !== undefined) throw new StoreConflictError(`tenant ${name} already exists`);
    sql.tenantInsert.run(name, atMs);
    return { name, createdAtMs: atMs };
  });

  const createToken = write((token: Omit<TokenRecord, 'id'>): TokenRecord => {
    if (sql.tokenByDigest.get(token.digest) !== undefined) throw new StoreConflictError('a token with this digest already exists');
    if (token.tenant !== null) requireTenant(token.tenant);
    const id = Number(sql.tokenInsert.run(token.digest, token.role, token.tenant, token.label, token.createdAtMs).lastInsertRowid);
    return { id, digest: token.digest, role: token.role, tenant: token.tenant, label: token.label, createdAtMs: token.createdAtMs };
  });

  const insertJob = write((job: NewJob, atMs: number): JobRecord => {
    requireTenant(job.tenant);
    const params = newJobParams(job, atMs);
    const id = Number(sql.jobInsert.run(params).lastInsertRowid);
    sql.eventInsert.run(id, atMs, null, 'pending', null);
    return jobFromRow({ id, ...params });
  });

  const applyJobChanges = write((changes: readonly JobChange[]): void => {
    const planned = planJobChanges(changes, {
      jobState: (jobId) => (sql.jobState.get(jobId) as JobState | undefined) ?? null,
      hasAttempt: (jobId, attempt) => sql.attemptExists.get(jobId, attempt) !== undefined,
    });
    for (const { change, fromState, toState } of planned) {
      const { jobId, atMs } = change;
      if (change.startAttempt !== undefined) sql.attemptStart.run(jobId, change.startAttempt, atMs);
      if (change.endAttempt !== undefined) {
        const end = change.endAttempt;
        sql.attemptEnd.run(atMs, end.exitCode, end.signal, end.endReason, jobId, end.attempt);
      }
      sql.jobUpdate.run(updateParams(change, toState));
      if (change.to !== undefined) sql.eventInsert.run(jobId, atMs, fromState, change.to, change.reason ?? null);
    }
  });

  const setGpuCordoned = write((uuid: string, cordoned: boolean, atMs: number): void => {
    if (cordoned) sql.cordonSet.run(uuid, atMs);
    else sql.cordonUnset.run(uuid);
  });

  return {
    path,
    database: db,
    schemaVersion: () => readSchemaVersion(db),
    createTenant,
    getTenant: (name) => {
      const row = sql.tenantGet.get(name);
      return row === undefined ? null : tenantFromRow(row);
    },
    listTenants: () => sql.tenantList.all().map(tenantFromRow),
    createToken,
    findTokenByDigest: (digest) => {
      const row = sql.tokenByDigest.get(digest);
      return row === undefined ? null : tokenFromRow(row);
    },
    insertJob,
    getJob: (id) => {
      const row = sql.jobGet.get(id);
      return row === undefined ? null : jobFromRow(row);
    },
    listJobs: (filter: JobFilter = {}) => {
      const states = filter.states === undefined ? [] : [...new Set(filter.states)];
      if (filter.states !== undefined && states.length === 0) return [];
      const args: unknown[] = filter.tenant === undefined ? states : [filter.tenant, ...states];
      return listStatement(filter.tenant !== undefined, states.length).all(...args).map(jobFromRow);
    },
    listEvents: (jobId): JobEvent[] => sql.eventList.all(jobId).map(eventFromRow),
    listAttempts: (jobId): AttemptRecord[] => sql.attemptList.all(jobId).map(attemptFromRow),
    applyJobChanges,
    listCordonedGpus: () => sql.cordonList.all(),
    setGpuCordoned,
    backup: async (target) => {
      await replaceFileAtomically(target, async (temporary) => {
        await db.backup(temporary);
      });
    },
    close: () => {
      db.close();
    },
  };
}

/** Named parameters of the job update for one change (`set_*` = 1 where the patch sets the field). */
function updateParams(change: JobChange, toState: JobState): Record<string, string | number | null> {
  const patch = change.patch ?? {};
  const reason = reasonUpdate(change);
  const flag = (value: unknown): number => (value === undefined ? 0 : 1);
  return {
    id: change.jobId,
    state: toState,
    at_ms: change.atMs,
    set_reason: reason.set ? 1 : 0,
    reason: reason.set ? reason.reason : null,
    set_placement: flag(patch.placement),
    placement: patch.placement === undefined ? null : toJsonOrNull(patch.placement),
    set_attempt: flag(patch.attempt),
    attempt: patch.attempt ?? null,
    set_process: flag(patch.process),
    process: patch.process === undefined ? null : toJsonOrNull(patch.process),
    set_started_at_ms: flag(patch.startedAtMs),
    started_at_ms: patch.startedAtMs ?? null,
    set_ended_at_ms: flag(patch.endedAtMs),
    ended_at_ms: patch.endedAtMs ?? null,
    set_exit_code: flag(patch.exitCode),
    exit_code: patch.exitCode ?? null,
    set_signal: flag(patch.signal),
    signal: patch.signal ?? null,
  };
}

/**
 * The production state store: one SQLite file (`<data-dir>/gpushare.db`) in WAL mode through
 * better-sqlite3. Every write method is one transaction; statements are prepared once at open.
 * Records it returns are deep-frozen snapshots; active jobs are cached in-process
 * (sqlite-job-cache.ts) so listing the queue does not re-parse it. See docs/store.md.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { diskFull, type GpushareError } from '../../app/errors.js';
import type { CrashPoints } from '../../app/ports/crash-points.js';
import type { JobEventReason, JobState } from '../../core/index.js';
import {
  type AttemptRecord,
  type JobChange,
  type JobEvent,
  type JobFilter,
  type JobRecord,
  type NewJob,
  type StateStore,
  StoreConflictError,
  DEFAULT_TENANT_LIMITS,
  type TenantLimits,
  type TenantRecord,
} from '../../app/ports/state-store.js';
import { writeCallerFile } from './caller-path.js';
import { createPrivateFile } from './private-file.js';
import { type JobIdMark, lastJobId, openJobIdMark, raiseJobIdSequence } from './job-id-mark.js';
import {
  migrate,
  MIGRATIONS,
  readSchemaVersion,
  StoreSchemaVersionError,
  TENANT_LIMITS_MIGRATION,
} from './migrations.js';
import { planJobChanges } from './plan-job-changes.js';
import { deepFreeze } from './deep-freeze.js';
import { ActiveJobCache } from './sqlite-job-cache.js';
import { sqliteJobLister } from './sqlite-job-list.js';
import { sqliteTokenMethods } from './sqlite-tokens.js';
import { sqliteUsagePeakMethods } from './sqlite-usage-peaks.js';
import {
  type AttemptRow,
  attemptFromRow,
  type EventRow,
  eventFromRow,
  JOB_COLUMNS,
  JOB_SELECT_LIST,
  jobFromRow,
  type JobRow,
  newJobParams,
  reasonColumns,
  TENANT_SELECT_LIST,
  type TenantRow,
  tenantFromRow,
  updateParams,
} from './sqlite-rows.js';

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** Open without writing: no migration, no journal-mode change; every write method throws. The file must exist. */
  readonly?: boolean;
  /** How long a statement waits for another connection's lock before failing, ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * The job-id high-water mark file (job-id-mark.ts; made with mode 0600 when missing): written in
   * every job insert, and the job-id sequence is raised to it at open. Not with `readonly`.
   */
  jobIdMarkPath?: string;
  /** Job ids up to this one were given out before (e.g. seen in job folders): the sequence is raised to it at open. */
  jobIdFloor?: number;
  /** Called with the 507 error each time a write fails because the disk is full (see `asDiskFull`). */
  onDiskFull?: (error: GpushareError) => void;
  /**
   * Told of a crash point before and after every write's COMMIT, the job-id mark's write and the
   * sequence raised at open (app/ports/crash-points.ts); absent: none (tests of crashes only).
   */
  crashPoints?: CrashPoints;
}

/** The SQLite state store, with a few extras beyond the port. */
export interface SqliteStateStore extends StateStore {
  /** The database file it was opened on. */
  readonly path: string;
  /** The file's schema version (`PRAGMA user_version`). */
  schemaVersion(): number;
  /** The underlying connection, for diagnostics and tests; do not write through it. */
  readonly database: Database.Database;
  /** The job-id sequence as raised at open (mark file, `jobIdFloor`); null when it was not lower. */
  readonly jobIdsRaised: { readonly from: number; readonly to: number } | null;
  /**
   * The tenants this open's migration gave the priority cap `high` (they existed before caps did); empty on every other
   * open.
   */
  readonly tenantsGivenHighCap: readonly string[];
}

/** Default `busy_timeout`, ms. */
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating when missing with mode 0600, unless `readonly`) the SQLite state store at `path`
 * and migrates it to the current schema; with `jobIdMarkPath`/`jobIdFloor`, raises its job-id
 * sequence (job-id-mark.ts). Sets WAL journal mode, `synchronous = NORMAL`, `foreign_keys = ON` and
 * `busy_timeout`.
 * @param path database file (`:memory:` for a private in-memory database)
 * @throws StoreSchemaVersionError when the file was written by a newer gpushare (or needs a
 *   migration and `readonly` is set); Error naming `path` when the file cannot be opened or is
 *   not a SQLite database; Error naming the mark file when it cannot be opened or is malformed
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStateStore {
  const readonly = options.readonly ?? false;
  let db: Database.Database;
  let tenantsGivenHighCap: readonly string[] = [];
  try {
    if (!readonly && path !== ':memory:' && path !== '') createPrivateFile(path);
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (err) {
    throw new Error(`cannot open state store ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    if (!readonly) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const before = readSchemaVersion(db);
    migrate(db, path, readonly);
    const capsVersion = MIGRATIONS.indexOf(TENANT_LIMITS_MIGRATION) + 1;
    if (before > 0 && before < capsVersion) {
      tenantsGivenHighCap = db
        .prepare<[], { name: string }>("SELECT name FROM tenants WHERE max_priority_class = 'high' ORDER BY name")
        .all()
        .map((r) => r.name);
    }
  } catch (err) {
    db.close();
    if (err instanceof StoreSchemaVersionError) throw err;
    throw new Error(`cannot open state store ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  let mark: JobIdMark | null = null;
  try {
    const points = options.crashPoints ?? null;
    mark = !readonly && options.jobIdMarkPath !== undefined ? openJobIdMark(options.jobIdMarkPath, points) : null;
    const raised = readonly
      ? null
      : raiseJobIdSequence(db, Math.max(options.jobIdFloor ?? 0, mark?.read() ?? 0), points);
    mark?.record(lastJobId(db));
    return createSqliteStore(
      db,
      path,
      mark,
      { jobIdsRaised: raised, tenantsGivenHighCap },
      options.onDiskFull ?? (() => undefined),
      points,
    );
  } catch (err) {
    mark?.close();
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

/** Below this many free bytes, an I/O error of a write is taken to be the disk filling up. */
const NEARLY_FULL_BYTES = 1 << 20;

/**
 * A write that failed because the disk is full, as the 507 `diskFull` error naming the database's
 * folder: SQLITE_FULL, ENOSPC/EDQUOT (the job-id mark), or an SQLITE_IOERR while the file system
 * has less than 1 MiB free (SQLite reports some ENOSPC, e.g. growing its shared memory file, as
 * I/O errors). Null for any other error.
 */
function asDiskFull(err: unknown, path: string): GpushareError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || path === ':memory:' || path === '') return null;
  const folder = dirname(path);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return diskFull(folder, code, err);
  if (!code.startsWith('SQLITE_IOERR')) return null;
  try {
    const stats = statfsSync(folder);
    const free = (process.getuid?.() === 0 ? stats.bfree : stats.bavail) * stats.bsize;
    return free < NEARLY_FULL_BYTES ? diskFull(folder, `${code} with ${free} bytes free`, err) : null;
  } catch {
    return null;
  }
}

function createSqliteStore(
  db: Database.Database,
  path: string,
  mark: JobIdMark | null,
  { jobIdsRaised, tenantsGivenHighCap }: Pick<SqliteStateStore, 'jobIdsRaised' | 'tenantsGivenHighCap'>,
  onDiskFull: (error: GpushareError) => void,
  points: CrashPoints | null,
): SqliteStateStore {
  const insertColumns = JOB_COLUMNS.filter((column) => column !== 'id');
  const sql = {
    tenantGet: db.prepare<[string], TenantRow>(`SELECT ${TENANT_SELECT_LIST} FROM tenants WHERE name = ?`),
    tenantInsert: db.prepare<[string, number]>('INSERT INTO tenants (name, created_at_ms) VALUES (?, ?)'),
    tenantSetQuota: db.prepare<[number, number | null, string]>(
      'UPDATE tenants SET guaranteed_gpu_equivalents = ?, limit_gpu_equivalents = ? WHERE name = ?',
    ),
    tenantSetLimits: db.prepare<[string, number | null, number | null, number | null, string]>(
      'UPDATE tenants SET max_priority_class = ?, requests_per_second = ?, request_burst = ?, ' +
        'event_streams_per_token = ? WHERE name = ?',
    ),
    tenantList: db.prepare<[], TenantRow>(`SELECT ${TENANT_SELECT_LIST} FROM tenants ORDER BY name`),
    jobInsert: db.prepare(
      `INSERT INTO jobs (${insertColumns.join(', ')}) VALUES (${insertColumns.map((c) => `@${c}`).join(', ')})`,
    ),
    jobGet: db.prepare<[number], JobRow>(`SELECT ${JOB_SELECT_LIST} FROM jobs WHERE id = ?`).raw(),
    jobState: db.prepare<[number], string>('SELECT state FROM jobs WHERE id = ?').pluck(),
    jobUpdate: db.prepare(`UPDATE jobs SET
        state = @state,
        updated_at_ms = @at_ms,
        reason = CASE WHEN @set_reason THEN @reason ELSE reason END,
        reason_code = CASE WHEN @set_reason THEN @reason_code ELSE reason_code END,
        reason_details = CASE WHEN @set_reason THEN @reason_details ELSE reason_details END,
        placement = CASE WHEN @set_placement THEN @placement ELSE placement END,
        attempt = CASE WHEN @set_attempt THEN @attempt ELSE attempt END,
        process = CASE WHEN @set_process THEN @process ELSE process END,
        started_at_ms = CASE WHEN @set_started_at_ms THEN @started_at_ms ELSE started_at_ms END,
        ended_at_ms = CASE WHEN @set_ended_at_ms THEN @ended_at_ms ELSE ended_at_ms END,
        exit_code = CASE WHEN @set_exit_code THEN @exit_code ELSE exit_code END,
        signal = CASE WHEN @set_signal THEN @signal ELSE signal END,
        report_token_digest = CASE WHEN @set_report_token_digest THEN @report_token_digest ELSE report_token_digest END,
        folder = CASE WHEN @set_folder THEN @folder ELSE folder END
      WHERE id = @id`),
    jobByReportToken: db
      .prepare<[string], JobRow>(`SELECT ${JOB_SELECT_LIST} FROM jobs WHERE report_token_digest = ?`)
      .raw(),
    eventInsert: db.prepare<[number, number, string | null, string, string | null, string | null, string | null]>(
      'INSERT INTO job_events (job_id, at_ms, from_state, to_state, reason, reason_code, reason_details) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    eventList: db.prepare<[number], EventRow>(
      'SELECT job_id, at_ms, from_state, to_state, reason_code, reason_details FROM job_events WHERE job_id = ? ' +
        'ORDER BY seq',
    ),
    attemptExists: db
      .prepare<[number, number], number>('SELECT 1 FROM job_attempts WHERE job_id = ? AND attempt = ?')
      .pluck(),
    attemptStart: db.prepare<[number, number, number]>(
      'INSERT INTO job_attempts (job_id, attempt, started_at_ms) VALUES (?, ?, ?)',
    ),
    attemptEnd: db.prepare<
      [number, number | null, string | null, string | null, string | null, string | null, number, number]
    >(
      'UPDATE job_attempts SET ended_at_ms = ?, exit_code = ?, signal = ?, end_reason = ?, end_reason_code = ?, ' +
        'end_reason_details = ? WHERE job_id = ? AND attempt = ?',
    ),
    attemptList: db.prepare<[number], AttemptRow>(
      'SELECT job_id, attempt, started_at_ms, ended_at_ms, exit_code, signal, end_reason_code, end_reason_details ' +
        'FROM job_attempts WHERE job_id = ? ORDER BY attempt',
    ),
    cordonList: db.prepare<[], string>('SELECT uuid FROM gpu_cordons ORDER BY uuid').pluck(),
    cordonSet: db.prepare<[string, number]>(
      'INSERT INTO gpu_cordons (uuid, cordoned_at_ms) VALUES (?, ?) ON CONFLICT (uuid) DO NOTHING',
    ),
    cordonUnset: db.prepare<[string]>('DELETE FROM gpu_cordons WHERE uuid = ?'),
  };
  const cache = new ActiveJobCache(db);

  /** The frozen record of a row, from the cache when it has one (which is then as new as the row). */
  const recordOf = (row: JobRow): JobRecord => {
    const cached = cache.get(row[0]);
    if (cached !== undefined) return cached;
    const record = deepFreeze(jobFromRow(row));
    cache.remember(record);
    return record;
  };
  const readJob = (id: number): JobRecord | null => {
    const cached = cache.get(id);
    if (cached !== undefined) return cached;
    const row = sql.jobGet.get(id);
    return row === undefined ? null : recordOf(row);
  };

  /**
   * Wraps `fn` in one (deferred) transaction, named `name` (the method); constraint violations
   * become StoreConflictError, a full disk the 507 `diskFull` error (reported to `onDiskFull`). A
   * failed transaction is rolled back whole: nothing of it is stored. The one write primitive of
   * the store: with crash points, reaches `store.commit` before (inside the transaction) and after
   * its COMMIT.
   */
  function write<A extends unknown[], R>(name: string, fn: (...args: A) => R): (...args: A) => R {
    const body =
      points === null
        ? fn
        : (...args: A): R => {
            const result = fn(...args);
            points.reach({ site: 'store.commit', phase: 'before', detail: name });
            return result;
          };
    const transaction = db.transaction(body);
    return (...args: A): R => {
      let result: R;
      try {
        result = transaction(...args);
      } catch (err) {
        const full = asDiskFull(err, path);
        if (full !== null) {
          onDiskFull(full);
          throw full;
        }
        throw asConflict(err);
      }
      points?.reach({ site: 'store.commit', phase: 'after', detail: name });
      return result;
    };
  }

  const requireTenant = (name: string): void => {
    if (sql.tenantGet.get(name) === undefined) throw new StoreConflictError(`tenant ${name} does not exist`);
  };

  const createTenant = write('createTenant', (name: string, atMs: number): TenantRecord => {
    if (sql.tenantGet.get(name) !== undefined) throw new StoreConflictError(`tenant ${name} already exists`);
    sql.tenantInsert.run(name, atMs);
    return deepFreeze({
      name,
      createdAtMs: atMs,
      guaranteedGpuEquivalents: 0,
      limitGpuEquivalents: null,
      ...DEFAULT_TENANT_LIMITS,
    });
  });

  const setTenantLimits = write('setTenantLimits', (name: string, limits: TenantLimits): TenantRecord => {
    if (
      sql.tenantSetLimits.run(
        limits.maxPriorityClass,
        limits.requestsPerSecond,
        limits.requestBurst,
        limits.eventStreamsPerToken,
        name,
      ).changes === 0
    ) {
      throw new StoreConflictError(`tenant ${name} does not exist`);
    }
    const row = sql.tenantGet.get(name);
    if (row === undefined) throw new Error(`tenant ${name} vanished inside its limits transaction`);
    return deepFreeze(tenantFromRow(row));
  });

  // Touches no job, so the active-job cache stays valid.
  const setTenantQuota = write(
    'setTenantQuota',
    (name: string, quota: { guaranteedGpuEquivalents: number; limitGpuEquivalents: number | null }): TenantRecord => {
      if (sql.tenantSetQuota.run(quota.guaranteedGpuEquivalents, quota.limitGpuEquivalents, name).changes === 0) {
        throw new StoreConflictError(`tenant ${name} does not exist`);
      }
      const row = sql.tenantGet.get(name);
      if (row === undefined) throw new Error(`tenant ${name} vanished inside its quota transaction`);
      return deepFreeze(tenantFromRow(row));
    },
  );

  const insertJobTransaction = write('insertJob', (job: NewJob, atMs: number): JobRow => {
    requireTenant(job.tenant);
    const id = Number(sql.jobInsert.run(newJobParams(job, atMs)).lastInsertRowid);
    mark?.record(id); // before the COMMIT: the mark is never behind the store
    sql.eventInsert.run(id, atMs, null, 'pending', null, null, null);
    const row = sql.jobGet.get(id);
    if (row === undefined) throw new Error(`job ${id} vanished inside its insert transaction`);
    return row;
  });

  const applyJobChangesTransaction = write('applyJobChanges', (changes: readonly JobChange[]): void => {
    const planned = planJobChanges(changes, {
      jobState: (jobId) => (sql.jobState.get(jobId) as JobState | undefined) ?? null,
      hasAttempt: (jobId, attempt) => sql.attemptExists.get(jobId, attempt) !== undefined,
    });
    for (const { change, fromState, toState } of planned) {
      const { jobId, atMs } = change;
      if (change.startAttempt !== undefined) sql.attemptStart.run(jobId, change.startAttempt, atMs);
      if (change.endAttempt !== undefined) {
        const end = change.endAttempt;
        sql.attemptEnd.run(atMs, end.exitCode, end.signal, ...reasonColumns(end.endReason), jobId, end.attempt);
      }
      sql.jobUpdate.run(updateParams(change, toState));
      if (change.to !== undefined)
        sql.eventInsert.run(jobId, atMs, fromState, change.to, ...reasonColumns(change.reason ?? null));
    }
  });

  // A note changes no job column, so the active-job cache stays valid.
  const addJobEvent = write(
    'addJobEvent',
    (jobId: number, atMs: number, reason: JobEventReason, expectState?: JobState): void => {
      const state = sql.jobState.get(jobId) as JobState | undefined;
      if (state === undefined) throw new StoreConflictError(`job ${jobId} does not exist`);
      if (expectState !== undefined && state !== expectState)
        throw new StoreConflictError(`job ${jobId} is ${state}, expected ${expectState}`);
      sql.eventInsert.run(jobId, atMs, state, state, ...reasonColumns(reason));
    },
  );

  const listJobs = sqliteJobLister(db, cache, recordOf);

  const setGpuCordoned = write('setGpuCordoned', (uuid: string, cordoned: boolean, atMs: number): void => {
    if (cordoned) sql.cordonSet.run(uuid, atMs);
    else sql.cordonUnset.run(uuid);
  });

  return {
    path,
    database: db,
    jobIdsRaised,
    schemaVersion: () => readSchemaVersion(db),
    createTenant,
    setTenantLimits,
    setTenantQuota,
    tenantsGivenHighCap,
    getTenant: (name) => {
      const row = sql.tenantGet.get(name);
      return row === undefined ? null : deepFreeze(tenantFromRow(row));
    },
    listTenants: () => sql.tenantList.all().map((row) => deepFreeze(tenantFromRow(row))),
    ...sqliteTokenMethods(db, write, requireTenant),
    insertJob: (job, atMs) => {
      const record = deepFreeze(jobFromRow(insertJobTransaction(job, atMs)));
      cache.remember(record);
      return record;
    },
    getJob: (id) => {
      cache.revalidate();
      return readJob(id);
    },
    listJobs: (filter: JobFilter = {}) => listJobs(filter),
    listEvents: (jobId): JobEvent[] => sql.eventList.all(jobId).map((row) => deepFreeze(eventFromRow(row))),
    listAttempts: (jobId): AttemptRecord[] => sql.attemptList.all(jobId).map((row) => deepFreeze(attemptFromRow(row))),
    applyJobChanges: (changes) => {
      try {
        applyJobChangesTransaction(changes);
      } finally {
        for (const change of changes) cache.forget(change.jobId);
      }
    },
    addJobEvent,
    findJobByReportTokenDigest: (digest) => {
      const row = sql.jobByReportToken.get(digest);
      return row === undefined ? null : recordOf(row);
    },
    ...sqliteUsagePeakMethods(db, write),
    listCordonedGpus: () => sql.cordonList.all(),
    setGpuCordoned,
    backup: (target) =>
      // SQLite opens a file by its path (and resolves links in it again), so it writes the copy into
      // the store's own folder; the bytes then go through the checked folder of the caller's path.
      writeCallerFile(target, 'path', async (fd) => {
        const staging = join(dirname(path), `${BACKUP_STAGING_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
        try {
          createPrivateFile(staging); // private before SQLite writes a byte to it
          await db.backup(staging);
          copyIntoFd(staging, fd);
        } finally {
          rmSync(staging, { force: true });
        }
      }),
    close: () => {
      db.close();
      mark?.close();
    },
  };
}

/** Name prefix of the copy a backup stages beside the store before its bytes go to the caller's path. */
const BACKUP_STAGING_PREFIX = '.backup-staging-';

/**
 * Removes the staging copies that backups interrupted by a crash left in the store's folder `dir`;
 * call it while holding the data directory's lock (no backup of this store runs). Returns the names
 * removed.
 */
export function removeBackupLeftovers(dir: string): string[] {
  const names = readdirSync(dir).filter((name) => name.startsWith(BACKUP_STAGING_PREFIX));
  for (const name of names) rmSync(join(dir, name), { force: true });
  return names;
}

/** Copies the file at `source` into the open file `fd` (1 MiB at a time). */
function copyIntoFd(source: string, fd: number): void {
  const input = openSync(source, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let read = readSync(input, chunk); read > 0; read = readSync(input, chunk)) {
      for (let done = 0; done < read;) done += writeSync(fd, chunk, done, read - done);
    }
  } finally {
    closeSync(input);
  }
}

/**
 * The SQLite store's files stay private (mode 0600 whatever the umask), schema version 4 (job
 * folders), and job ids that never come back, even when an older copy of the database is restored.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../app/ports/state-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { openSqliteStore, type SqliteStateStore } from './sqlite-store.js';
import { HANDLE, sampleJob } from './store-fixtures.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('SQLite store: private files, folders and job ids', () => {
  let folder: string;
  let file: string;
  let mark: string;
  let umask: number;
  const opened: SqliteStateStore[] = [];
  const open = (options?: Parameters<typeof openSqliteStore>[1]): SqliteStateStore => {
    const store = openSqliteStore(file, options);
    opened.push(store);
    return store;
  };
  /** Stops using a store the way a server stops: close, which folds the WAL back in. */
  const close = (store: SqliteStateStore): void => {
    opened.splice(opened.indexOf(store), 1);
    store.close();
  };

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gpushare-sqlite-private-'));
    file = join(folder, 'gpushare.db');
    mark = join(folder, 'last-job-id');
    umask = process.umask(0o000); // the widest umask: any mode below comes from gpushare, not the umask
  });
  afterEach(() => {
    process.umask(umask);
    for (const store of opened.splice(0)) store.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('creates the database, its -wal and -shm, the job-id mark and backups with mode 0600', async () => {
    const store = open({ jobIdMarkPath: mark });
    store.createTenant('acme', 1);
    store.insertJob(sampleJob('acme'), 2);
    const backup = join(folder, 'backup.db');
    await store.backup(backup);
    expect([file, `${file}-wal`, `${file}-shm`, mark, backup].map(modeOf)).toEqual([0o600, 0o600, 0o600, 0o600, 0o600]);
    // A file that existed keeps its mode (the server tightens it at start, logged).
    close(store);
    writeFileSync(join(folder, 'other.db'), '', { mode: 0o644 });
    openSqliteStore(join(folder, 'other.db')).close();
    expect(modeOf(join(folder, 'other.db'))).toBe(0o644);
  });

  it(
    'migrates a version 3 file to the current version: jobs launched before keep a folder named by their ' +
      'id; others get none',
    () => {
      const v3 = new Database(file);
      for (const script of MIGRATIONS.slice(0, 3)) v3.exec(script);
      v3.pragma('user_version = 3');
      const insert = v3.prepare(`INSERT INTO jobs (name, tenant, state, priority, submitted_at_ms, updated_at_ms,
        command, working_directory, environment, retries, cpu_milli, host_memory_mib, gpu, attempt, process)
        VALUES (?, 'acme', ?, 500, 1, 1, '["/bin/true"]', '/tmp', '{}', 0, 0, 0, '{}', ?, ?)`);
      v3.exec("INSERT INTO tenants (name, created_at_ms) VALUES ('acme', 1)");
      insert.run('done', 'succeeded', 1, null);
      insert.run('running', 'running', 1, JSON.stringify(HANDLE));
      insert.run('launching', 'scheduled', 0, null);
      insert.run('waiting', 'pending', 0, null);
      insert.run('cancelled before it ran', 'cancelled', 0, null);
      insert.run('re-queued after a lost attempt', 'pending', 1, null);
      v3.close();
      const store = open();
      expect(SCHEMA_VERSION).toBe(12);
      expect(store.schemaVersion()).toBe(12);
      expect(store.listJobs().map((j) => [j.id, j.name, j.folder])).toEqual([
        [1, 'done', '1'],
        [2, 'running', '2'],
        [3, 'launching', '3'],
        [4, 'waiting', null],
        [5, 'cancelled before it ran', null],
        [6, 're-queued after a lost attempt', '6'],
      ]);
      expect(store.getJob(2)?.process).toEqual(HANDLE);
      // A folder is one job's own.
      expect(() => store.applyJobChanges([{ jobId: 4, atMs: 2, patch: { folder: '1' } }])).toThrow(StoreConflictError);
      store.applyJobChanges([{ jobId: 4, atMs: 2, patch: { folder: '4-0123456789abcdef' } }]);
      expect(store.getJob(4)?.folder).toBe('4-0123456789abcdef');
    },
  );

  it(
    "migrates a version 6 file's tokens: none expires, is revoked or rotated; the admin tokens the server " +
      'made are marked as its own',
    () => {
      const v6 = new Database(file);
      for (const script of MIGRATIONS.slice(0, 6)) v6.exec(script);
      v6.pragma('user_version = 6');
      v6.exec("INSERT INTO tenants (name, created_at_ms) VALUES ('acme', 1)");
      const insert = v6.prepare(
        'INSERT INTO tokens (digest, role, tenant, label, created_at_ms) VALUES (?, ?, ?, ?, 5)',
      );
      insert.run('a'.repeat(64), 'admin', null, 'admin (created by gpushare serve)');
      insert.run('b'.repeat(64), 'admin', null, 'ci admin');
      insert.run('c'.repeat(64), 'tenant-admin', 'acme', 'admin (created by gpushare serve)');
      v6.close();
      const store = open();
      expect(
        store.listTokens().map((t) => [t.id, t.label, t.createdByServer, t.expiresAtMs, t.revokedAtMs, t.rotatedAtMs]),
      ).toEqual([
        [1, 'admin (created by gpushare serve)', true, null, null, null],
        [2, 'ci admin', false, null, null, null],
        [3, 'admin (created by gpushare serve)', false, null, null, null],
      ]);
    },
  );

  it('migrates a version 9 file to the listing indexes; its jobs list by name pattern and submit time', () => {
    const v9 = new Database(file);
    for (const script of MIGRATIONS.slice(0, 9)) v9.exec(script);
    v9.pragma('user_version = 9');
    v9.close();
    const store = open();
    expect(store.schemaVersion()).toBe(12);
    const indexes = store.database
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual(expect.arrayContaining(['jobs_by_name', 'jobs_by_submitted']));
    store.createTenant('acme', 1);
    for (const [name, at] of [
      ['train-1', 10],
      ['eval-1', 20],
      ['train-2', 30],
    ] as const)
      store.insertJob(sampleJob('acme', { name }), at);
    expect(store.listJobs({ namePattern: 'train-*', submittedSinceMs: 20 }).map((j) => j.name)).toEqual(['train-2']);
    const plan = store.database
      .prepare("EXPLAIN QUERY PLAN SELECT id, name FROM jobs WHERE name GLOB 'train-*' ORDER BY id")
      .all() as { detail: string }[];
    expect(plan.map((row) => row.detail).join(' ')).toContain('jobs_by_name');
  });

  it('never gives out a job id again after an older copy of the database is restored, thanks to the mark', async () => {
    const store = open({ jobIdMarkPath: mark });
    store.createTenant('acme', 1);
    for (let i = 0; i < 3; i++) store.insertJob(sampleJob('acme'), 2);
    const backup = join(folder, 'backup.db');
    await store.backup(backup);
    expect([store.insertJob(sampleJob('acme'), 3).id, store.insertJob(sampleJob('acme'), 3).id]).toEqual([4, 5]);
    expect(readFileSync(mark, 'utf8').trim()).toBe('5');
    expect(store.jobIdsRaised).toBeNull();
    close(store);
    // Restore: the backup in place of the database, without the old -wal and -shm.
    copyFileSync(backup, file);
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    const restored = open({ jobIdMarkPath: mark });
    expect(restored.listJobs().map((j) => j.id)).toEqual([1, 2, 3]);
    expect(restored.jobIdsRaised).toEqual({ from: 3, to: 5 });
    expect(restored.insertJob(sampleJob('acme'), 4).id).toBe(6);
    expect(readFileSync(mark, 'utf8').trim()).toBe('6');
    close(restored);
    // Without the mark, the restored file alone would give id 4 again: the mark is what prevents it.
    copyFileSync(backup, file);
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    expect(open().insertJob(sampleJob('acme'), 5).id).toBe(4);
  });

  it('raises the job-id sequence to a floor (ids seen on disk), also in a store that never had a job', () => {
    const store = open({ jobIdFloor: 41, jobIdMarkPath: mark });
    expect(store.jobIdsRaised).toEqual({ from: 0, to: 41 });
    expect(readFileSync(mark, 'utf8').trim()).toBe('41');
    store.createTenant('acme', 1);
    expect(store.insertJob(sampleJob('acme'), 2).id).toBe(42);
    close(store);
    // A floor at or below the store's last id changes nothing.
    const again = open({ jobIdFloor: 7, jobIdMarkPath: mark });
    expect(again.jobIdsRaised).toBeNull();
    expect(again.insertJob(sampleJob('acme'), 3).id).toBe(43);
  });

  it('refuses a mark file that holds no id, naming the file', () => {
    writeFileSync(mark, 'forty-two\n');
    expect(() => open({ jobIdMarkPath: mark })).toThrow(`job-id mark ${mark} holds "forty-two", not a job id`);
    // The store was closed again: the file can be opened once the mark is fixed.
    writeFileSync(mark, '42\n');
    expect(open({ jobIdMarkPath: mark }).jobIdsRaised).toEqual({ from: 0, to: 42 });
  });
});

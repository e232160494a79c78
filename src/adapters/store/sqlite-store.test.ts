import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_LIMITS, StoreConflictError } from '../../app/ports/state-store.js';
import { MIGRATIONS, SCHEMA_VERSION, StoreSchemaVersionError } from './migrations.js';
import { openSqliteStore, removeBackupLeftovers, type SqliteStateStore } from './sqlite-store.js';
import { describeStateStoreContract } from './store.contract.js';
import { note, sampleJob } from './store-fixtures.js';
import { WAIT_MS } from '../../testing/deadlines.js';

describeStateStoreContract('sqlite', () => {
  const folder = mkdtempSync(join(tmpdir(), 'gpushare-sqlite-contract-'));
  const store = openSqliteStore(join(folder, 'gpushare.db'));
  return {
    store,
    cleanup: () => {
      store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
});

describeStateStoreContract('sqlite :memory:', () => {
  const store = openSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});

describe('openSqliteStore', () => {
  let folder: string;
  let file: string;
  const opened: SqliteStateStore[] = [];
  const open = (path = file, options?: Parameters<typeof openSqliteStore>[1]): SqliteStateStore => {
    const store = openSqliteStore(path, options);
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gpushare-sqlite-'));
    file = join(folder, 'gpushare.db');
  });
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('uses WAL, synchronous NORMAL, foreign keys, and records the schema version', () => {
    const store = open();
    const pragma = (name: string): unknown => store.database.pragma(name, { simple: true });
    expect(pragma('journal_mode')).toBe('wal');
    expect(pragma('synchronous')).toBe(1);
    expect(pragma('foreign_keys')).toBe(1);
    expect(Number(pragma('busy_timeout'))).toBeGreaterThan(0);
    expect(pragma('user_version')).toBe(MIGRATIONS.length);
    expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
  });

  it('keeps everything across close and reopen', () => {
    const store = open();
    store.createTenant('acme', 1);
    store.createToken({ digest: 'f'.repeat(64), role: 'tenant-admin', tenant: 'acme', label: 'ci', createdAtMs: 2 });
    const job = store.insertJob(sampleJob('acme'), 3);
    store.applyJobChanges([
      { jobId: job.id, atMs: 4, to: 'scheduled', startAttempt: 1, reason: note('placed'), patch: { attempt: 1 } },
    ]);
    store.setGpuCordoned('GPU-1', true, 5);
    const before = {
      tenants: store.listTenants(),
      token: store.findTokenByDigest('f'.repeat(64)),
      jobs: store.listJobs(),
      events: store.listEvents(job.id),
      attempts: store.listAttempts(job.id),
      cordons: store.listCordonedGpus(),
    };
    store.close();
    const again = open();
    expect({
      tenants: again.listTenants(),
      token: again.findTokenByDigest('f'.repeat(64)),
      jobs: again.listJobs(),
      events: again.listEvents(job.id),
      attempts: again.listAttempts(job.id),
      cordons: again.listCordonedGpus(),
    }).toEqual(before);
    expect(again.insertJob(sampleJob('acme'), 6).id).toBeGreaterThan(job.id);
  });

  it('never reuses a job id, even of a deleted row', () => {
    const store = open();
    store.createTenant('acme', 1);
    const ids = [1, 2, 3].map((i) => store.insertJob(sampleJob('acme'), i).id);
    store.database.exec(`DELETE FROM job_events WHERE job_id = ${ids[2]}; DELETE FROM jobs WHERE id = ${ids[2]}`);
    expect(store.insertJob(sampleJob('acme'), 4).id).toBeGreaterThan(ids[2] ?? 0);
  });

  it('sees what another connection commits, through its cache of active jobs', () => {
    const a = open();
    a.createTenant('acme', 1);
    const ids = Array.from({ length: 300 }, (_, i) => a.insertJob(sampleJob('acme'), i).id);
    const reader = open(file, { readonly: true });
    expect(reader.listJobs({ states: ['pending'] })).toHaveLength(300); // cold: one bulk read
    expect(reader.listJobs({ states: ['pending'] })).toHaveLength(300); // warm: from the cache
    const first = ids[0] ?? 0;
    expect(reader.getJob(first)?.state).toBe('pending');
    const b = open();
    b.applyJobChanges(
      ids
        .filter((_, i) => i % 2 === 0)
        .map((jobId) => ({ jobId, atMs: 1000, to: 'cancelled' as const, reason: note('by b') })),
    );
    b.applyJobChanges([{ jobId: ids[1] ?? 0, atMs: 1001, to: 'scheduled', patch: { attempt: 1 } }]);
    expect(reader.getJob(first)).toMatchObject({ state: 'cancelled', reason: note('by b') });
    expect(reader.listJobs({ states: ['pending'] })).toHaveLength(149);
    expect(a.listJobs({ states: ['scheduled'] })).toEqual([b.getJob(ids[1] ?? 0)]);
    expect(a.listJobs()).toEqual(b.listJobs());
  });

  it('opens read-only: reads work, writes throw, a missing file is an error', () => {
    const writer = open();
    writer.createTenant('acme', 1);
    const reader = open(file, { readonly: true });
    expect(reader.listTenants()).toEqual([
      {
        name: 'acme',
        createdAtMs: 1,
        guaranteedGpuEquivalents: 0,
        limitGpuEquivalents: null,
        ...DEFAULT_TENANT_LIMITS,
      },
    ]);
    expect(() => reader.setTenantQuota('acme', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: null })).toThrow(
      /readonly/i,
    );
    expect(() => reader.createTenant('beta', 2)).toThrow(/readonly/i);
    expect(() => openSqliteStore(join(folder, 'missing.db'), { readonly: true })).toThrow(/missing\.db/);
  });

  it('names the file when it is not a database or needs a migration it may not run', () => {
    const garbage = join(folder, 'garbage.db');
    writeFileSync(garbage, 'this is not a SQLite database, just some text that is long enough '.repeat(20));
    expect(() => openSqliteStore(garbage)).toThrow(`cannot open state store ${garbage}`);
    const empty = join(folder, 'empty.db');
    new Database(empty).close();
    expect(() => openSqliteStore(empty, { readonly: true })).toThrow(StoreSchemaVersionError);
    expect(() => openSqliteStore(empty, { readonly: true })).toThrow('open it read-write once to migrate it');
  });

  it(
    'migrates a version 1 file: tenants get guarantee 0 and no limit, jobs of priority high or above are ' +
      'not preemptible',
    () => {
      const v1 = new Database(file);
      v1.exec(MIGRATIONS[0] ?? '');
      v1.pragma('user_version = 1');
      v1.exec(`
      INSERT INTO tenants (name, created_at_ms) VALUES ('acme', 1);
      INSERT INTO jobs (name, tenant, state, reason, priority, submitted_at_ms, updated_at_ms, command,
        working_directory, environment, time_limit_seconds, retries, cpu_milli, host_memory_mib, gpu, attempt)
        VALUES ('old', 'acme', 'pending', NULL, 900, 2, 3, '["/bin/true"]', '/tmp', '{"A":"b"}', NULL, 1, 500, 1024,
          '{"gpuCount":1,"gpuMilli":1000,"gpuMemoryMiB":null,"mode":"exclusive"}', 0);
      INSERT INTO job_events (job_id, at_ms, from_state, to_state, reason) VALUES (1, 2, NULL, 'pending', NULL);
    `);
      v1.close();
      const store = open();
      expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
      expect(store.listTenants()).toEqual([
        {
          name: 'acme',
          createdAtMs: 1,
          guaranteedGpuEquivalents: 0,
          limitGpuEquivalents: null,
          ...DEFAULT_TENANT_LIMITS,
          maxPriorityClass: 'high',
        },
      ]);
      // Tenants that existed before priority caps get `high`, reported once (for the server's log).
      expect(store.tenantsGivenHighCap).toEqual(['acme']);
      expect(store.createTenant('newer', 2).maxPriorityClass).toBe('normal');
      expect(store.listJobs({ states: ['pending', 'preempted'] })).toEqual([
        {
          id: 1,
          name: 'old',
          tenant: 'acme',
          command: ['/bin/true'],
          workingDirectory: '/tmp',
          environment: { A: 'b' },
          priority: 900,
          timeLimitSeconds: null,
          retries: 1,
          preemptible: false,
          cpuMilli: 500,
          hostMemoryMiB: 1024,
          gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' },
          state: 'pending',
          reason: null,
          submittedAtMs: 2,
          updatedAtMs: 3,
          placement: null,
          attempt: 0,
          process: null,
          folder: null,
          startedAtMs: null,
          endedAtMs: null,
          exitCode: null,
          signal: null,
          qos: null,
          reportTokenDigest: null,
          submittedByTokenId: null,
        },
      ]);
      expect(store.listEvents(1)).toEqual([{ jobId: 1, atMs: 2, fromState: null, toState: 'pending', reason: null }]);
      // The new columns are writable after the migration, and survive a reopen.
      store.setTenantQuota('acme', { guaranteedGpuEquivalents: 1.5, limitGpuEquivalents: 2 });
      const fresh = store.insertJob(sampleJob('acme', { preemptible: false }), 4);
      store.close();
      const again = open();
      expect(again.schemaVersion()).toBe(SCHEMA_VERSION);
      expect(again.getTenant('acme')).toMatchObject({
        guaranteedGpuEquivalents: 1.5,
        limitGpuEquivalents: 2,
        maxPriorityClass: 'high',
      });
      expect(again.tenantsGivenHighCap).toEqual([]);
      expect(again.listJobs().map((j) => [j.id, j.preemptible])).toEqual([
        [1, false],
        [fresh.id, false],
      ]);
    },
  );

  it('migrates a version 2 file: jobs get no QoS targets and no report token; both are writable after', () => {
    const v2 = new Database(file);
    v2.exec(MIGRATIONS[0] ?? '');
    v2.exec(MIGRATIONS[1] ?? '');
    v2.pragma('user_version = 2');
    v2.exec(`
      INSERT INTO tenants (name, created_at_ms) VALUES ('acme', 1);
      INSERT INTO jobs (name, tenant, state, reason, priority, submitted_at_ms, updated_at_ms, command,
        working_directory, environment, time_limit_seconds, retries, cpu_milli, host_memory_mib, gpu, attempt,
        preemptible)
        VALUES ('old', 'acme', 'pending', NULL, 500, 2, 3, '["/bin/true"]', '/tmp', '{}', NULL, 0, 0, 0,
          '{"gpuCount":1,"gpuMilli":500,"gpuMemoryMiB":null,"mode":"mps"}', 0, 1);
    `);
    v2.close();
    const store = open();
    expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(store.getJob(1)).toMatchObject({
      id: 1,
      name: 'old',
      preemptible: true,
      qos: null,
      reportTokenDigest: null,
    });
    const fresh = store.insertJob(sampleJob('acme', { qos: { latencySeconds: 0.2 } }), 4);
    store.applyJobChanges([{ jobId: 1, atMs: 5, patch: { reportTokenDigest: 'f'.repeat(64) } }]);
    expect(store.database.prepare('SELECT id, qos, report_token_digest AS d FROM jobs ORDER BY id').all()).toEqual([
      { id: 1, qos: null, d: 'f'.repeat(64) },
      { id: fresh.id, qos: '{"latencySeconds":0.2}', d: null },
    ]);
    // Two jobs can never hold the same report token digest.
    expect(() =>
      store.applyJobChanges([{ jobId: fresh.id, atMs: 6, patch: { reportTokenDigest: 'f'.repeat(64) } }]),
    ).toThrow(StoreConflictError);
  });

  it('stores preemptible as 0/1 and quotas as REAL columns (NULL = no limit)', () => {
    const store = open();
    store.createTenant('acme', 1);
    store.createTenant('beta', 1);
    store.setTenantQuota('acme', { guaranteedGpuEquivalents: 2, limitGpuEquivalents: 3.5 });
    store.insertJob(sampleJob('acme', { preemptible: true }), 2);
    store.insertJob(sampleJob('acme', { preemptible: false }), 3);
    expect(store.database.prepare('SELECT preemptible FROM jobs ORDER BY id').pluck().all()).toEqual([1, 0]);
    expect(
      store.database
        .prepare(
          'SELECT name, guaranteed_gpu_equivalents AS g, limit_gpu_equivalents AS l, ' +
            'typeof(guaranteed_gpu_equivalents) AS t FROM tenants ORDER BY name',
        )
        .all(),
    ).toEqual([
      { name: 'acme', g: 2, l: 3.5, t: 'real' },
      { name: 'beta', g: 0, l: null, t: 'real' },
    ]);
  });

  it('refuses a file written by a newer schema version, naming the file and both versions', () => {
    open().close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 3}`);
    raw.close();
    const attempt = (): unknown => openSqliteStore(file);
    expect(attempt).toThrow(StoreSchemaVersionError);
    expect(attempt).toThrow(file);
    expect(attempt).toThrow(`schema version ${SCHEMA_VERSION + 3}, this gpushare supports version ${SCHEMA_VERSION}`);
  });

  it('rejects a backup into a missing folder and leaves the store usable', async () => {
    const store = open();
    await expect(store.backup(join(folder, 'no-such-folder', 'copy.db'))).rejects.toThrow();
    expect(readdirSync(folder).filter((name) => name.includes('.tmp-'))).toEqual([]);
    store.createTenant('acme', 1);
  });

  it('maps a constraint violation that bypassed the explicit checks to StoreConflictError', () => {
    const store = open();
    store.database.exec(
      "CREATE TRIGGER no_cordons BEFORE INSERT ON gpu_cordons BEGIN SELECT RAISE(ABORT, 'cordons are frozen'); END",
    );
    expect(() => store.setGpuCordoned('GPU-1', true, 1)).toThrow(StoreConflictError);
    expect(() => store.setGpuCordoned('GPU-1', true, 1)).toThrow('cordons are frozen');
  });

  it('backs up a consistent copy while another connection writes', async () => {
    const store = open();
    store.createTenant('acme', 1);
    const padding = { PAD: 'x'.repeat(2000) };
    for (let i = 0; i < 2000; i += 1) store.insertJob(sampleJob('acme', { environment: padding }), i);
    const writer = open();
    let backupDone = false;
    let writtenDuringBackup = 0;
    const writeOne = (): void => {
      if (backupDone || writtenDuringBackup >= 200) return;
      writer.insertJob(sampleJob('acme', { name: `during-${writtenDuringBackup}` }), 10_000);
      writtenDuringBackup += 1;
      setImmediate(writeOne);
    };
    setImmediate(writeOne);
    const copyFile = join(folder, 'copy.db');
    await store.backup(copyFile);
    backupDone = true;
    expect(writtenDuringBackup).toBeGreaterThan(0);
    expect(readdirSync(folder).filter((name) => name.includes('.tmp-') || name.includes('.backup-staging-'))).toEqual(
      [],
    );
    const copy = open(copyFile, { readonly: true });
    expect(copy.database.pragma('integrity_check', { simple: true })).toBe('ok');
    const jobs = copy.listJobs();
    expect(jobs.length).toBeGreaterThanOrEqual(2000);
    expect(jobs.slice(0, 2000).every((j) => j.environment.PAD === padding.PAD)).toBe(true);
    for (const job of jobs) expect(copy.listEvents(job.id)).toHaveLength(1);
  });

  it('removes the staging copies a crash left in the middle of a backup, and nothing else', () => {
    writeFileSync(join(folder, '.backup-staging-4242-0a1b2c3d'), 'half a copy');
    writeFileSync(join(folder, 'notes.backup-staging-'), 'kept');
    expect(removeBackupLeftovers(folder)).toEqual(['.backup-staging-4242-0a1b2c3d']);
    expect(readdirSync(folder).sort()).toEqual(['notes.backup-staging-']);
  });

  it('leaves nothing of a transaction whose process was killed before COMMIT', () => {
    const store = open();
    store.createTenant('acme', 1);
    store.insertJob(sampleJob('acme', { name: 'before' }), 2);
    store.close();
    const script = join(folder, 'crash.mjs');
    writeFileSync(script, CRASH_SCRIPT);
    const driverUrl = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const child = spawnSync(process.execPath, [script, driverUrl, file], { encoding: 'utf8', timeout: WAIT_MS });
    expect(child.signal).toBe('SIGKILL');
    const report = JSON.parse(child.stdout.trim()) as {
      walBytesBefore: number;
      walBytesAtKill: number;
      rowsInTransaction: number;
    };
    expect(report.rowsInTransaction).toBe(3000);
    // The uncommitted transaction spilled pages into the WAL before the kill: recovery must ignore them.
    expect(report.walBytesAtKill).toBeGreaterThan(report.walBytesBefore);
    expect(existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 0).toBe(true);
    const reopened = open();
    expect(reopened.listJobs().map((j) => j.name)).toEqual(['before', 'committed-by-child']);
    expect(reopened.database.prepare("SELECT count(*) FROM jobs WHERE name LIKE 'crash-%'").pluck().get()).toBe(0);
    expect(reopened.database.prepare('SELECT count(*) FROM job_events').pluck().get()).toBe(2);
    expect(reopened.database.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

/** Child process: commits one job, then dies by SIGKILL in the middle of a big transaction. */
const CRASH_SCRIPT = `
import { statSync, writeSync } from 'node:fs';
const [driverUrl, file] = process.argv.slice(2);
const { default: Database } = await import(driverUrl);
const db = new Database(file);
db.pragma('cache_size = 8'); // a tiny page cache makes the open transaction spill pages into the WAL
const insertJob = db.prepare(\`INSERT INTO jobs (name, tenant, state, priority, submitted_at_ms, updated_at_ms, command,
  working_directory, environment, retries, cpu_milli, host_memory_mib, gpu, attempt)
  VALUES (?, 'acme', 'pending', 500, 1, 1, '[]', '/', ?, 0, 0, 0, '{}', 0)\`);
const insertEvent = db.prepare("INSERT INTO job_events (job_id, at_ms, to_state) VALUES (?, 1, 'pending')");
const walBytes = () => statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;
db.transaction(() => insertEvent.run(insertJob.run('committed-by-child', '{}').lastInsertRowid))();
const walBytesBefore = walBytes();
db.exec('BEGIN IMMEDIATE');
let rowsInTransaction = 0;
for (let i = 0; i < 3000; i += 1) {
  insertEvent.run(insertJob.run('crash-' + i, JSON.stringify({ PAD: 'y'.repeat(500) })).lastInsertRowid);
  rowsInTransaction += 1;
}
writeSync(1, JSON.stringify({ walBytesBefore, walBytesAtKill: walBytes(), rowsInTransaction }) + '\\n');
process.kill(process.pid, 'SIGKILL');
`;

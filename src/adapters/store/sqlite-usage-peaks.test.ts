/**
 * Schema version 12 (job usage peaks): a version 11 file migrates and keeps its jobs, attempts and
 * events; its jobs have no peak until one is raised, and raised peaks survive a reopen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { openSqliteStore } from './sqlite-store.js';

describe('SQLite store: schema version 12, job usage peaks', () => {
  let folder: string;
  let file: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gpushare-sqlite-peaks-'));
    file = join(folder, 'gpushare.db');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('migrates a version 11 file, keeping its rows; peaks are writable after and survive a reopen', () => {
    const v11 = new Database(file);
    for (const script of MIGRATIONS.slice(0, 11)) v11.exec(script);
    v11.pragma('user_version = 11');
    v11.exec("INSERT INTO tenants (name, created_at_ms) VALUES ('acme', 1)");
    v11
      .prepare(
        `INSERT INTO jobs (name, tenant, state, priority, submitted_at_ms, updated_at_ms, command,
        working_directory, environment, retries, cpu_milli, host_memory_mib, gpu, attempt, started_at_ms, ended_at_ms,
        exit_code) VALUES (?, 'acme', 'succeeded', 500, 1000, 9000, '["/bin/true"]', '/tmp', '{}', 0, 2000, 4096,
        '{"gpuCount":1,"gpuMilli":500,"gpuMemoryMiB":null,"mode":"mps"}', 1, 2000, 9000, 0)`,
      )
      .run('done');
    v11
      .prepare(
        'INSERT INTO job_attempts (job_id, attempt, started_at_ms, ended_at_ms, exit_code, end_reason_code) ' +
          "VALUES (1, 1, 2000, 9000, 0, 'exited')",
      )
      .run();
    v11.close();

    const store = openSqliteStore(file);
    expect(SCHEMA_VERSION).toBe(12);
    expect(store.schemaVersion()).toBe(12);
    expect(store.listJobs().map((j) => [j.id, j.name, j.state, j.cpuMilli, j.gpu.gpuMilli, j.endedAtMs])).toEqual([
      [1, 'done', 'succeeded', 2000, 500, 9000],
    ]);
    expect(store.listAttempts(1).map((a) => [a.attempt, a.startedAtMs, a.endedAtMs, a.exitCode])).toEqual([
      [1, 2000, 9000, 0],
    ]);
    expect(store.getUsagePeak(1)).toBeNull();
    store.raiseUsagePeaks([{ jobId: 1, gpuMemoryMiB: 30_000, gpuUtilizationPct: 64.5 }], 10_000);
    store.close();

    const again = openSqliteStore(file);
    expect(again.getUsagePeak(1)).toEqual({
      jobId: 1,
      gpuMemoryMiB: 30_000,
      gpuUtilizationPct: 64.5,
      updatedAtMs: 10_000,
    });
    again.close();
  });
});

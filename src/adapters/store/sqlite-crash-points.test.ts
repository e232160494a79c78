/**
 * The store's crash points (app/ports/crash-points.ts, docs/crash-testing.md): every write method
 * reaches `store.commit` before and after its COMMIT, named by the method; a crash before the
 * COMMIT stores nothing of the write; the job-id mark is written before it, so it is never behind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../../app/ports/crash-points.js';
import { createSqliteAuditLog } from './sqlite-audit-log.js';
import { openSqliteStore, type SqliteStateStore } from './sqlite-store.js';
import { note, sampleJob } from './store-fixtures.js';

const dirs: string[] = [];
const stores: SqliteStateStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store on a fresh folder whose crash points are recorded, and throw at `crashAt` (a name, once). */
function open(crashAt: string | null = null): { store: SqliteStateStore; reached: string[]; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-crash-points-'));
  dirs.push(dir);
  const reached: string[] = [];
  const store = openSqliteStore(join(dir, 'gpushare.db'), {
    jobIdMarkPath: join(dir, 'last-job-id'),
    crashPoints: {
      reach: (point: CrashPoint) => {
        const name = `${point.site}.${point.phase} ${point.detail}`;
        reached.push(name);
        if (name === crashAt) throw new Error(`crash at ${name}`);
      },
    },
  });
  stores.push(store);
  return { store, reached, dir };
}

describe('SQLite store: crash points', () => {
  it('every write method reaches store.commit before and after its COMMIT, named by the method', () => {
    const { store, reached } = open();
    reached.length = 0;
    const t = 1_000;
    store.createTenant('team', t);
    store.setTenantLimits('team', {
      maxPriorityClass: 'high',
      requestsPerSecond: null,
      requestBurst: null,
      eventStreamsPerToken: null,
    });
    store.setTenantQuota('team', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: null });
    const job = store.insertJob(sampleJob('team'), t);
    store.applyJobChanges([{ jobId: job.id, atMs: t, expectState: 'pending', to: 'cancelled' }]);
    store.addJobEvent(job.id, t, note('a note'));
    store.setGpuCordoned('GPU-1', true, t);
    const token = store.createToken({
      digest: 'a'.repeat(64),
      role: 'member',
      tenant: 'team',
      label: '',
      createdAtMs: t,
    });
    store.rotateToken(token.id, 'b'.repeat(64), t);
    store.revokeToken(token.id, t);
    store.raiseUsagePeaks([{ jobId: job.id, gpuMemoryMiB: 1024, gpuUtilizationPct: null }], t);
    const methods = [
      'createTenant',
      'setTenantLimits',
      'setTenantQuota',
      'insertJob',
      'applyJobChanges',
      'addJobEvent',
      'setGpuCordoned',
      'createToken',
      'rotateToken',
      'revokeToken',
      'raiseUsagePeaks',
    ];
    expect(reached).toEqual(
      methods.flatMap((m) => [
        ...(m === 'insertJob' ? ['job-id-mark.write.before job 1', 'job-id-mark.write.after job 1'] : []),
        `store.commit.before ${m}`,
        `store.commit.after ${m}`,
      ]),
    );
  });

  it('a crash before the COMMIT of a job insert stores nothing, and the mark is one id ahead', () => {
    const { store, dir } = open('store.commit.before insertJob');
    store.createTenant('team', 1);
    expect(() => store.insertJob(sampleJob('team'), 2)).toThrow('crash at store.commit.before insertJob');
    expect(store.listJobs({})).toEqual([]);
    expect(readFileSync(join(dir, 'last-job-id'), 'utf8').trim()).toBe('1');
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const reopened = openSqliteStore(join(dir, 'gpushare.db'), { jobIdMarkPath: join(dir, 'last-job-id') });
    stores.push(reopened);
    expect(reopened.insertJob(sampleJob('team'), 3).id).toBe(2);
  });

  it('a crash after the COMMIT keeps the write', () => {
    const { store } = open('store.commit.after createTenant');
    expect(() => store.createTenant('team', 1)).toThrow('crash at store.commit.after createTenant');
    expect(store.getTenant('team')?.name).toBe('team');
  });

  it('an audit append reaches audit.commit before and after; a crash before stores no entry', () => {
    const { store } = open();
    const reached: string[] = [];
    const log = createSqliteAuditLog(store.database, {
      crashPoints: { reach: (p) => void reached.push(`${p.site}.${p.phase} ${p.detail}`) },
    });
    const entry = {
      atMs: 1,
      actor: 'admin',
      role: 'admin',
      tenant: null,
      action: 'job.submit',
      target: 'job 1',
      summary: {},
      outcome: { result: 'ok', httpStatus: 201, message: null },
    } as const;
    log.append(entry);
    expect(reached).toEqual(['audit.commit.before job.submit', 'audit.commit.after job.submit']);
    const crashing = createSqliteAuditLog(store.database, {
      crashPoints: {
        reach: (p) => {
          if (p.phase === 'before') throw new Error('crash');
        },
      },
    });
    expect(() => crashing.append(entry)).toThrow('crash');
    expect(log.list({ limit: 10 }).map((e) => e.seq)).toEqual([1]);
  });
});

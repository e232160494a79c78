/**
 * What a start makes of a data directory (private-files.ts), on real files: modes whatever the
 * umask, job ids above every folder on disk, unknown job folders quarantined, handles rebased.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANDLE, sampleJob } from '../adapters/store/store-fixtures.js';
import { openDataDirStore, openJobFoldersToTenants } from './private-files.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;
const FOLDER_1 = '1-00112233445566aa';
const FOLDER_2 = '2-00112233445566bb';

describe('openDataDirStore', () => {
  let dir: string;
  let umask: number;
  const logged: { level: string; msg: string }[] = [];
  const logger = {
    info: (_: object, msg?: string) => logged.push({ level: 'info', msg: msg ?? '' }),
    warn: (_: object, msg?: string) => logged.push({ level: 'warn', msg: msg ?? '' }),
    error: (_: object, msg?: string) => logged.push({ level: 'error', msg: msg ?? '' }),
  };
  const folder = (...names: string[]): string => {
    const path = join(dir, ...names);
    mkdirSync(path, { recursive: true, mode: 0o755 });
    chmodSync(path, 0o755);
    return path;
  };

  beforeEach(() => {
    umask = process.umask(0o000);
    dir = mkdtempSync(join(tmpdir(), 'gpushare-private-'));
    logged.length = 0;
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it("makes a new data directory's store files 0600 and logs nothing", () => {
    chmodSync(dir, 0o700);
    folder('jobs');
    chmodSync(join(dir, 'jobs'), 0o700);
    const store = openDataDirStore(dir, logger, 0);
    store.createTenant('acme', 1);
    store.insertJob(sampleJob('acme'), 2);
    expect(
      ['gpushare.db', 'gpushare.db-wal', 'gpushare.db-shm', 'last-job-id'].map((f) => modeOf(join(dir, f))),
    ).toEqual([0o600, 0o600, 0o600, 0o600]);
    store.close();
    expect(logged).toEqual([]);
  });

  it('tightens what an older release left world-readable, and says which', () => {
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'admin-token'), 'gs_secret\n', { mode: 0o644 });
    const store = openDataDirStore(dir, logger, 0); // makes gpushare.db 0600 itself
    store.close();
    chmodSync(join(dir, 'gpushare.db'), 0o644);
    folder('jobs', '1');
    logged.length = 0;
    openDataDirStore(dir, logger, 0).close();
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'admin-token'))).toBe(0o600);
    expect(modeOf(join(dir, 'gpushare.db'))).toBe(0o600);
    expect(modeOf(join(dir, 'jobs'))).toBe(0o700);
    expect(logged[0]).toEqual({
      level: 'warn',
      msg:
        `data directory: made private to this user: ${join(dir, 'gpushare.db')} (0644 → 0600), ` +
        `${join(dir, 'jobs')} (0755 → 0700), ${join(dir, 'jobs', '1')} (0755 → 0700)`,
    });
  });

  it('opens the data directory and job folders to passing (0711) for user namespaces; files stay private', () => {
    chmodSync(dir, 0o700);
    folder('jobs', '3-00000000000000aa', 'work');
    chmodSync(join(dir, 'jobs'), 0o700);
    chmodSync(join(dir, 'jobs', '3-00000000000000aa'), 0o700);
    chmodSync(join(dir, 'jobs', '3-00000000000000aa', 'work'), 0o700);
    folder('tls');
    chmodSync(join(dir, 'tls'), 0o700);
    writeFileSync(join(dir, 'admin-token'), 'gs_secret\n', { mode: 0o600 });
    writeFileSync(join(dir, 'tenant-uids.json'), '{}', { mode: 0o644 });
    writeFileSync(join(dir, 'jobs', '3-00000000000000aa', 'attempt-1.stdout.log'), 'out\n', { mode: 0o644 });
    writeFileSync(join(dir, 'jobs', '3-00000000000000aa', 'attempt-1.pid'), '{}', { mode: 0o640 });
    const changed = openJobFoldersToTenants(dir);
    expect(changed.map((c) => c.slice(dir.length))).toEqual(
      [
        ' (0700 → 0711)',
        '/tenant-uids.json (0644 → 0600)',
        '/jobs (0700 → 0711)',
        '/jobs/3-00000000000000aa (0700 → 0711)',
        '/jobs/3-00000000000000aa/attempt-1.pid (0640 → 0600)',
        '/jobs/3-00000000000000aa/attempt-1.stdout.log (0644 → 0600)',
      ].sort((a, b) => (a.startsWith(' ') ? -1 : b.startsWith(' ') ? 1 : 0)),
    );
    // The folders a job owns and the other private folders keep their modes; a second call changes nothing.
    expect([modeOf(join(dir, 'tls')), modeOf(join(dir, 'jobs', '3-00000000000000aa', 'work'))]).toEqual([0o700, 0o700]);
    expect(openJobFoldersToTenants(dir)).toEqual([]);
    // A later start keeps 0711 where a sandbox set it (nothing tightened, nothing logged; the folder the
    // store does not know goes to quarantine, 0700).
    openDataDirStore(dir, logger, 0).close();
    expect([modeOf(dir), modeOf(join(dir, 'jobs'))]).toEqual([0o711, 0o711]);
    expect(logged.filter((l) => l.msg.includes('made private'))).toEqual([]);
  });

  it('quarantines job folders the store does not know, continues ids above them, and keeps the known ones', () => {
    const first = openDataDirStore(dir, logger, 0);
    first.createTenant('acme', 1);
    const job = first.insertJob(sampleJob('acme'), 2);
    first.applyJobChanges([{ jobId: job.id, atMs: 3, to: 'scheduled', patch: { folder: FOLDER_1 } }]);
    first.close();
    rmSync(join(dir, 'last-job-id')); // only the folders tell that ids up to 7 were given out
    folder('jobs', FOLDER_1, 'checkpoint');
    folder('jobs', FOLDER_2);
    folder('jobs', '7');
    writeFileSync(join(dir, 'jobs', 'notes.txt'), 'not a job folder');
    logged.length = 0;
    const store = openDataDirStore(dir, logger, Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    const quarantine = join(dir, 'quarantine', '2030-01-02T03-04-05.678Z');
    expect(readdirSync(join(dir, 'jobs'))).toEqual([FOLDER_1]);
    expect(readdirSync(quarantine).sort()).toEqual([FOLDER_2, '7', 'notes.txt']);
    expect([modeOf(join(dir, 'quarantine')), modeOf(quarantine)]).toEqual([0o700, 0o700]);
    expect(logged.map((l) => l.msg)).toEqual([
      `data directory: made private to this user: ${join(dir, 'jobs')} (0755 → 0700), ` +
        `${join(dir, 'jobs', FOLDER_1)} (0755 → 0700), ${join(dir, 'jobs', FOLDER_2)} (0755 → 0700), ` +
        `${join(dir, 'jobs', '7')} (0755 → 0700)`,
      'job ids continue above 7: ids up to 7 were given out before, the store only knew up to 1 (a ' +
        'restored backup); an id is never reused',
      `moved 3 job folder(s) the store does not know (a restored backup?) to ${quarantine}: ${FOLDER_2}, 7, notes.txt`,
    ]);
    expect(store.insertJob(sampleJob('acme'), 4).id).toBe(8);
    store.close();
    // Quarantined folders still count: a later start never goes below them.
    rmSync(join(dir, 'last-job-id'));
    const again = openDataDirStore(dir, logger, 0);
    expect(again.jobIdsRaised).toBeNull();
    expect(again.insertJob(sampleJob('acme'), 5).id).toBe(9);
    again.close();
  });

  it('points process handles into their job folder in this data directory (a data directory copied elsewhere)', () => {
    const first = openDataDirStore(dir, logger, 0);
    first.createTenant('acme', 1);
    const job = first.insertJob(sampleJob('acme'), 2);
    first.applyJobChanges([
      { jobId: job.id, atMs: 3, to: 'scheduled', patch: { folder: '1' } },
      { jobId: job.id, atMs: 4, to: 'running', startAttempt: 1, patch: { attempt: 1, process: HANDLE } },
    ]);
    first.close();
    folder('jobs', '1');
    const store = openDataDirStore(dir, logger, 5);
    expect(store.getJob(job.id)?.process).toEqual({
      ...HANDLE,
      stdoutPath: join(dir, 'jobs', '1', 'attempt-1.stdout.log'),
      stderrPath: join(dir, 'jobs', '1', 'attempt-1.stderr.log'),
      pidPath: join(dir, 'jobs', '1', 'attempt-1.pid'),
      outcomePath: join(dir, 'jobs', '1', 'attempt-1.outcome.json'),
    });
    expect(logged.at(-1)).toEqual({
      level: 'info',
      msg: 'process handles now point into their job folders in this data directory',
    });
    expect(existsSync(join(dir, 'quarantine'))).toBe(false);
    store.close();
  });
});

/**
 * End-to-end: a tenant's files and the server's secrets stay private (docs/store.md).
 * - A data directory of the previous release (schema version 3, folders `jobs/<id>/`,
 *   test/fixtures/data-dir-v3) keeps working when copied elsewhere: logs, the outcome of the job
 *   that ran while the server was down, the old tokens; new jobs get new ids and new folders.
 * - After a backup is restored, nothing of the jobs the backup does not know reaches a new job:
 *   its id is new, its folder is new, its logs are its own; the old folders are quarantined.
 */
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  jobFolder,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'data-dir-v3');
const modeOf = (path: string): number => statSync(path).mode & 0o777;
const NEW_FOLDER = /^\d+-[0-9a-f]{16}$/;

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** Restarts `server` on its data dir (same config home), keeping the handle. */
async function restart(handle: ServeHandle, simulateGpus: string, extraArgs: string[] = []): Promise<void> {
  const restarted = await startServe({
    simulateGpus,
    dataDir: handle.dataDir,
    configHome: handle.configHome,
    extraArgs,
  });
  Object.assign(handle, {
    process: restarted.process,
    url: restarted.url,
    adminToken: restarted.adminToken,
    caCert: restarted.caCert,
    stderr: restarted.stderr,
  });
  restarted.process.stderr!.on('data', (d: Buffer) => (handle.stderr += d.toString()));
}

describe('gpushare serve: private files', () => {
  it(
    'takes over a data directory of the previous release copied elsewhere: logs, outcomes, tokens, ' +
      'new ids and folders',
    async () => {
      // Copy the fixture where the previous release never was; its modes as that release left them.
      server = await startServe({ simulateGpus: '1xT4' });
      await stopServe(server);
      const data = join(server.dataDir, 'data');
      rmSync(data, { recursive: true, force: true });
      cpSync(join(FIXTURE, 'data'), data, { recursive: true });
      chmodSync(data, 0o755);
      chmodSync(join(data, 'gpushare.db'), 0o644);
      for (const id of ['1', '2']) chmodSync(join(data, 'jobs', id), 0o755);
      const tenantToken = readFileSync(join(FIXTURE, 'tenant-token'), 'utf8').trim();
      const adminToken = readFileSync(join(data, 'admin-token'), 'utf8').trim();
      await restart(server, '1xT4');
      expect(server.adminToken).toBe(adminToken);

      // Job 1 ended before: its logs are read from its folder `jobs/1/`, by its tenant and the admin.
      const asTenant = ['--token', tenantToken];
      expect(cli(server, ['logs', '1', ...asTenant]).stdout).toBe('hello from job 1 of team-a\n');
      expect((await api(server, 'GET', '/api/v1/jobs/1/logs?stream=stderr')).body.text).toBe('job 1 warning\n');
      // Job 2 ran while the server was down and exited 5: its outcome is collected from its folder.
      const two = await waitForJob(server, 2, (j) => j.state === 'failed');
      expect([two.exitCode, two.reason, two.attempts.length]).toEqual([5, 'exit code 5', 1]);
      expect(cli(server, ['logs', '2', ...asTenant]).stdout).toBe('job 2 started\njob 2 released\n');
      // Job 3 waited: it runs now, in a new-style folder.
      const three = await waitForJob(server, 3, (j) => j.state === 'succeeded');
      expect(three.exitCode).toBe(0);
      expect(cli(server, ['logs', '3', ...asTenant]).stdout).toBe('job 3 ran\n');
      expect(jobFolder(server, 3)).toMatch(new RegExp(`/jobs/3-[0-9a-f]{16}$`));
      // The tenant's old token still works; a new job gets the next id and a new folder.
      const submitted = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob('echo four', { gpuMilli: 500 }),
        tenantToken,
      );
      expect([submitted.status, submitted.body.id, submitted.body.tenant]).toEqual([201, 4, 'team-a']);
      await waitForJob(server, 4, (j) => j.state === 'succeeded');
      expect(cli(server, ['logs', '4', ...asTenant]).stdout).toBe('four\n');
      expect(
        readdirSync(join(data, 'jobs'))
          .sort()
          .map((name) => (NEW_FOLDER.test(name) ? `${name.split('-')[0]}-<random>` : name)),
      ).toEqual(['1', '2', '3-<random>', '4-<random>']);
      expect(
        (await api(server, 'GET', '/api/v1/jobs?all=true', undefined, tenantToken)).body.jobs.map(
          (j: { id: number }) => j.id,
        ),
      ).toEqual([1, 2, 3, 4]);
      // Private from now on, and said so.
      expect([
        modeOf(data),
        modeOf(join(data, 'jobs', '1')),
        modeOf(join(data, 'gpushare.db')),
        modeOf(join(data, 'admin-token')),
        modeOf(join(data, 'last-job-id')),
      ]).toEqual([0o700, 0o700, 0o600, 0o600, 0o600]);
      expect(server.stderr).toContain(`${join(data, 'gpushare.db')} (0644 → 0600)`);
      expect(existsSync(join(data, 'quarantine'))).toBe(false);
    },
  );

  it(
    "after a backup is restored, a new tenant's job gets a new id and folder and sees only its own " + 'output',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      const data = join(server.dataDir, 'data');
      expect((await api(server, 'POST', '/api/v1/tenants', { name: 'alpha' })).status).toBe(201);
      const alpha = (await api(server, 'POST', '/api/v1/tokens', { tenant: 'alpha', label: 'alpha' })).body
        .token as string;
      const submitAs = async (token: string, script: string): Promise<number> => {
        const { status, body } = await api(server!, 'POST', '/api/v1/jobs', shellJob(script, { gpuMilli: 500 }), token);
        expect(status).toBe(201);
        return body.id as number;
      };
      expect(await submitAs(alpha, 'echo alpha one')).toBe(1);
      await waitForJob(server, 1, (j) => j.state === 'succeeded');
      const backup = join(server.dataDir, 'backup.db');
      expect(cli(server, ['backup', backup]).code).toBe(0);
      expect(modeOf(backup)).toBe(0o600);
      // After the backup: two more jobs of alpha, with output nobody else may read.
      expect([
        await submitAs(alpha, 'echo alpha secret two'),
        await submitAs(alpha, 'echo alpha secret three'),
      ]).toEqual([2, 3]);
      await waitForJob(server, 2, (j) => j.state === 'succeeded');
      await waitForJob(server, 3, (j) => j.state === 'succeeded');
      const oldFolders = [jobFolder(server, 2), jobFolder(server, 3)].map((path) => path.split('/').at(-1)!);
      expect([
        modeOf(join(data, 'gpushare.db')),
        modeOf(join(data, 'gpushare.db-wal')),
        modeOf(join(data, 'gpushare.db-shm')),
        modeOf(join(data, 'admin-token')),
        modeOf(data),
      ]).toEqual([0o600, 0o600, 0o600, 0o600, 0o700]);

      // Restore (docs/store.md): stop the server, put the backup in place of the store, move the audit journal
      // aside, start accepting the audit log's journal-missing (recorded).
      await stopServe(server);
      cpSync(backup, join(data, 'gpushare.db'));
      rmSync(join(data, 'gpushare.db-wal'), { force: true });
      rmSync(join(data, 'gpushare.db-shm'), { force: true });
      renameSync(join(data, 'audit-head'), join(data, 'audit-head.before-restore'));
      await restart(server, '1xT4', ['--accept-audit-problems']);
      expect((await api(server, 'GET', '/api/v1/jobs?all=true')).body.jobs.map((j: { id: number }) => j.id)).toEqual([
        1,
      ]);
      const quarantine = join(data, 'quarantine');
      const [stamp] = readdirSync(quarantine);
      expect(readdirSync(join(quarantine, stamp!)).sort()).toEqual(oldFolders.sort());
      expect(server.stderr).toContain('job ids continue above 3');
      expect(server.stderr).toContain(
        `moved 2 job folder(s) the store does not know (a restored backup?) to ${join(quarantine, stamp!)}: ` +
          `${oldFolders.sort().join(', ')}`,
      );

      // A new tenant's job: a new id, a new folder, only its own output.
      expect((await api(server, 'POST', '/api/v1/tenants', { name: 'beta' })).status).toBe(201);
      const beta = (await api(server, 'POST', '/api/v1/tokens', { tenant: 'beta', label: 'beta' })).body
        .token as string;
      const id = await submitAs(beta, 'echo beta only');
      expect(id).toBe(4);
      await waitForJob(server, id, (j) => j.state === 'succeeded');
      expect(jobFolder(server, id).split('/').at(-1)).toMatch(/^4-[0-9a-f]{16}$/);
      expect(
        readdirSync(jobFolder(server, id))
          .filter((f) => f.endsWith('.log'))
          .sort(),
      ).toEqual(['attempt-1.stderr.log', 'attempt-1.stdout.log']);
      const logs = cli(server, ['logs', String(id), '--token', beta]);
      expect([logs.code, logs.stdout]).toEqual([0, 'beta only\n']);
      expect(
        (await api(server, 'GET', '/api/v1/jobs?all=true', undefined, beta)).body.jobs.map((j: { id: number }) => j.id),
      ).toEqual([4]);
      for (const gone of [2, 3])
        expect((await api(server, 'GET', `/api/v1/jobs/${gone}/logs?stream=stdout`, undefined, beta)).status).toBe(404);
      // The job the backup knows keeps its folder and its logs.
      expect(cli(server, ['logs', '1']).stdout).toBe('alpha one\n');
      expect(readdirSync(join(data, 'jobs')).length).toBe(2);
      expect([modeOf(join(data, 'gpushare.db')), modeOf(quarantine), modeOf(join(data, 'last-job-id'))]).toEqual([
        0o600, 0o700, 0o600,
      ]);
    },
  );
});

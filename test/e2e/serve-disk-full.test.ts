/**
 * End-to-end: a real `gpushare serve` whose data directory is a small tmpfs (8 MiB) that a filler
 * file fills up. While the disk is full a submit gets 507 naming the cause and the data directory,
 * `/healthz` answers 503 unhealthy, a job that ends meanwhile is not lost, and the server logs the
 * episode once; once the filler is deleted everything recovers: `/healthz` 200, submits succeed, the
 * ended job shows its end and exit code, and every job submitted before is still there. Mounting a
 * tmpfs needs root: without it the suite is skipped with a message (a failure under
 * GPUSHARE_REQUIRE_TOOLS=1).
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canMountTmpfs, stopServerOnTmpfs } from './support/tmpfs-server.js';
import {
  api,
  hasExited,
  jobFolder,
  pollFor,
  serverFetch,
  shellJob,
  startServe,
  waitForJob,
  type ServeHandle,
  untilFileExists,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
let mounted: string | null = null;
afterEach(async () => {
  await stopServerOnTmpfs(server, mounted);
  mounted = null;
  server = null;
});

/** Writes 64 KiB chunks to `path` until the file system refuses (ENOSPC); returns the bytes written. */
function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 << 10, 1);
  let written = 0;
  try {
    for (let i = 0; i < 10_000; i++) written += writeSync(fd, chunk);
    throw new Error(`the disk did not fill after ${written} bytes`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

/** The server's log lines (pino JSON) whose message contains `text`. */
function logLines(handle: ServeHandle, text: string): string[] {
  return handle.stderr.split('\n').filter((line) => line.includes(text));
}

describe.skipIf(!canMountTmpfs('the disk-full test'))('gpushare serve: a full disk', () => {
  it(
    'refuses submits with 507, answers /healthz 503, loses no job, logs the episode once, and ' +
      'recovers when space is freed',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-disk-'));
      const data = join(dataDir, 'data');
      mkdirSync(data);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', data]);
      mounted = data;
      // No free-space threshold here: this test is about the writes that fail (serve-disk-low.test.ts: the threshold).
      server = await startServe({ simulateGpus: '1xA100-80GB', dataDir, config: { minFreeDiskMiB: 0 } });
      const trigger = join(dataDir, 'end-now');
      const done = await api(server, 'POST', '/api/v1/jobs', shellJob('exit 0', { gpuMilli: 100, mode: 'timeslice' }));
      expect(done.status).toBe(201);
      const ender = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob(`${untilFileExists(trigger)}; echo ending; exit 3`, {
          gpuMilli: 100,
          mode: 'timeslice',
        }),
      );
      expect(ender.status).toBe(201);
      const sleeper = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob('sleep 600', { gpuMilli: 100, mode: 'timeslice' }),
      );
      expect(sleeper.status).toBe(201);
      const before = [done.body.id, ender.body.id, sleeper.body.id] as number[];
      await waitForJob(server, done.body.id, (j) => j.state === 'succeeded');
      await waitForJob(server, ender.body.id, (j) => j.state === 'running');
      await waitForJob(server, sleeper.body.id, (j) => j.state === 'running');

      const filler = join(data, 'filler');
      const filled = fillDisk(filler);
      expect(filled).toBeGreaterThan(1 << 20); // the server used under 7 MiB of the 8
      // The job ends while the disk is full: its supervisor cannot write the outcome yet.
      closeSync(openSync(trigger, 'w'));
      const { jobPid } = JSON.parse(readFileSync(join(jobFolder(server, ender.body.id), 'attempt-1.pid'), 'utf8')) as {
        jobPid: number;
      };

      // A submit finds no room (the first, or a later one when SQLite still had room in its log).
      let refused: { status: number; body: { error: { code: string; message: string } } } | null = null;
      for (let i = 0; i < 20 && refused === null; i++) {
        const answer = await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('true', { gpuMilli: 100, mode: 'timeslice' }),
        );
        if (answer.status === 201) before.push(answer.body.id as number);
        else refused = answer;
      }
      expect(refused?.status).toBe(507);
      expect(refused?.body.error.code).toBe('GPUSHARE_DISK_FULL');
      expect(refused?.body.error.message).toContain(`the disk holding ${data} is full: free space there`);
      const health = await serverFetch(server, '/healthz');
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        status: 'unhealthy',
        reason: 'disk-full',
        message: `the disk holding ${data} is full: free space there`,
        minFreeBytes: 0,
      });

      // Once its command has exited, for two seconds (40 monitor ticks, 20 passes of the test
      // config) the ended job stays as the store had it, not lost, and the server stays quiet.
      await pollFor('the command of the ending job to exit', () => (hasExited(jobPid) ? true : undefined));
      const quietUntil = Date.now() + 2000;
      await pollFor('two seconds of the full disk', async () => {
        const job = (await api(server!, 'GET', `/api/v1/jobs/${ender.body.id}`)).body;
        expect(job.state).toBe('running');
        return Date.now() >= quietUntil ? true : undefined;
      });
      expect(logLines(server, 'disk full')).toHaveLength(1);
      expect(logLines(server, 'watching the job failed')).toEqual([]);
      expect(logLines(server, 'storing the pass failed')).toEqual([]);

      const freedAtMs = Date.now();
      unlinkSync(filler);
      await pollFor('/healthz to answer 200 again', async () =>
        (await serverFetch(server!, '/healthz')).status === 200 ? true : undefined,
      );
      expect(await (await serverFetch(server, '/healthz')).json()).toEqual({ status: 'ok' });
      const after = await api(server, 'POST', '/api/v1/jobs', shellJob('exit 0', { gpuMilli: 100, mode: 'timeslice' }));
      expect(after.status).toBe(201);
      const ended = await waitForJob(server, ender.body.id, (j) => j.state === 'failed');
      expect(ended.exitCode).toBe(3);
      expect(ended.reason).toBe('exit code 3');
      expect(ended.attempts).toHaveLength(1);
      expect(ended.attempts[0].exitCode).toBe(3);
      expect(ended.attempts[0].endReason).toBe('exited');
      // Its end is when the command ended (during the full disk), not when the store could record it.
      const endedAtMs = Date.parse(ended.attempts[0].endedAt as string);
      expect(endedAtMs).toBeGreaterThanOrEqual(Date.parse(ended.attempts[0].startedAt as string));
      expect(endedAtMs).toBeLessThan(freedAtMs);
      await waitForJob(server, after.body.id, (j) => j.state === 'succeeded');
      const listed = (await api(server, 'GET', '/api/v1/jobs?all=true')).body.jobs.map((j: { id: number }) => j.id);
      for (const id of [...before, after.body.id]) expect(listed).toContain(id);
      expect((await api(server, 'GET', `/api/v1/jobs/${sleeper.body.id}`)).body.state).toBe('running');
      expect(logLines(server, 'disk full')).toHaveLength(1);
      expect(logLines(server, 'disk space is back')).toHaveLength(1);
      // The refused submit was not lost from the audit log: one entry summarizes what the full disk held back.
      expect(logLines(server, 'could not record')).toEqual([]);
      const backlog = await pollFor('the audit.backlog entry', async () =>
        ((await api(server!, 'GET', '/api/v1/audit?limit=500')).body.entries as { action: string }[]).find(
          (e) => e.action === 'audit.backlog',
        ),
      );
      expect((backlog as unknown as { summary: { groups: unknown[] } }).summary.groups).toContainEqual(
        expect.objectContaining({ action: 'job.submit', result: 'failed', httpStatus: 507, count: 1 }),
      );
      expect(existsSync(join(data, '.disk-probe'))).toBe(false);
      rmSync(trigger);
    },
  );
});

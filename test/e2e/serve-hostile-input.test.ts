/**
 * End-to-end: hostile input against a real `gpushare serve` (single tenant, real job processes;
 * docs/security.md "Hostile input"):
 * - a job row stored with terminal escape codes cannot forge the CLI's output;
 * - path parameters that are not decimal digits cordon nothing;
 * - the logs API never reads through a link a job planted in place of its log or its folder;
 * - the API and `show` give the command's own host pid;
 * - a command that cannot start (E2BIG, ENOENT) fails with that reason, exit code null, its end
 *   not before its start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  serverFetch,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';

/** util-linux prlimit: sets a running process's resource limits (the server's stack size here). */
const PRLIMIT = '/usr/bin/prlimit';

let server: ServeHandle | null = null;
const scratch: string[] = [];
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-hostile-'));
  scratch.push(dir);
  return dir;
}

describe('gpushare serve: hostile input', () => {
  it(
    'escapes control characters of a job row stored before names were checked, in jobs, show and -o ' + 'json',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      const submitted = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob('sleep 600', { gpuMilli: 500 }, { name: 'plain' }),
      );
      expect(submitted.status).toBe(201);
      // Running before the server dies, so that the restarted server re-adopts it as running (a job
      // still being launched would go back to the queue).
      await waitForJob(server, submitted.body.id, (j) => j.state === 'running');
      await stopServe(server, 'SIGKILL');
      // Written straight into the store: a name that clears the screen and forges a second row.
      const forged = 'x\u001b[2J\n9  evil  team  running\u202e';
      const db = new Database(join(server.dataDir, 'data', 'gpushare.db'));
      db.prepare('UPDATE jobs SET name = ? WHERE id = 1').run(forged);
      db.close();
      const restarted = await startServe({
        simulateGpus: '1xT4',
        dataDir: server.dataDir,
        configHome: server.configHome,
      });
      Object.assign(server, {
        process: restarted.process,
        url: restarted.url,
        adminToken: restarted.adminToken,
        caCert: restarted.caCert,
      });
      expect((await api(server, 'GET', '/api/v1/jobs/1')).body.name).toBe(forged);
      // The restarted server starts the job again: list it once it runs.
      await waitForJob(server, 1, (job) => job.state === 'running');
      const jobs = cli(server, ['jobs', '--all']);
      expect(jobs.code).toBe(0);
      expect([jobs.stdout.includes('\u001b'), jobs.stdout.includes('\u202e')]).toEqual([false, false]);
      expect(jobs.stdout.split('\n')[1]).toMatch(
        /^1 +x\\x1b\[2J\\x0a9 {2}evil {2}team {2}running\\u202e {2}default {2}running /,
      );
      expect(jobs.stdout.trimEnd().split('\n')).toHaveLength(2);
      const show = cli(server, ['show', '1']);
      expect(show.stdout.split('\n')[0]).toBe('job 1: x\\x1b[2J\\x0a9  evil  team  running\\u202e');
      const json = cli(server, ['show', '1', '-o', 'json']);
      expect(json.stdout).toContain('"name": "x\\u001b[2J\\n9  evil  team  running\\u202e"');
      expect(JSON.parse(json.stdout).name).toBe(forged);
    },
  );

  it('refuses over real HTTP what would have cordoned GPU 0 or 1, and an empty id in the CLI', async () => {
    server = await startServe({ simulateGpus: '2xT4' });
    for (const path of [
      '/api/v1/gpus//cordon',
      '/api/v1/gpus/%20/cordon',
      '/api/v1/gpus/0x1/cordon',
      '/api/v1/gpus/01/cordon',
    ]) {
      const response = await serverFetch(server, path, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      expect([
        path,
        response.status,
        ((await response.json()) as { error: { message: string } }).error.message,
      ]).toEqual([
        path,
        400,
        'params.index: must be a decimal integer 0-1000000 (digits only, no sign, spaces or leading ' +
          'zeros); the GPU index (see GET /gpus)',
      ]);
    }
    const empty = cli(server, ['gpu', 'cordon', '']);
    expect([empty.code, empty.stderr]).toEqual([
      2,
      "error: IDX '' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ]);
    expect((await api(server, 'GET', '/api/v1/gpus')).body.gpus.map((g: { cordoned: boolean }) => g.cordoned)).toEqual([
      false,
      false,
    ]);
  });

  it('never reads logs through a link the job planted in place of its log file or of its folder', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const outside = scratchDir();
    writeFileSync(join(outside, 'target.log'), 'SECRET of someone else\n');
    writeFileSync(join(outside, 'attempt-1.stdout.log'), 'SECRET folder of someone else\n');
    // The job's folder is the parent of its checkpoint directory.
    const plantFile =
      `echo mine; d=$(dirname "$GPUSHARE_CHECKPOINT_DIR"); rm "$d/attempt-1.stdout.log"; ln -s ` +
      `${outside}/target.log "$d/attempt-1.stdout.log"`;
    const one = await api(server, 'POST', '/api/v1/jobs', shellJob(plantFile, { gpuMilli: 500 }));
    expect((await waitForJob(server, one.body.id, (j) => j.state === 'succeeded')).exitCode).toBe(0);
    expect((await api(server, 'GET', `/api/v1/jobs/${one.body.id}/logs`)).body).toEqual({
      attempt: 1,
      text: '',
      nextOffset: 0,
      ended: true,
    });
    expect(cli(server, ['logs', String(one.body.id)]).stdout).toBe('');
    const plantFolder =
      `echo mine; d=$(dirname "$GPUSHARE_CHECKPOINT_DIR"); mv "$d" "$d.moved" && ln -s ${outside} ` + `"$d"`;
    const two = await api(server, 'POST', '/api/v1/jobs', shellJob(plantFolder, { gpuMilli: 500 }));
    await waitForJob(
      server,
      two.body.id,
      (j) => j.state !== 'pending' && j.state !== 'scheduled' && j.state !== 'running',
    );
    const logs = await api(server, 'GET', `/api/v1/jobs/${two.body.id}/logs`);
    expect([logs.status, logs.body.text]).toEqual([200, '']);
  });

  it("gives the command's own host pid in the API and in show while it runs", async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const dir = scratchDir();
    const submitted = await api(
      server,
      'POST',
      '/api/v1/jobs',
      shellJob(`echo $$ > ${dir}/pid; exec sleep 600`, { gpuMilli: 500 }),
    );
    const running = await waitForJob(
      server,
      submitted.body.id,
      (j) => j.state === 'running' && readFileSafe(join(dir, 'pid')) !== '',
    );
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    expect(running.pid).toBe(pid);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toBe('sleep\u0000600\u0000');
    expect(cli(server, ['show', String(submitted.body.id)]).stdout).toContain(
      `\npid:         ${pid} (the command, on the host)\n`,
    );
    expect(running.events.at(-1).reason).toBe(`attempt 1 started (pid ${pid})`);
    await api(server, 'POST', `/api/v1/jobs/${submitted.body.id}/cancel`);
    expect((await waitForJob(server, submitted.body.id, (j) => j.state === 'cancelled')).pid).toBeNull();
  });

  it.skipIf(!existsSync(PRLIMIT))(
    'fails a command that cannot start with the reason in words: E2BIG (a smaller stack limit) and ' +
      'ENOENT (removed before launch)',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      // With a 1 MiB stack the kernel takes 256 KiB of arguments: 4 x 100,000 bytes fit in a body but not in execve.
      execFileSync(PRLIMIT, ['--stack=1048576', '--pid', String(server.process.pid)]);
      const big = await api(server, 'POST', '/api/v1/jobs', {
        command: ['sh', '-c', 'exit 0', ...Array.from({ length: 4 }, () => 'y'.repeat(100_000))],
        workingDirectory: '/tmp',
        gpu: { gpuMilli: 500 },
      });
      expect(big.status).toBe(201);
      const failed = await waitForJob(server, big.body.id, (j) => j.state === 'failed');
      expect([failed.reason, failed.exitCode, failed.signal, failed.attempts[0].endReason]).toEqual([
        'could not start sh: E2BIG (the argument list is too long)',
        null,
        null,
        'could not start sh: E2BIG (the argument list is too long)',
      ]);
      expect(Date.parse(failed.endedAt)).toBeGreaterThanOrEqual(Date.parse(failed.startedAt));
      expect(Date.parse(failed.attempts[0].endedAt)).toBeGreaterThanOrEqual(Date.parse(failed.attempts[0].startedAt));

      const dir = scratchDir();
      const script = join(dir, 'run.sh');
      writeFileSync(script, '#!/bin/sh\necho ran\n');
      chmodSync(script, 0o755);
      expect((await api(server, 'POST', '/api/v1/gpus/0/cordon')).status).toBe(200);
      const gone = await api(server, 'POST', '/api/v1/jobs', {
        command: [script],
        workingDirectory: dir,
        gpu: { gpuMilli: 500 },
      });
      expect(gone.status).toBe(201);
      rmSync(script);
      await api(server, 'POST', '/api/v1/gpus/0/uncordon');
      const missing = await waitForJob(server, gone.body.id, (j) => j.state === 'failed');
      expect([missing.reason, missing.exitCode]).toEqual([
        `could not start ${script}: ENOENT (no such file or directory)`,
        null,
      ]);
      expect(Date.parse(missing.endedAt)).toBeGreaterThanOrEqual(Date.parse(missing.startedAt));
    },
  );
});

/** The file's text, or '' when it does not exist yet. */
function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

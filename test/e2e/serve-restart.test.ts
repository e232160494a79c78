/**
 * End-to-end: the server is killed (SIGKILL) or stopped (SIGTERM) while jobs run, then restarted
 * on the same data dir. Nothing is lost or run twice, and outcomes are the real ones.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  jobFolder,
  pollFor,
  type ServeHandle,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  untilFileExists,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const terminal = (job: { state: string }) => ['succeeded', 'failed', 'cancelled'].includes(job.state);
/** True while a process of group `pgid` is alive (signal 0). */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('gpushare serve: nothing lost', () => {
  it('after kill -9 with 2 running and 3 pending jobs, a restart loses and duplicates nothing', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const runs = join(server.dataDir, 'runs.log');
    // Jobs 1 and 2 fill the GPU, each until its gate file appears. Job 1 outlives the restart
    // (re-adopted, released once the new server runs); job 2 is released while the server is down
    // and ends with exit code 7 (collected). Jobs 3-5 wait, then run after the restart.
    const gate = (n: number) => join(server!.dataDir, `release-${n}`);
    const specs = [
      { script: `echo 1 >> ${runs}; ${untilFileExists(gate(1))}; exit 0`, exit: 0 },
      { script: `echo 2 >> ${runs}; ${untilFileExists(gate(2))}; exit 7`, exit: 7 },
      { script: `echo 3 >> ${runs}; exit 0`, exit: 0 },
      { script: `echo 4 >> ${runs}; exit 3`, exit: 3 },
      { script: `echo 5 >> ${runs}; exit 0`, exit: 0 },
    ];
    for (const spec of specs)
      expect(
        (await api(server, 'POST', '/api/v1/jobs', shellJob(spec.script, { gpuMilli: 500, gpuMemoryMiB: 40960 })))
          .status,
      ).toBe(201);
    await waitForJob(server, 1, (j) => j.state === 'running');
    await waitForJob(server, 2, (j) => j.state === 'running');
    const states = (await api(server, 'GET', '/api/v1/jobs')).body.jobs.map((j: { state: string }) => j.state);
    expect(states).toEqual(['running', 'running', 'pending', 'pending', 'pending']);
    await stopServe(server, 'SIGKILL');
    // Job 2 (exit 7) ends while the server is down: its supervisor records the outcome.
    writeFileSync(gate(2), '');
    const outcome = join(jobFolder(server, 2), 'attempt-1.outcome.json');
    await pollFor("job 2's outcome, recorded while the server is down", () => (existsSync(outcome) ? true : undefined));
    const restarted = await startServe({
      simulateGpus: '1xA100-80GB',
      dataDir: server.dataDir,
      configHome: server.configHome,
    });
    server.process = restarted.process;
    server.url = restarted.url;
    // Job 1 still runs, re-adopted by the new server: released now, it ends with its real outcome.
    expect((await api(server, 'GET', '/api/v1/jobs/1')).body.state).toBe('running');
    writeFileSync(gate(1), '');
    const jobs = await Promise.all([1, 2, 3, 4, 5].map((id) => waitForJob(server!, id, terminal)));
    expect(jobs.map((j) => j.exitCode)).toEqual(specs.map((s) => s.exit));
    expect(jobs.map((j) => j.state)).toEqual(['succeeded', 'failed', 'succeeded', 'failed', 'succeeded']);
    expect(jobs.map((j) => j.attempts.length)).toEqual([1, 1, 1, 1, 1]);
    expect(jobs[1].reason).toBe('exit code 7');
    // Each job's command ran exactly once.
    expect(readFileSync(runs, 'utf8').trim().split('\n').sort()).toEqual(['1', '2', '3', '4', '5']);
  });

  it('marks a job whose process vanished without a record as failed with reason lost, and retries apply', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const { body } = await api(
      server,
      'POST',
      '/api/v1/jobs',
      shellJob('sleep 600', { gpuMilli: 300 }, { retries: 1 }),
    );
    const running = await waitForJob(server, body.id, (j) => j.state === 'running');
    await stopServe(server, 'SIGKILL');
    // Kill the supervisor and the job without letting anything record an outcome.
    const pidFile = join(jobFolder(server, body.id), 'attempt-1.pid');
    const { jobPid } = JSON.parse(readFileSync(pidFile, 'utf8')) as { jobPid: number };
    // The reason names the command's pid; the supervisor is its parent.
    expect(running.events.at(-1).reason).toBe(`attempt 1 started (pid ${jobPid})`);
    const stat = readFileSync(`/proc/${jobPid}/stat`, 'utf8');
    const supervisorPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    process.kill(supervisorPid, 'SIGKILL');
    process.kill(-jobPid, 'SIGKILL');
    await pollFor("the job's process group to be gone", () => (groupAlive(jobPid) ? undefined : true));
    expect(existsSync(join(jobFolder(server, body.id), 'attempt-1.outcome.json'))).toBe(false);
    const restarted = await startServe({
      simulateGpus: '1xT4',
      dataDir: server.dataDir,
      configHome: server.configHome,
    });
    Object.assign(server, { process: restarted.process, url: restarted.url });
    const job = await waitForJob(server, body.id, (j) => j.attempt === 2 && j.state === 'running');
    expect(job.attempts[0]).toEqual(expect.objectContaining({ attempt: 1, endReason: 'lost' }));
    expect(job.events.map((e: { to: string }) => e.to)).toEqual([
      'pending',
      'scheduled',
      'running',
      'pending',
      'scheduled',
      'running',
    ]);
    expect(job.events[3].reason).toBe('retry 1 of 1 after lost');
  });

  it('SIGTERM stops the server but not its jobs; the next start re-adopts them; drain waits for them', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    // The job runs until the test lets it end (a file appears), however slow the restart is.
    const go = join(server.dataDir, 'let-the-job-end');
    const { body } = await api(
      server,
      'POST',
      '/api/v1/jobs',
      shellJob(`${untilFileExists(go)}; echo done`, { gpuMilli: 500 }),
    );
    await waitForJob(server, body.id, (j) => j.state === 'running');
    expect(await stopServe(server, 'SIGTERM')).toBe(0);
    const restarted = await startServe({
      simulateGpus: '1xT4',
      dataDir: server.dataDir,
      configHome: server.configHome,
    });
    Object.assign(server, { process: restarted.process, url: restarted.url });
    const adopted = (await api(server, 'GET', `/api/v1/jobs/${body.id}`)).body;
    expect(adopted.state).toBe('running');
    writeFileSync(go, '');
    const backupPath = join(server.dataDir, 'backup.db');
    const backup = cli(server, ['backup', backupPath]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(existsSync(backupPath)).toBe(true);
    const exited = new Promise<number | null>((resolve) => server!.process.once('exit', (code) => resolve(code)));
    const drain = cli(server, ['drain']);
    expect(drain.code, drain.stderr).toBe(0);
    expect(await exited).toBe(0);
    const restartedAgain = await startServe({
      simulateGpus: '1xT4',
      dataDir: server.dataDir,
      configHome: server.configHome,
    });
    Object.assign(server, { process: restartedAgain.process, url: restartedAgain.url });
    const job = (await api(server, 'GET', `/api/v1/jobs/${body.id}`)).body;
    expect(job.state).toBe('succeeded');
    expect(job.attempts).toHaveLength(1);
    expect(cli(server, ['logs', String(body.id)]).stdout).toBe('done\n');
  });
});

/**
 * End-to-end (slow suite): ten jobs run under the one supervisor of a real `gpushare serve`; the
 * server is killed (SIGKILL) and started again on the same data dir. All ten still run with the
 * same pids, under the same single supervisor, and once released (the file they wait for
 * appears) all ten succeed with their output in their logs: none is lost. `npm run bench --
 * --only supervisor` does the same with 50 jobs and measures their memory.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  jobFolder,
  pollFor,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';

const JOBS = 10;
let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** The pids of live processes whose command line holds `text`. */
function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('gpushare serve: one supervisor for every job, through a crash of the server', () => {
  it(`after kill -9 with ${JOBS} running jobs, a restart re-adopts all of them and all succeed`, async () => {
    server = await startServe({ simulateGpus: '2xA100-80GB' });
    const release = join(server.dataDir, 'release');
    // Each job waits (at most 120 s) for the release file, then prints its name.
    for (let i = 1; i <= JOBS; i++) {
      const script =
        `i=0; while [ ! -e ${release} ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done; echo ` + `released ${i}`;
      expect(
        (await api(server, 'POST', '/api/v1/jobs', shellJob(script, { gpuMilli: 100, gpuMemoryMiB: 1024 }))).status,
      ).toBe(201);
    }
    const ids = Array.from({ length: JOBS }, (_, i) => i + 1);
    const running = await Promise.all(
      ids.map((id) => waitForJob(server!, id, (j) => j.state === 'running' && typeof j.pid === 'number', 60_000)),
    );
    const pids = running.map((j) => j.pid as number);
    const supervisors = processesNaming(join(server.dataDir, 'data', 'supervisor'));
    expect(supervisors).toHaveLength(1);

    await stopServe(server, 'SIGKILL');
    const restarted = await startServe({
      simulateGpus: '2xA100-80GB',
      dataDir: server.dataDir,
      configHome: server.configHome,
    });
    server.process = restarted.process;
    server.url = restarted.url;
    const readopted = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'running', 30_000)));
    expect(readopted.map((j) => j.pid)).toEqual(pids);
    expect(readopted.map((j) => j.attempts.length)).toEqual(ids.map(() => 1));
    expect(processesNaming(join(server.dataDir, 'data', 'supervisor'))).toEqual(supervisors);

    writeFileSync(release, '');
    const ended = await Promise.all(
      ids.map((id) => waitForJob(server!, id, (j) => ['succeeded', 'failed', 'cancelled'].includes(j.state), 60_000)),
    );
    expect(ended.map((j) => j.state)).toEqual(ids.map(() => 'succeeded'));
    for (const id of ids) {
      const log = await pollFor(
        `job ${id}'s log`,
        () => readFileSync(join(jobFolder(server!, id), 'attempt-1.stdout.log'), 'utf8') || undefined,
      );
      expect(log).toBe(`released ${id}\n`);
    }
  });
});

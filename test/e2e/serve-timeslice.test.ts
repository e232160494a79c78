/**
 * End-to-end: time-slicing through the server. Three CPU-bound jobs share one GPU in `timeslice`
 * mode; with the signals freezer (SIGSTOP/SIGCONT, visible in /proc) the server is seen to run one
 * of them at a time and to rotate the turn. The CPU shares themselves (60/30/10) are measured in
 * the slow suite (test/slow/serve-timeslice-shares.test.ts), where nothing else loads the machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupServe, pollFor, shellJob, startServe, waitForJob, type ServeHandle } from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** The states (/proc/PID/stat field 3) of the processes of group `pgid`. */
function groupStates(pgid: number): string[] {
  const states: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) states.push(fields[0]!);
    } catch {
      // process ended
    }
  }
  return states;
}

describe('gpushare serve: time-slicing', () => {
  it('runs three timeslice jobs on one GPU one at a time, and rotates the turn', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB', config: { freezer: 'signals', timeslicePeriodMs: 300 } });
    const ids: number[] = [];
    for (const gpuMilli of [600, 300, 100]) {
      const { status, body } = await api(server, 'POST', '/api/v1/jobs', shellJob('while :; do :; done', { gpuMilli, mode: 'timeslice' }));
      expect(status).toBe(201);
      ids.push(body.id);
    }
    const jobs = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'running')));
    expect(jobs.map((j) => j.placement.gpus[0].index)).toEqual([0, 0, 0]);
    expect(jobs.map((j) => j.placement.mode)).toEqual(['timeslice', 'timeslice', 'timeslice']);
    const pgids = ids.map((id) => (JSON.parse(readFileSync(join(server!.dataDir, 'data', 'jobs', String(id), 'attempt-1.pid'), 'utf8')) as { jobPid: number }).jobPid);
    // The job whose turn it is: the only group not stopped (T) while the other two are.
    const runningNow = (): number | undefined => {
      const stopped = pgids.map((pgid) => groupStates(pgid).every((s) => s === 'T'));
      return stopped.filter((s) => !s).length === 1 ? ids[stopped.indexOf(false)] : undefined;
    };
    const seen = new Set<number>();
    await pollFor('each of the three jobs to have its turn alone', () => {
      const id = runningNow();
      if (id !== undefined) seen.add(id);
      return seen.size === 3 ? true : undefined;
    });
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    for (const id of ids) await api(server, 'POST', `/api/v1/jobs/${id}/cancel`);
    const ended = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'cancelled')));
    expect(ended.map((j) => j.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});

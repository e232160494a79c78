/**
 * End-to-end: time-slicing through the server. Three CPU-bound jobs share one GPU in `timeslice`
 * mode; with the signals freezer (SIGSTOP/SIGCONT, visible in /proc) the server is seen to run one
 * of them at a time and to rotate the turn. The CPU shares themselves (60/30/10) are measured in
 * the slow suite (test/slow/serve-timeslice-shares.test.ts), where nothing else loads the machine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listProcessGroup } from '../../src/adapters/process/proc-group.js';
import {
  api,
  cleanupServe,
  cli,
  pollFor,
  shellJob,
  startServe,
  startTimesliceTrio,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

describe('gpushare serve: time-slicing', () => {
  it('runs three timeslice jobs on one GPU one at a time, and rotates the turn', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB', config: { freezer: 'signals', timeslicePeriodMs: 300 } });
    const { ids, pgids } = await startTimesliceTrio(server);
    // The job whose turn it is: the only group not stopped (T) while the other two are.
    const runningNow = (): number | undefined => {
      const stopped = pgids.map((pgid) => listProcessGroup(pgid).every((p) => p.state === 'T'));
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

  it("gpushare show and gpushare gpus say that a time-sliced job's memory is not enforced", async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const submitted = await api(
      server,
      'POST',
      '/api/v1/jobs',
      shellJob('sleep 600', { gpuMilli: 500, mode: 'timeslice' }, { name: 'ts-job' }),
    );
    expect(submitted.status).toBe(201);
    const id = submitted.body.id as number;
    const job = await waitForJob(server, id, (j) => j.state === 'running');
    expect(job.placement.enforcement).toEqual({ gpuMemory: 'not-enforced', compute: 'time-slice' });
    const show = cli(server, ['show', String(id)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      'placement:   mode timeslice  [simulated]\nenforced:    memory not enforced, compute time-slice\n',
    );
    const gpus = cli(server, ['gpus']);
    expect(gpus.code).toBe(0);
    expect(gpus.stdout.split('\n').slice(1, 3)).toEqual([
      '  mode timeslice, healthy, schedulable',
      '  enforced: memory not enforced, compute time-slice',
    ]);
    await api(server, 'POST', `/api/v1/jobs/${id}/cancel`);
    await waitForJob(server, id, (j) => j.state === 'cancelled');
  });
});

/**
 * End-to-end: `gpushare cancel` with several ids and with filters against a real `gpushare serve`
 * (simulated GPU, real job processes, a real SQLite file) and the real CLI: the single cancel's
 * output kept for one id, the table and JSON of a bulk cancel, exit 4 for skipped ids, exit 2 for
 * no selector, a dry run changing nothing, running jobs ending `cancelled` with the batch's reason,
 * and the one audit entry of each batch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupServe, cli, startServe, waitForJob, type ServeHandle } from './support/serve-harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

describe('gpushare cancel: many jobs in one call', () => {
  let server: ServeHandle;

  beforeAll(async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
  });
  afterAll(async () => {
    if (server) await cleanupServe(server);
  });

  const submit = async (name: string): Promise<number> => {
    const { status, body } = await api(server, 'POST', '/api/v1/jobs', {
      command: ['sleep', '600'],
      name,
      gpu: { gpuMilli: 100 },
    });
    expect(status, JSON.stringify(body)).toBe(201);
    return body.id as number;
  };
  const state = async (id: number): Promise<any> => (await api(server, 'GET', `/api/v1/jobs/${id}`)).body;
  const cordon = async (action: 'cordon' | 'uncordon') =>
    expect((await api(server, 'POST', `/api/v1/gpus/0/${action}`)).status).toBe(200);
  const bulkEntries = async () =>
    ((await api(server, 'GET', '/api/v1/audit?limit=10000')).body.entries as any[]).filter(
      (e) => e.action === 'job.cancel-bulk',
    );

  it(
    "one id keeps the single cancel's output; several ids print cancelled, stopping, skipped and " +
      'exit 4 when some were skipped',
    async () => {
      await cordon('cordon');
      const [a, b, c] = [await submit('one-a'), await submit('one-b'), await submit('one-c')];
      const single = cli(server, ['cancel', String(a)]);
      expect([single.code, single.stdout]).toEqual([0, `cancelled job ${a}\n`]);
      const many = cli(server, ['cancel', String(b), String(c), String(a), '99999']);
      expect(many.code, many.stderr).toBe(4);
      expect(many.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
        `cancelled 2: ${b}-${c}`,
        'stopping 0',
        'skipped 2:',
        expect.stringMatching(/^ {2}ID +REASON +MESSAGE$/),
        expect.stringMatching(new RegExp(`^  ${a} +already-ended +job ${a} already ended \\(cancelled\\)$`)),
        expect.stringMatching(/^ {2}99999 +not-found +job 99999 not found$/),
        'reason: cancelled by an admin',
        '',
      ]);
      expect([(await state(b)).state, (await state(c)).state]).toEqual(['cancelled', 'cancelled']);
      const none = cli(server, ['cancel', '--reason', 'why']);
      expect([none.code, none.stderr]).toEqual([
        2,
        'error: cancel: name job ids or at least one of --state, --tenant, --name, --since (nothing ' +
          'cancels every job)\n',
      ]);
      const badSince = cli(server, ['cancel', '--since', 'yesterday']);
      expect(badSince.code).toBe(2);
      expect(badSince.stderr).toContain("--since: 'yesterday' is neither an ISO 8601 time");
      const badState = cli(server, ['cancel', '--state', 'pending,done']);
      expect(badState.code).toBe(2);
      expect(badState.stderr).toContain(
        'is not a state a job can be cancelled in (allowed: pending, scheduled, running, preempted)',
      );
    },
  );

  it(
    "filters by state, name and since; a dry run changes nothing; -o json is the API's answer; ONE " +
      'audit entry per batch',
    async () => {
      await cordon('cordon');
      const sweep = [await submit('sweep-1'), await submit('sweep-2'), await submit('sweep-3')];
      const keep = await submit('keep-1');
      const dry = cli(server, ['cancel', '--state', 'pending', '--name', 'sweep-*', '--since', '1h', '--dry-run']);
      expect([dry.code, dry.stdout]).toEqual([
        0,
        `would cancel 3: ${sweep[0]}-${sweep[2]}\nwould stop 0\nwould skip 0\nreason: cancelled by an admin\n`,
      ]);
      expect((await state(sweep[0]!)).state).toBe('pending');
      const entriesBefore = (await bulkEntries()).length;
      const done = cli(server, [
        'cancel',
        '--state',
        'pending,preempted',
        '--name',
        'sweep-*',
        '--since',
        new Date(Date.now() - 3_600_000).toISOString(),
        '--reason',
        'wrong learning rate',
        '-o',
        'json',
      ]);
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toEqual({
        dryRun: false,
        cancelled: sweep,
        stopping: [],
        skipped: [],
        reason: 'cancelled by an admin: wrong learning rate',
      });
      for (const id of sweep)
        expect([(await state(id)).state, (await state(id)).reason]).toEqual([
          'cancelled',
          'cancelled by an admin: wrong learning rate',
        ]);
      expect((await state(keep)).state).toBe('pending');
      const entries = await bulkEntries();
      expect(entries.length).toBe(entriesBefore + 1);
      expect(entries.at(-1)).toMatchObject({
        actor: 'admin token 1',
        action: 'job.cancel-bulk',
        target: 'jobs (3 cancelled, 0 stopping)',
        summary: {
          method: 'POST',
          route: '/api/v1/jobs/cancel',
          body: { state: ['pending', 'preempted'], name: 'sweep-*', reason: 'wrong learning rate', dryRun: false },
        },
        outcome: {
          result: 'ok',
          httpStatus: 200,
          message: `cancelled 3 (${sweep[0]}-${sweep[2]}); stopping 0; skipped 0`,
        },
      });
      expect(cli(server, ['cancel', String(keep)]).code).toBe(0);
    },
  );

  it("stops running jobs, which end cancelled with the batch's reason", async () => {
    await cordon('uncordon');
    const running = [await submit('run-1'), await submit('run-2')];
    for (const id of running) await waitForJob(server, id, (j) => j.state === 'running');
    const result = cli(server, ['cancel', '--state', 'running', '--name', 'run-*', '--reason', 'node maintenance']);
    expect([result.code, result.stdout]).toEqual([
      0,
      `cancelled 0\nstopping 2: ${running[0]}-${running[1]}\nskipped 0\nreason: cancelled by an admin: ` +
        `node maintenance\n`,
    ]);
    for (const id of running) {
      const job = await waitForJob(server, id, (j) => j.state === 'cancelled');
      expect(job.reason).toBe('cancelled by an admin: node maintenance');
    }
  });
});

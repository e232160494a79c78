/**
 * End-to-end: reasons are stored as codes with details, and nothing is read back from their text.
 * A real server preempts one tenant's job for another's and is asked to cancel a running job; it
 * is killed (SIGKILL), every stored text of a reason (jobs.reason, job_events.reason,
 * job_attempts.end_reason) is rewritten, and the server restarts on the same data: the stop asked
 * for before the kill is carried out, and every view, as an admin and as each tenant reads it, is
 * what it was.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  type ServeHandle,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const CONFIG = { singleTenant: false, stopGraceSeconds: 2, preemptionGraceSeconds: 5 };
const terminal = (job: { state: string }) => ['succeeded', 'failed', 'cancelled'].includes(job.state);
/** A transition as the API shows it. */
interface EventView {
  readonly to: string;
  readonly reason: string;
}
/** A job's stored history: its transitions and attempts, as the viewer reads them. */
const history = (job: { events: EventView[]; attempts: unknown[] }) => ({ events: job.events, attempts: job.attempts });

describe('gpushare serve: reasons are codes, never read back from text', () => {
  it('after every stored reason text is rewritten, a restart keeps stop intents, views and redaction', async () => {
    server = await startServe({ simulateGpus: '1xT4', config: CONFIG });
    const handle = server;
    const token: Record<string, string> = {};
    for (const tenant of ['team-a', 'team-b']) {
      expect((await api(handle, 'POST', '/api/v1/tenants', { name: tenant })).status).toBe(201);
      token[tenant] = (await api(handle, 'POST', '/api/v1/tokens', { tenant, role: 'tenant-admin' })).body.token;
    }
    const limits = { maxPriorityClass: 'critical' };
    expect((await api(handle, 'PUT', '/api/v1/tenants/team-b/limits', limits)).status).toBe(200);
    const submit = async (tenant: string, body: Record<string, unknown>): Promise<number> => {
      // No working directory: each job gets a private one (a multi-tenant server refuses shared /tmp).
      const answer = await api(handle, 'POST', '/api/v1/jobs', { ...body, workingDirectory: undefined }, token[tenant]);
      expect(answer.status).toBe(201);
      return answer.body.id as number;
    };
    // A job of team-a that ran to its end.
    const done = await submit('team-a', shellJob('exit 0', { gpuMilli: 100 }, { name: 'a-done' }));
    await waitForJob(handle, done, terminal);
    // team-a's low job is preempted for team-b's critical one, which ignores SIGTERM.
    const low = await submit(
      'team-a',
      shellJob(
        "trap 'exit 0' TERM; while :; do sleep 0.1; done",
        { gpuMilli: 1000 },
        { name: 'a-low', priority: 'low' },
      ),
    );
    await waitForJob(handle, low, (j) => j.state === 'running');
    const critical = await submit(
      'team-b',
      shellJob("trap '' TERM; sleep 600", { gpuMilli: 1000 }, { name: 'b-secret', priority: 'critical' }),
    );
    await waitForJob(handle, critical, (j) => j.state === 'running');
    await waitForJob(handle, low, (j) => j.events.some((e: { to: string }) => e.to === 'preempted'));
    // A cancel of the running critical job: the stop intent is stored; the kill comes before it ends.
    expect((await api(handle, 'POST', `/api/v1/jobs/${critical}/cancel`)).status).toBe(200);
    const read = async (id: number, viewer?: string) =>
      (await api(handle, 'GET', `/api/v1/jobs/${id}`, undefined, viewer === undefined ? undefined : token[viewer]))
        .body;
    const before = {
      doneAdmin: await read(done),
      doneA: await read(done, 'team-a'),
      lowAdmin: history(await read(low)),
      lowA: history(await read(low, 'team-a')),
      criticalB: await read(critical, 'team-b'),
    };
    expect(before.criticalB.reason).toBe('cancel requested by an admin');
    expect(before.criticalB.reasonCode).toBe('cancel-requested');
    const preemptedEvent = (view: { events: EventView[] }) => view.events.find((e) => e.to === 'preempted')!.reason;
    expect(preemptedEvent(before.lowAdmin)).toBe(`preempted by job ${critical} (priority 1000, tenant team-b)`);
    expect(preemptedEvent(before.lowA)).toBe("preempted by another tenant's job (priority 1000)");
    await stopServe(handle, 'SIGKILL');

    // Every reason text in the store becomes the same meaningless words.
    const db = new Database(join(handle.dataDir, 'data', 'gpushare.db'));
    const rewritten = [
      db.prepare("UPDATE jobs SET reason = 'rewritten' WHERE reason IS NOT NULL").run().changes,
      db.prepare("UPDATE job_events SET reason = 'rewritten' WHERE reason IS NOT NULL").run().changes,
      db.prepare("UPDATE job_attempts SET end_reason = 'rewritten' WHERE end_reason IS NOT NULL").run().changes,
    ];
    db.close();
    // Three jobs hold a reason; 8 transitions have one (placed, started, and exited or preempted); two attempts ended.
    expect(rewritten).toEqual([3, 8, 2]);

    const restarted = await startServe({
      simulateGpus: '1xT4',
      dataDir: handle.dataDir,
      configHome: handle.configHome,
      config: CONFIG,
    });
    handle.process = restarted.process;
    handle.url = restarted.url;
    // The cancel asked for before the kill is carried out: read from its code, not from its words.
    const cancelled = await waitForJob(handle, critical, terminal);
    expect([cancelled.state, cancelled.reason, cancelled.reasonCode]).toEqual([
      'cancelled',
      'cancelled by an admin',
      'cancelled',
    ]);
    expect(await read(done)).toEqual(before.doneAdmin);
    expect(await read(done, 'team-a')).toEqual(before.doneA);
    // The preempted job's history so far is the same for both readers (it may run again meanwhile).
    const lowAdmin = history(await read(low));
    const lowA = history(await read(low, 'team-a'));
    expect(lowAdmin.events.slice(0, before.lowAdmin.events.length)).toEqual(before.lowAdmin.events);
    expect(lowA.events.slice(0, before.lowA.events.length)).toEqual(before.lowA.events);
    expect(lowA.attempts[0]).toEqual(before.lowA.attempts[0]);
    // What team-a reads never names team-b's job or team-b.
    const seenByA = JSON.stringify([lowA, await read(done, 'team-a')]);
    expect(seenByA).not.toMatch(new RegExp(`job #?${critical}\\b|team-b|b-secret|rewritten`));
    const seenByAdmin = JSON.stringify([lowAdmin, cancelled]);
    expect(seenByAdmin).not.toContain('rewritten');
  });
});

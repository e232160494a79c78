/**
 * Real `kill -9` points (slow suite; docs/crash-testing.md): a real `gpushare serve` started with
 * `GPUSHARE_CRASH_AT=<point>:<n>` SIGKILLs itself the n-th time it reaches that crash point, while a
 * driver takes it through one scenario over the API (a tenant, a token revoked, jobs that finish
 * and fail, a preemption whose victim saves its checkpoint and resumes, a MIG instance made for a
 * job, a cancel, a bulk cancel). The server is started again on the same data directory, and the
 * invariants are checked through the API, the job processes on the host and `gpushare audit verify`:
 * every acknowledged job there, finished outcomes kept, acknowledged cancels and revokes carried
 * out, no GPU over-committed, no job process left running once every job ended, the next job id
 * above every id given out.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  hasExited,
  pollFor,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';

const GPUS = '1xA10,1xA100-80GB:mig';
const CONFIG = { stopGraceSeconds: 2, preemptionGraceSeconds: 10 };
const TERMINAL = ['succeeded', 'failed', 'cancelled'];
const ONE_G = { mode: 'mig', gpuMilli: 100, gpuMemoryMiB: 5120 };
const CHECKPOINTING =
  'trap "exit 0" USR1; [ -n "$GPUSHARE_RESUME" ] && exit 0; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done';

/**
 * The points, chosen across the scenario's steps and every kind of point: the first start's writes,
 * submits, placements, launches, exits, the checkpoint signal, the MIG change, cancels, the journal.
 */
const KILL_POINTS = [
  'store.commit.after:1',
  'store.commit.before:4',
  'store.commit.after:6',
  'store.commit.before:9',
  'store.commit.after:12',
  'store.commit.before:16',
  'store.commit.after:20',
  'store.commit.after:26',
  'store.commit.before:31',
  'store.commit.after:36',
  'store.commit.after:42',
  'store.commit.before:48',
  'audit.commit.before:2',
  'audit.commit.after:4',
  'audit.commit.after:8',
  'job-id-mark.write.before:2',
  'job-id-mark.write.after:4',
  'job-id-mark.write.after:7',
  'audit-journal.write.before:1',
  'audit-journal.write.after:1',
  'process.launch.before:1',
  'process.launch.after:3',
  'process.launch.after:5',
  'process.exit.after:1',
  'process.exit.after:4',
  'process.checkpoint.before:1',
  'process.checkpoint.after:1',
  'mig.apply.before:1',
  'mig.apply.after:1',
  'process.signal.after:1',
];

/** What the driver was told before the server died. */
interface Acks {
  readonly jobIds: number[];
  readonly outcomes: Map<number, { state: string; exitCode: number | null }>;
  readonly cancelled: Set<number>;
  tenant: boolean;
  revoked: { id: number; secret: string } | null;
}

/** Thrown by a call the dead server did not answer. */
class ServerDown extends Error {}

/** Calls the API; throws ServerDown when the server does not answer. */
async function call(server: ServeHandle, method: string, path: string, body?: unknown): ReturnType<typeof api> {
  try {
    return await api(server, method, path, body);
  } catch (error) {
    throw new ServerDown((error as Error).message);
  }
}

async function submit(server: ServeHandle, acks: Acks, body: Record<string, unknown>): Promise<number> {
  const { status, body: job } = await call(server, 'POST', '/api/v1/jobs', body);
  expect(status).toBe(201);
  acks.jobIds.push(job.id);
  return job.id;
}

/** What the test reads of a job. */
interface JobBody {
  readonly id: number;
  readonly state: string;
  readonly exitCode: number | null;
  readonly attempts: readonly { readonly endedAt: string | null }[];
}

async function waitFor(server: ServeHandle, id: number, states: string[]): Promise<JobBody> {
  try {
    return await waitForJob(server, id, (j) => states.includes(j.state), 60_000);
  } catch (error) {
    // A request the server did not answer (it died); a state not reached in time is a failure.
    if (/did not reach the expected state/.test(String(error))) throw error;
    throw new ServerDown(String(error));
  }
}

async function finished(server: ServeHandle, acks: Acks, id: number): Promise<void> {
  const job = await waitFor(server, id, TERMINAL);
  acks.outcomes.set(id, { state: job.state, exitCode: job.exitCode });
}

/** The scenario, step by step; returns when it is done or the server died. */
async function drive(server: ServeHandle, acks: Acks): Promise<void> {
  try {
    expect((await call(server, 'POST', '/api/v1/tenants', { name: 'team' })).status).toBe(201);
    acks.tenant = true;
    const token = (await call(server, 'POST', '/api/v1/tokens', { tenant: 'team', role: 'member' })).body;
    expect((await call(server, 'POST', `/api/v1/tokens/${token.id}/revoke`)).status).toBe(200);
    acks.revoked = { id: token.id, secret: token.token };
    const ok = await submit(server, acks, shellJob('exit 0', { gpuMilli: 100, gpuMemoryMiB: 1024 }));
    const bad = await submit(server, acks, shellJob('exit 3', { gpuMilli: 100, gpuMemoryMiB: 1024 }));
    await finished(server, acks, ok);
    await finished(server, acks, bad);
    const low = await submit(server, acks, shellJob(CHECKPOINTING, { mode: 'exclusive' }, { priority: 'low' }));
    await waitFor(server, low, ['running']);
    const critical = await submit(server, acks, shellJob('sleep 0.5', { mode: 'exclusive' }, { priority: 'critical' }));
    await finished(server, acks, critical);
    await finished(server, acks, low);
    await finished(server, acks, await submit(server, acks, shellJob('exit 0', ONE_G)));
    const cancelled = await submit(server, acks, shellJob('sleep 30', ONE_G));
    await waitFor(server, cancelled, ['running']);
    expect((await call(server, 'POST', `/api/v1/jobs/${cancelled}/cancel`)).status).toBe(200);
    acks.cancelled.add(cancelled);
    const bulk = [
      await submit(server, acks, shellJob('sleep 30', ONE_G, { name: 'bulk-1' })),
      await submit(server, acks, shellJob('sleep 30', ONE_G, { name: 'bulk-2' })),
    ];
    for (const id of bulk) await waitFor(server, id, ['running']);
    const result = (await call(server, 'POST', '/api/v1/jobs/cancel', { name: 'bulk-*' })).body;
    for (const id of [...result.cancelled, ...result.stopping]) acks.cancelled.add(id);
    for (const id of [cancelled, ...bulk]) await finished(server, acks, id);
  } catch (error) {
    if (!(error instanceof ServerDown)) throw error;
  }
}

/** Every job process the data directory's pid files name that still runs. */
function liveJobProcesses(dataDir: string): number[] {
  const jobs = join(dataDir, 'data', 'jobs');
  const pids: number[] = [];
  for (const folder of existsSync(jobs) ? readdirSync(jobs) : [])
    for (const file of readdirSync(join(jobs, folder)).filter((f) => f.endsWith('.pid'))) {
      const recorded = JSON.parse(readFileSync(join(jobs, folder, file), 'utf8')) as Record<string, unknown>;
      for (const pid of [recorded.jobPid, recorded.commandPid])
        if (typeof pid === 'number' && !hasExited(pid)) pids.push(pid);
    }
  return pids;
}

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

describe('gpushare serve: kill -9 at a crash point, then a restart, loses nothing', () => {
  it.each(KILL_POINTS)('GPUSHARE_CRASH_AT=%s', async (point) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gpushare-kill-'));
    const acks: Acks = { jobIds: [], outcomes: new Map(), cancelled: new Set(), tenant: false, revoked: null };
    const options = { simulateGpus: GPUS, dataDir, config: CONFIG };
    let crashed: ServeHandle | null = null;
    try {
      crashed = await startServe({ ...options, env: { GPUSHARE_CRASH_AT: point } });
      server = crashed;
      await drive(crashed, acks);
      const signal = await pollFor('the server to kill itself', () => crashed!.process.signalCode ?? undefined, 30_000);
      expect(signal).toBe('SIGKILL');
    } catch (error) {
      // A point of the first start: the server died before it listened.
      if (!/serve exited with null/.test(String(error))) throw error;
    }
    server = await startServe({ ...options, configHome: join(dataDir, 'config-home') });

    // Every acknowledged job is there; finished ones kept their outcome.
    for (const id of acks.jobIds) expect((await api(server, 'GET', `/api/v1/jobs/${id}`)).status).toBe(200);
    for (const [id, outcome] of acks.outcomes) {
      const { body } = await api(server, 'GET', `/api/v1/jobs/${id}`);
      expect({ id, state: body.state, exitCode: body.exitCode }).toEqual({ id, ...outcome });
    }
    // Tokens and tenants.
    if (acks.revoked !== null)
      expect((await api(server, 'GET', '/api/v1/jobs', undefined, acks.revoked.secret)).status).toBe(401);
    if (acks.tenant)
      expect((await api(server, 'GET', '/api/v1/tenants')).body.tenants.map((t: { name: string }) => t.name)).toContain(
        'team',
      );
    // No GPU holds more than it has.
    for (const gpu of (await api(server, 'GET', '/api/v1/gpus')).body.gpus) {
      expect(gpu.allocatedGpuMilli).toBeLessThanOrEqual(1000);
      expect(gpu.allocatedGpuMemoryMiB).toBeLessThanOrEqual(gpu.gpuMemoryMiB);
    }
    // Acknowledged cancels are carried out; then everything still active is cancelled and ends.
    for (const id of acks.cancelled)
      expect((await waitForJob(server, id, (j) => TERMINAL.includes(j.state))).state).toBe('cancelled');
    const active = ['pending', 'scheduled', 'running', 'preempted'];
    const all = (await api(server, 'GET', '/api/v1/jobs?limit=100')).body.jobs as JobBody[];
    if (all.some((j) => active.includes(j.state)))
      expect((await api(server, 'POST', '/api/v1/jobs/cancel', { state: active })).status).toBe(200);
    for (const job of all) {
      const ended = await waitForJob(server, job.id, (j) => TERMINAL.includes(j.state), 60_000);
      expect((ended as JobBody).attempts.filter((a) => a.endedAt === null)).toEqual([]);
    }
    await pollFor('no job process left running', () => (liveJobProcesses(dataDir).length === 0 ? true : undefined));
    // Ids only grow, and the server runs jobs.
    const next = await submit(server, acks, shellJob('exit 0', { gpuMilli: 100, gpuMemoryMiB: 1024 }));
    expect(next).toBeGreaterThan(Math.max(0, ...acks.jobIds.slice(0, -1)));
    expect((await waitForJob(server, next, (j) => TERMINAL.includes(j.state))).state).toBe('succeeded');
    await stopServe(server);
    const verify = cli(server, ['audit', 'verify', '--data-dir', join(dataDir, 'data')]);
    expect({ code: verify.code, stderr: verify.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

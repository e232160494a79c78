/**
 * `GET /api/v1/events` on a real server (in process, listening on 127.0.0.1, one simulated GPU,
 * cordoned so that submitted jobs wait as `pending` and no job process starts): the first event is
 * a snapshot, a tenant's snapshot holds only its own jobs, a submit reaches an open stream as a new
 * snapshot, and closing the server ends open streams instead of waiting for them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../../config/server-config.js';
import { startServer, type RunningServer } from '../../../main/serve.js';
import { readFileSync } from 'node:fs';
import { WAIT_MS } from '../../../testing/deadlines.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- snapshot bodies are checked field by field */

interface Stream {
  /** Resolves with the next `event: snapshot`'s data (bounded by `timeoutMs`). */
  nextSnapshot(timeoutMs?: number): Promise<any>;
  /** Snapshots received and not yet taken. */
  waiting(): number;
  close(): void;
}

/** Opens the event stream with `token` and collects its snapshots. */
async function openStream(url: string, token: string): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const snapshots: any[] = [];
  const wake: { waiter: (() => void) | null } = { waiter: null };
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('event: snapshot\n')) {
            snapshots.push(JSON.parse(block.slice(block.indexOf('data: ') + 6)));
            wake.waiter?.();
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    nextSnapshot: async (timeoutMs = WAIT_MS) => {
      const deadline = Date.now() + timeoutMs;
      while (snapshots.length === 0) {
        if (Date.now() > deadline) throw new Error(`no snapshot within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          wake.waiter = resolve;
          setTimeout(resolve, 100);
        });
        wake.waiter = null;
      }
      return snapshots.shift();
    },
    waiting: () => snapshots.length,
    close: () => controller.abort(),
  };
}

describe('GET /api/v1/events', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-events-'));
  let server: RunningServer;
  let admin: string;
  let tenantToken: string;
  const call = async (method: string, path: string, body: unknown, token: string): Promise<any> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  const job = (tenant: string, name: string) => ({
    command: ['sleep', '30'],
    workingDirectory: '/tmp',
    tenant,
    name,
    gpu: { gpuMilli: 500 },
  });

  beforeAll(async () => {
    const config = resolveServerConfig(
      { scheduleIntervalMs: 100 },
      {
        port: 0,
        dataDir: join(dir, 'data'),
        simulateGpus: '1xA100-80GB',
        usageHistoryIntervalSeconds: 60,
        insecureHttp: true,
        singleTenant: true,
      },
      { cpuMilli: 4000, hostMemoryMiB: 8192, env: {} },
    );
    server = await startServer(config, {
      env: { PATH: process.env.PATH },
      version: '9.9.9',
      writeCliConfig: false,
      handleSignals: false,
      logLevel: 'silent',
    });
    admin = readFileSync(server.adminTokenPath, 'utf8').trim();
    expect((await call('POST', '/api/v1/gpus/0/cordon', undefined, admin)).status).toBe(200);
    expect((await call('POST', '/api/v1/tenants', { name: 'team-a' }, admin)).status).toBe(201);
    tenantToken = (await call('POST', '/api/v1/tokens', { tenant: 'team-a', role: 'tenant-admin' }, admin)).body.token;
    expect((await call('POST', '/api/v1/jobs', job('default', 'admin-job'), admin)).status).toBe(201);
    expect((await call('POST', '/api/v1/jobs', job('team-a', 'team-job'), admin)).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a call without a token (401)', async () => {
    const response = await fetch(`${server.url}/api/v1/events`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as any).error.code).toBe('GPUSHARE_UNAUTHENTICATED');
  });

  it('sends the admin a first snapshot with every job, the GPU, the queue, quotas and status', async () => {
    const stream = await openStream(server.url, admin);
    try {
      const snapshot = await stream.nextSnapshot();
      expect(snapshot.status).toEqual({
        version: '9.9.9',
        draining: false,
        gpuSource: 'simulated',
        jobs: { pending: 2 },
        you: { role: 'admin', tenant: null },
      });
      expect(snapshot.queue.map((j: any) => [j.id, j.name, j.tenant, j.state])).toEqual([
        [1, 'admin-job', 'default', 'pending'],
        [2, 'team-job', 'team-a', 'pending'],
      ]);
      expect(snapshot.jobs).toEqual([]); // waiting jobs are listed once, in the queue
      expect(snapshot.gpus).toHaveLength(1);
      expect(snapshot.gpus[0]).toMatchObject({
        index: 0,
        model: 'A100-80GB',
        cordoned: true,
        schedulable: false,
        allocatedGpuMilli: 0,
        jobs: [],
        migMemorySlices: null,
        migIdleInstances: [],
      });
      expect(snapshot.quotas.map((q: any) => [q.tenant, q.queuedJobs])).toEqual([
        ['default', 1],
        ['team-a', 1],
      ]);
      expect(snapshot.usage).toMatchObject({ allocationRatio: 0, gpus: [{ index: 0, allocatedGpuMilli: 0 }] });
    } finally {
      stream.close();
    }
  });

  it('sends a tenant only its own jobs and quota, and a new snapshot when one of its jobs is submitted', async () => {
    const stream = await openStream(server.url, tenantToken);
    try {
      const first = await stream.nextSnapshot();
      expect(first.status.you).toEqual({ role: 'tenant-admin', tenant: 'team-a' });
      expect(first.status.jobs).toEqual({ pending: 1 });
      expect(first.queue.map((j: any) => [j.id, j.tenant])).toEqual([[2, 'team-a']]);
      expect(first.jobs).toEqual([]);
      expect(first.quotas.map((q: any) => q.tenant)).toEqual(['team-a']);
      const submitted = await call('POST', '/api/v1/jobs', job('team-a', 'later'), tenantToken);
      expect(submitted.status).toBe(201);
      const next = await stream.nextSnapshot();
      expect(next.queue.map((j: any) => [j.id, j.name])).toEqual([
        [2, 'team-job'],
        [submitted.body.id, 'later'],
      ]);
    } finally {
      stream.close();
    }
  });

  it('ends an open stream, saying why, once its token is revoked', async () => {
    const created = await call('POST', '/api/v1/tokens', { tenant: 'team-a', role: 'viewer', label: 'watcher' }, admin);
    expect(created.status).toBe(201);
    const response = await fetch(`${server.url}/api/v1/events`, {
      headers: { authorization: `Bearer ${created.body.token}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: snapshot')) text += (await reader.read()).value ?? '';
    const revoked = await call('POST', `/api/v1/tokens/${created.body.id}/revoke`, undefined, admin);
    expect(revoked.status).toBe(200);
    // The stream ends by itself (bounded by the test's timeout), its last event naming the revocation.
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last.split('\n')[0]).toBe('event: unauthorized');
    expect(JSON.parse(last.split('\n')[1]!.slice('data: '.length))).toEqual({
      status: 401,
      message: `token ${created.body.id} (watcher) was revoked at ${revoked.body.revokedAt}`,
    });
  });

  it('lists the first 50 waiting jobs of a deep queue and counts them all', async () => {
    for (let i = 0; i < 205; i++)
      expect((await call('POST', '/api/v1/jobs', job('default', `deep-${i}`), admin)).status).toBe(201);
    const stream = await openStream(server.url, admin);
    try {
      const snapshot = await stream.nextSnapshot();
      // 1 admin-job, 2 team-job, 3 later, then 205 deep ones: 208 waiting, the first 50 listed.
      expect([snapshot.queueLength, snapshot.queue.length, snapshot.queue[0].id, snapshot.queue.at(-1).id]).toEqual([
        208, 50, 1, 50,
      ]);
      expect(snapshot.status.jobs).toEqual({ pending: 208 });
      expect(snapshot.jobs).toEqual([]);
      expect(JSON.stringify(snapshot).length).toBeGreaterThan(16_384); // bigger than the socket's write buffer
      // Nothing changes (the GPU is cordoned, passes place nothing): no snapshot follows, although
      // writing this big one reported backpressure and the socket then drained. Ten timer passes
      // (100 ms apart; skipped, since nothing changed) outlast the 500 ms a stream waits between snapshots.
      const passes = async (): Promise<number> => {
        const { scheduler } = (await call('GET', '/api/v1/status', undefined, admin)).body;
        return scheduler.passes + scheduler.passesSkipped;
      };
      const start = await passes();
      for (const deadline = Date.now() + WAIT_MS; (await passes()) < start + 10 && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 20));
      expect(await passes()).toBeGreaterThanOrEqual(start + 10);
      expect(stream.waiting()).toBe(0);
    } finally {
      stream.close();
    }
  });

  it('ends open streams when the server closes (close does not wait for them)', async () => {
    const stream = await openStream(server.url, admin);
    await stream.nextSnapshot();
    const started = Date.now();
    await server.close();
    // Bounded (an open stream alone would hold the close forever); an earlier, client-aborted
    // stream's connection can hold it up to the client's keep-alive time (undici: 4 s).
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    stream.close();
  });
});

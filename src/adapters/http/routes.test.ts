/**
 * The HTTP routes in process: `buildServer` over a control plane on in-memory adapters (memory
 * store, fake time, no processes), called with Fastify's `inject` — no socket, no child process.
 * Passes run when the test moves the clock.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

async function serverFor(kit: PlaneKit): Promise<FastifyInstance> {
  return buildServer({
    ...kitServices(kit),
  });
}

describe('HTTP routes in process (inject, fake time)', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  let auth: { authorization: string };
  const call = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    payload?: object,
    headers: Record<string, string> = auth,
  ): Promise<{ status: number; body: any }> => {
    const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
    return { status: response.statusCode, body: response.json() };
  };

  beforeEach(async () => {
    kit = await planeKit('2xA10');
    app = await serverFor(kit);
    auth = { authorization: `Bearer ${kit.adminToken}` };
  });

  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
  });

  it('submits, places at the next pass, lists, shows and cancels a job', async () => {
    const submitted = await call('POST', '/api/v1/jobs', {
      command: ['train'],
      workingDirectory: '/work',
      gpu: { gpuMilli: 500 },
    });
    expect([submitted.status, submitted.body.id, submitted.body.state]).toEqual([201, 1, 'pending']);
    await kit.advance(1000);
    const shown = await call('GET', '/api/v1/jobs/1');
    expect([shown.status, shown.body.state, shown.body.placement.gpus.map((g: any) => [g.index, g.gpuMilli])]).toEqual([
      200,
      'running',
      [[0, 500]],
    ]);
    const listed = await call('GET', '/api/v1/jobs');
    expect(listed.body.jobs.map((j: any) => [j.id, j.state])).toEqual([[1, 'running']]);
    const cancelled = await call('POST', '/api/v1/jobs/1/cancel');
    expect(cancelled.status).toBe(200);
    await kit.advance(1000);
    expect((await call('GET', '/api/v1/jobs/1')).body.state).toBe('cancelled');
  });

  it('gives a waiting job a coded reason, and refuses at submit what no GPU here can ever run', async () => {
    await call('POST', '/api/v1/jobs', { command: ['big'], workingDirectory: '/work', gpu: { gpuCount: 2 } });
    await call('POST', '/api/v1/jobs', { command: ['small'], workingDirectory: '/work', gpu: { gpuMilli: 500 } });
    await kit.advance(1000);
    const job = (await call('GET', '/api/v1/jobs/2')).body;
    expect([job.state, job.reasonCode]).toEqual(['pending', 'gpu-capacity']);
    const tooBig = await call('POST', '/api/v1/jobs', {
      command: ['huge'],
      workingDirectory: '/work',
      gpu: { gpuCount: 3 },
    });
    expect([tooBig.status, tooBig.body.error.code]).toEqual([422, 'GPUSHARE_UNRESOLVABLE']);
    expect(tooBig.body.error.message).toMatch(/gpuCount/);
  });

  it('answers bad input with 400 naming the field, and no token with 401', async () => {
    const bad = await call('POST', '/api/v1/jobs', { command: [], workingDirectory: '/work' });
    expect([bad.status, bad.body.error.code, bad.body.error.details.issues[0].field]).toEqual([
      400,
      'GPUSHARE_INVALID_FIELD',
      'body.command',
    ]);
    const anonymous = await call('GET', '/api/v1/jobs', undefined, {});
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'GPUSHARE_UNAUTHENTICATED']);
    const missing = await call('GET', '/api/v1/jobs/42');
    expect([missing.status, missing.body.error.message]).toEqual([404, 'job 42 not found']);
    expect(kit.store.listJobs({}).length).toBe(0);
  });

  it(
    'authenticates every API route however its path is spelled (percent-encoded letters reach the ' + 'same routes)',
    async () => {
      await call('POST', '/api/v1/jobs', { command: ['train'], workingDirectory: '/work', gpu: { gpuMilli: 500 } });
      for (const url of ['/%61pi/v1/jobs/1', '/%61pi/v1/usage/history', '/api/v1/%6Aobs', '/%61pi/v1/jobs/99999']) {
        const anonymous = await call('GET', url, undefined, {});
        expect([url, anonymous.status, anonymous.body.error.code]).toEqual([url, 401, 'GPUSHARE_UNAUTHENTICATED']);
      }
      const drained = await call('POST', '/%61pi/v1/drain', undefined, {});
      expect(drained.status).toBe(401);
      const spelled = await call('GET', '/%61pi/v1/jobs/1');
      expect([spelled.status, spelled.body.id]).toEqual([200, 1]);
    },
  );

  it('lists and cordons GPUs, and the next pass avoids the cordoned one', async () => {
    const cordon = await call('POST', '/api/v1/gpus/0/cordon');
    expect(cordon.status).toBe(200);
    const gpus = (await call('GET', '/api/v1/gpus')).body.gpus;
    expect(gpus.map((g: any) => [g.index, g.model, g.cordoned])).toEqual([
      [0, 'A10', true],
      [1, 'A10', false],
    ]);
    await call('POST', '/api/v1/jobs', { command: ['train'], workingDirectory: '/work', gpu: { gpuMilli: 500 } });
    await kit.advance(1000);
    expect((await call('GET', '/api/v1/jobs/1')).body.placement.gpus.map((g: any) => g.index)).toEqual([1]);
  });

  it('creates a tenant with a quota and shows the status counts', async () => {
    const tenant = await call('POST', '/api/v1/tenants', { name: 'team-a' });
    expect([tenant.status, tenant.body.name]).toEqual([201, 'team-a']);
    const quota = await call('PUT', '/api/v1/tenants/team-a/quota', {
      guaranteedGpuEquivalents: 0.5,
      limitGpuEquivalents: 1,
    });
    expect([quota.status, quota.body.guaranteedGpuEquivalents, quota.body.limitGpuEquivalents]).toEqual([200, 0.5, 1]);
    const token = await call('POST', '/api/v1/tokens', { tenant: 'team-a' });
    const tenantAuth = { authorization: `Bearer ${token.body.token}` };
    for (const gpuMilli of [750, 500])
      await call('POST', '/api/v1/jobs', { command: ['a'], workingDirectory: '/work', gpu: { gpuMilli } }, tenantAuth);
    await kit.advance(1000);
    const jobs = (await call('GET', '/api/v1/jobs')).body.jobs;
    expect(jobs.map((j: any) => [j.tenant, j.state, j.reasonCode])).toEqual([
      ['team-a', 'running', 'attempt-started'],
      ['team-a', 'pending', 'quota'],
    ]);
    const status = (await call('GET', '/api/v1/status')).body;
    expect([status.version, status.gpuSource, status.jobs.running, status.jobs.pending]).toEqual([
      '9.9.9',
      'simulated',
      1,
      1,
    ]);
  });

  it(
    "says what enforces each share: a time-sliced job's memory is not enforced, MPS without a daemon " +
      'is accounting only',
    async () => {
      await call('POST', '/api/v1/jobs', {
        command: ['ts'],
        workingDirectory: '/work',
        gpu: { gpuMilli: 500, mode: 'timeslice' },
      });
      await call('POST', '/api/v1/jobs', {
        command: ['mps'],
        workingDirectory: '/work',
        gpu: { gpuMilli: 500, mode: 'mps' },
      });
      await kit.advance(1000);
      const jobs = (await call('GET', '/api/v1/jobs')).body.jobs;
      expect(jobs.map((j: any) => [j.id, j.placement.mode, j.placement.enforcement])).toEqual([
        [1, 'timeslice', { gpuMemory: 'not-enforced', compute: 'time-slice' }],
        [2, 'mps', { gpuMemory: 'not-enforced', compute: 'not-enforced' }],
      ]);
      const gpus = (await call('GET', '/api/v1/gpus')).body.gpus;
      expect(gpus.map((g: any) => [g.index, g.mode, g.enforcement])).toEqual([
        [0, 'timeslice', { gpuMemory: 'not-enforced', compute: 'time-slice' }],
        [1, 'mps', { gpuMemory: 'not-enforced', compute: 'not-enforced' }],
      ]);
      const status = (await call('GET', '/api/v1/status')).body;
      expect(status.enforcement).toEqual({
        host: {
          cpuMilli: false,
          hostMemoryMiB: false,
          // The fake launcher enforces no host limit: each default reads null, never a promise.
          jobDefaults: { pidsMax: null, defaultHostMemoryMiB: null, tenantDefaultHostMemoryMiB: {}, cpuWeight: null },
        },
        gpu: {
          exclusive: { gpuMemory: 'exclusive', compute: 'exclusive' },
          mig: { gpuMemory: 'hardware', compute: 'hardware' },
          mps: { gpuMemory: 'not-enforced', compute: 'not-enforced' },
          timeslice: { gpuMemory: 'not-enforced', compute: 'time-slice' },
        },
      });
    },
  );

  it(
    "keeps another tenant's MPS job off a GPU running MPS jobs of one tenant (mps-tenant) until that " +
      "tenant's jobs are gone",
    async () => {
      await call('POST', '/api/v1/tenants', { name: 'team-a' });
      await call('POST', '/api/v1/tenants', { name: 'team-b' });
      await call('POST', '/api/v1/gpus/1/cordon');
      const mps = (tenant: string) => ({
        command: ['m'],
        workingDirectory: '/work',
        tenant,
        gpu: { gpuMilli: 250, mode: 'mps' },
      });
      await call('POST', '/api/v1/jobs', mps('team-a'));
      await kit.advance(1000);
      await call('POST', '/api/v1/jobs', mps('team-a'));
      await kit.advance(1000);
      await call('POST', '/api/v1/jobs', mps('team-b'));
      await kit.advance(1000);
      // Job 4 of team-a would fit, but it would delay the blocked job 3 (EASY backfill): no tenant keeps an MPS GPU for
      // good.
      await call('POST', '/api/v1/jobs', mps('team-a'));
      await kit.advance(1000);
      let jobs = (await call('GET', '/api/v1/jobs')).body.jobs;
      expect(jobs.map((j: any) => [j.id, j.tenant, j.state, j.reasonCode])).toEqual([
        [1, 'team-a', 'running', 'attempt-started'],
        [2, 'team-a', 'running', 'attempt-started'],
        [3, 'team-b', 'pending', 'mps-tenant'],
        [4, 'team-a', 'pending', 'backfill'],
      ]);
      expect(jobs[2].reason).toBe(
        'waiting for an MPS GPU free of other tenants (one tenant per MPS GPU): GPU 0 runs MPS jobs of tenant team-a',
      );
      for (const id of [1, 2]) await call('POST', `/api/v1/jobs/${id}/cancel`);
      await kit.advance(1000);
      await kit.advance(1000);
      jobs = (await call('GET', '/api/v1/jobs')).body.jobs;
      expect(jobs.map((j: any) => [j.id, j.state, j.reasonCode])).toEqual([
        [3, 'running', 'attempt-started'],
        [4, 'pending', 'mps-tenant'],
      ]);
    },
  );
});

/**
 * The audit log as the API and the control plane write it, in process (inject, fake time, memory
 * adapters): every state-changing route has a row in the one table; calls that succeed and calls
 * refused after authentication are recorded with actor, tenant, target, a summary without secrets
 * and the outcome; 401s and a job's progress reports are not; GPU actions are recorded as the
 * scheduler's and the server's; a failing append never fails the call and reaches the log.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiLimits, DEFAULT_API_LIMITS } from '../../app/auth/api-limits.js';
import { auditPlaneEvents } from '../../app/audit/plane-audit.js';
import { safeAuditRecorder } from '../../app/audit/audit-recorder.js';
import type { AuditLog } from '../../app/ports/audit-log.js';
import { auditEntryHash, canonicalJson } from '../../app/audit/audit-chain.js';
import { QosService } from '../../app/qos/qos-service.js';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { createMemoryAuditLog, type MemoryAuditLog } from '../store/memory-audit-log.js';
import { AUDITED_ROUTES, STATE_CHANGING_METHODS, UNAUDITED_ROUTES } from './audit-routes.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';
import {} from '../../core/index.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

interface Logged {
  readonly obj: any;
  readonly msg: string | undefined;
}

async function serverFor(kit: PlaneKit, log: AuditLog, logged: Logged[], limits?: ApiLimits): Promise<FastifyInstance> {
  const logger = {
    info: () => undefined,
    warn: () => undefined,
    error: (obj: object, msg?: string) => void logged.push({ obj, msg }),
  };
  const record = safeAuditRecorder(log, logger);
  kit.plane.events.on(auditPlaneEvents({ record, job: (id) => kit.store.getJob(id), nowMs: () => kit.clock.nowMs() }));
  return buildServer({
    ...kitServices(kit),
    ...(limits === undefined ? {} : { limits }),
    qos: new QosService(kit.plane, kit.store, kit.clock, logger),
    audit: {
      log,
      record,
      jobTenant: (id) => kit.store.getJob(id)?.tenant ?? null,
      nowMs: () => kit.clock.nowMs(),
      logError: (err, call) => logger.error({ err, call }, 'audit'),
    },
  });
}

describe('audit log of API calls and GPU actions', () => {
  let kit: PlaneKit;
  let log: MemoryAuditLog;
  let logged: Logged[];
  let app: FastifyInstance;
  const call = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    payload?: object,
    token: string | null = kit.adminToken,
  ): Promise<{ status: number; body: any }> => {
    const response = await app.inject({
      method,
      url,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: response.json() };
  };
  const entries = () =>
    log.list({ limit: 1000 }).map((e) => ({
      actor: e.actor,
      role: e.role,
      tenant: e.tenant,
      action: e.action,
      target: e.target,
      result: e.outcome.result,
      status: e.outcome.httpStatus,
    }));

  beforeEach(async () => {
    kit = await planeKit('1xA10');
    log = createMemoryAuditLog();
    logged = [];
    app = await serverFor(kit, log, logged);
  });
  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
  });

  it('has a row in the one table for every state-changing route the server serves (or says why not)', () => {
    const paths = (app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const routes = Object.entries(paths)
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      )
      .filter((route) => STATE_CHANGING_METHODS.has(route.split(' ')[0]!));
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(routes.filter((route) => !(route in AUDITED_ROUTES) && !(route in UNAUDITED_ROUTES))).toEqual([]);
    expect(Object.keys(AUDITED_ROUTES).filter((route) => !routes.includes(route))).toEqual([]);
  });

  it(
    'records calls that succeed and calls refused after authentication, with actor, tenant, target ' +
      'and outcome; not 401s',
    async () => {
      expect((await call('POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
      const token = (await call('POST', '/api/v1/tokens', { tenant: 'team-a', role: 'tenant-admin', label: 'ci' }))
        .body;
      const submitted = await call('POST', '/api/v1/jobs', {
        command: ['train', '--lr', '0.1'],
        workingDirectory: '/work',
        tenant: 'team-a',
        environment: { WANDB_API_KEY: 'sk-secret-value' },
      });
      expect(submitted.status).toBe(201);
      expect((await call('POST', '/api/v1/jobs', { command: [], workingDirectory: '/work' }, token.token)).status).toBe(
        400,
      );
      expect((await call('POST', '/api/v1/gpus/0/cordon', undefined, token.token)).status).toBe(403);
      expect((await call('POST', '/api/v1/jobs/1/cancel', undefined, null)).status).toBe(401);
      expect((await call('POST', '/api/v1/jobs/1/cancel')).status).toBe(200);
      expect(
        (
          await call('PUT', '/api/v1/tenants/team-a/quota', {
            guaranteedGpuEquivalents: 0.5,
            limitGpuEquivalents: null,
          })
        ).status,
      ).toBe(200);
      expect((await call('POST', '/api/v1/nothing-here', {})).status).toBe(404);
      const audited = entries();
      expect(audited).toEqual([
        {
          actor: `admin token ${audited[0]!.actor.split(' ')[2]}`,
          role: 'admin',
          tenant: 'team-a',
          action: 'tenant.create',
          target: 'tenant team-a',
          result: 'ok',
          status: 201,
        },
        expect.objectContaining({
          action: 'token.create',
          target: `token ${token.id}`,
          tenant: 'team-a',
          result: 'ok',
        }),
        expect.objectContaining({ action: 'job.submit', target: 'job 1', tenant: 'team-a', result: 'ok', status: 201 }),
        {
          actor: `tenant-admin token ${token.id} of team-a`,
          role: 'tenant-admin',
          tenant: 'team-a',
          action: 'job.submit',
          target: 'job (none created)',
          result: 'rejected',
          status: 400,
        },
        {
          actor: `tenant-admin token ${token.id} of team-a`,
          role: 'tenant-admin',
          tenant: 'team-a',
          action: 'gpu.cordon',
          target: 'gpu 0',
          result: 'denied',
          status: 403,
        },
        expect.objectContaining({ action: 'job.cancel', target: 'job 1', tenant: 'team-a', result: 'ok', status: 200 }),
        expect.objectContaining({ action: 'quota.set', target: 'tenant team-a', tenant: 'team-a', result: 'ok' }),
      ]);
      const all = log.list({ limit: 100 });
      // The token's secret and the environment's values are nowhere in the log; the variable's name is.
      expect(JSON.stringify(all)).not.toContain(token.token);
      expect(JSON.stringify(all)).not.toContain('sk-secret-value');
      // The body as the route acted on it (defaults applied).
      expect(all[2]!.summary).toEqual({
        method: 'POST',
        route: '/api/v1/jobs',
        body: {
          command: ['train', '--lr', '0.1'],
          workingDirectory: '/work',
          tenant: 'team-a',
          environment: ['WANDB_API_KEY'],
          cpuMilli: 0,
          hostMemoryMiB: 0,
          priority: 'normal',
          retries: 0,
          timeLimitSeconds: null,
          gpu: { gpuCount: 1, gpuMemoryMiB: null, isolation: 'standard', mode: 'auto' },
        },
      });
      expect(all[3]!.outcome).toEqual({
        result: 'rejected',
        httpStatus: 400,
        message: 'body.command: command needs at least the program to run',
      });
      expect(all[4]!.outcome.message).toMatch(/admin/);
      expect(all[5]!.summary).toEqual({ method: 'POST', route: '/api/v1/jobs/:id/cancel', params: { id: 1 } });
    },
  );

  it(
    'records no environment values of a refused submit (a list or a string), and no value of a ' +
      'secret-named field anywhere',
    async () => {
      const submit = (body: object) =>
        call('POST', '/api/v1/jobs', { command: ['x'], workingDirectory: '/work', ...body });
      expect((await submit({ environment: ['PASSWORD=leak1', 'B=leak2'] })).status).toBe(400);
      expect((await submit({ environment: 'PASSWORD=leak3' })).status).toBe(400);
      expect((await submit({ environment: 42 })).status).toBe(400);
      expect(
        (
          await submit({
            apiKey: 'leak4',
            nested: { Credentials: { user: 'leak5' }, db_password: 1234, sshKeys: ['leak6'] },
          })
        ).status,
      ).toBe(400);
      const bodies = log.list({ limit: 100 }).map((e) => e.summary.body as Record<string, unknown>);
      expect(bodies.map((b) => b.environment)).toEqual([
        '[not an object: 2 items, values not recorded]',
        '[not an object: 14 characters, values not recorded]',
        '[not an object: number, value not recorded]',
        undefined,
      ]);
      expect([bodies[3]!.apiKey, bodies[3]!.nested]).toEqual([
        '[redacted]',
        { Credentials: '[redacted]', db_password: '[redacted]', sshKeys: '[redacted]' },
      ]);
      expect(JSON.stringify(log.rows().map((r) => [r.summaryJson, r.outcomeJson]))).not.toMatch(/leak|1234/);
    },
  );

  it('does not record calls refused by the request rate (429), so a throttled token cannot grow the log', async () => {
    await app.close();
    app = await serverFor(
      kit,
      log,
      logged,
      new ApiLimits(
        { ...DEFAULT_API_LIMITS, requestsPerSecond: 0.001, requestBurst: 2 },
        (name) => kit.store.getTenant(name),
        () => kit.clock.nowMs(),
      ),
    );
    expect((await call('POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
    const member = (await call('POST', '/api/v1/tokens', { tenant: 'team-a' })).body.token;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call('POST', '/api/v1/jobs/1/cancel', undefined, member)).status);
    expect(statuses).toEqual([404, 404, 429, 429, 429, 429]);
    expect(entries().map((e) => `${e.action} ${e.status}`)).toEqual([
      'tenant.create 201',
      'token.create 201',
      'job.cancel 404',
      'job.cancel 404',
    ]);
  });

  it(
    'records the GPU actions of the control plane: allocate, launch, preempt, checkpoint; not a ' +
      "job's progress reports",
    async () => {
      const low = kit.submit({
        command: ['low'],
        workingDirectory: '/work',
        priority: 'low',
        gpu: { gpuCount: 1 },
        qos: { stepSeconds: 1 },
      });
      await kit.advance(1000);
      const reportToken = kit.launcher.attempt(low.id).spec.environment.GPUSHARE_JOB_TOKEN!;
      expect((await call('POST', `/api/v1/jobs/${low.id}/qos-reports`, { stepSeconds: 0.5 }, reportToken)).status).toBe(
        200,
      );
      expect((await call('POST', '/api/v1/jobs', { command: ['x'] }, reportToken)).status).toBe(403);
      const high = kit.submit({
        command: ['high'],
        workingDirectory: '/work',
        priority: 'critical',
        gpu: { gpuCount: 1 },
      });
      await kit.advance(1000);
      await kit.advance(1000);
      expect(kit.store.getJob(high.id)!.state).toBe('running');
      const gpuActions = entries()
        .filter((e) => e.role === 'server')
        .map((e) => `${e.actor} ${e.action} ${e.target} ${e.tenant}`);
      expect(gpuActions).toEqual([
        `scheduler gpu.allocate job ${low.id} default`,
        `server job.launch job ${low.id} default`,
        `scheduler job.preempt job ${low.id} default`,
        `server job.checkpoint job ${low.id} default`,
        `scheduler gpu.allocate job ${high.id} default`,
        `server job.launch job ${high.id} default`,
      ]);
      expect(entries().filter((e) => e.role === 'job')).toEqual([
        {
          actor: `job ${low.id}'s report token`,
          role: 'job',
          tenant: null,
          action: 'job.submit',
          target: 'job (none created)',
          result: 'denied',
          status: 403,
        },
      ]);
      expect(log.list({ limit: 100 }).find((e) => e.action === 'gpu.allocate')!.summary).toMatchObject({
        gpus: [0],
        mode: 'exclusive',
      });
      expect(log.list({ limit: 100 }).find((e) => e.action === 'job.preempt')!.summary).toMatchObject({
        preemptorJobId: high.id,
      });
    },
  );

  it(
    "shows a tenant-admin no other tenant's job id after a cross-tenant preemption; an admin sees " +
      'the entries unchanged',
    async () => {
      for (const name of ['team-a', 'team-b'])
        expect((await call('POST', '/api/v1/tenants', { name })).status).toBe(201);
      const low = kit.submit({
        command: ['low'],
        workingDirectory: '/work',
        tenant: 'team-a',
        priority: 'low',
        gpu: { gpuCount: 1 },
      });
      await kit.advance(1000);
      const high = kit.submit({
        command: ['high'],
        workingDirectory: '/work',
        tenant: 'team-b',
        priority: 'critical',
        gpu: { gpuCount: 1 },
      });
      await kit.advance(1000);
      await kit.advance(1000);
      expect([kit.store.getJob(low.id)!.tenant, kit.store.getJob(high.id)!.state]).toEqual(['team-a', 'running']);
      const adminView = (await call('GET', '/api/v1/audit?tenant=team-a')).body.entries as any[];
      const preempt = adminView.find((e) => e.action === 'job.preempt');
      expect(preempt.summary.preemptorJobId).toBe(high.id);
      // An admin reads the entries as stored: the reason as its code and details, every hash checks.
      expect(preempt.summary.reason).toEqual({
        code: 'preempted',
        details: { preemptorJobId: high.id, preemptorPriority: 1000, preemptorTenant: 'team-b' },
      });
      for (const e of adminView)
        expect(
          auditEntryHash(e.prevHash, {
            seq: e.seq,
            atMs: Date.parse(e.at),
            actor: e.actor,
            role: e.role,
            tenant: e.tenant,
            action: e.action,
            target: e.target,
            summaryJson: canonicalJson(e.summary),
            outcomeJson: canonicalJson(e.outcome),
          }),
          `entry ${e.seq}`,
        ).toBe(e.hash);
      const tenantAdmin = (await call('POST', '/api/v1/tokens', { tenant: 'team-a', role: 'tenant-admin' })).body.token;
      const seen = (await call('GET', '/api/v1/audit', undefined, tenantAdmin)).body.entries as any[];
      // The same entries, and the token.create of the tenant-admin's own token.
      expect(seen.map((e) => `${e.action} ${e.target}`)).toEqual([
        ...adminView.map((e) => `${e.action} ${e.target}`),
        'token.create token 2',
      ]);
      const seenPreempt = seen.find((e) => e.action === 'job.preempt');
      expect(seenPreempt.summary).toEqual({
        preemptorJobId: null,
        reason: "preempted by another tenant's job (priority 1000)",
      });
      expect(seenPreempt.summary.reason).toMatch(/another tenant's job/);
      const texts = JSON.stringify(seen.map((e) => [e.target, e.summary, e.outcome]));
      expect(texts).not.toMatch(new RegExp(`job #?${high.id}\\b|JobId":${high.id}\\b`));
      expect(texts).toContain(`job ${low.id}`);
      // A reason a caller sends is data, never a line: only the server's own entries have reasons.
      const forged = { code: 'cancelled', details: { by: 'admin', tenant: null, note: 'FORGED' } };
      const refused = await call('POST', '/api/v1/jobs', { command: [], reason: forged }, tenantAdmin);
      expect(refused.status).toBe(400);
      const later = (await call('GET', '/api/v1/audit', undefined, tenantAdmin)).body.entries as any[];
      const submit = later.find((e) => e.action === 'job.submit' && e.outcome.result === 'rejected');
      expect(submit.summary.body.reason).toEqual(forged);
      expect(JSON.stringify(later)).not.toContain('cancelled by an admin');
    },
  );

  it(
    "lists entries to an admin, to a tenant-admin its own tenant's, to no one else (GET " +
      '/api/v1/audit), newest or paged',
    async () => {
      for (const name of ['t1', 't2', 't3']) await call('POST', '/api/v1/tenants', { name });
      const newest = await call('GET', '/api/v1/audit?newest=true&limit=2');
      expect([newest.status, newest.body.entries.map((e: any) => e.target)]).toEqual([200, ['tenant t2', 'tenant t3']]);
      const paged = await call('GET', '/api/v1/audit?afterSeq=1&limit=1');
      expect(paged.body.entries.map((e: any) => [e.seq, e.target, e.at, e.prevHash === log.rows()[0]!.hash])).toEqual([
        [2, 'tenant t2', new Date(kit.clock.nowMs()).toISOString(), true],
      ]);
      expect((await call('GET', '/api/v1/audit?tenant=t3')).body.entries.map((e: any) => e.seq)).toEqual([3]);
      const bad = await call('GET', '/api/v1/audit?since=yesterday');
      expect([bad.status, bad.body.error.message]).toEqual([
        400,
        'querystring.since: since must be an ISO 8601 time with a zone, e.g. 2025-01-31T12:00:00Z',
      ]);
      const member = (await call('POST', '/api/v1/tokens', { tenant: 't1' })).body.token;
      expect((await call('GET', '/api/v1/audit', undefined, member)).status).toBe(403);
      // A tenant-admin reads its own tenant's entries only, and is refused another tenant's.
      const tenantAdmin = (await call('POST', '/api/v1/tokens', { tenant: 't1', role: 'tenant-admin' })).body.token;
      const own = await call('GET', '/api/v1/audit', undefined, tenantAdmin);
      expect([own.status, own.body.entries.map((e: any) => [e.tenant, e.action, e.target])]).toEqual([
        200,
        [
          ['t1', 'tenant.create', 'tenant t1'],
          ['t1', 'token.create', 'token 2'],
          ['t1', 'token.create', 'token 3'],
        ],
      ]);
      expect((await call('GET', '/api/v1/audit?tenant=t3', undefined, tenantAdmin)).status).toBe(403);
    },
  );

  it('never fails a call because the audit append failed, and logs the failure', async () => {
    await app.close();
    const broken: AuditLog = {
      append: () => {
        throw new Error('SQLITE_FULL: database or disk is full');
      },
      list: () => [],
      head: () => ({ seq: 0, hash: '' }),
    };
    app = await serverFor(kit, broken, logged);
    expect((await call('POST', '/api/v1/tenants', { name: 'team-b' })).status).toBe(201);
    expect(logged.map((l) => [l.msg, l.obj.err.message])).toEqual([
      ['audit log: could not record tenant.create on tenant team-b', 'SQLITE_FULL: database or disk is full'],
    ]);
  });
});

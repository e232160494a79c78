/**
 * Caps and limits through the HTTP routes, in process over a control plane on in-memory adapters
 * (memory store, fake time, no processes): a tenant's highest priority class, per-token request
 * rate (fake time, so the bucket refills only when the test moves the clock), event streams per
 * token and in all (a real listening socket on 127.0.0.1), `/metrics` behind an admin token, and
 * reasons that never name another tenant's job to a tenant.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiLimits, DEFAULT_API_LIMITS, type ApiLimitSettings } from '../../app/auth/api-limits.js';
import { generateToken, tokenDigest } from '../../app/auth/tokens.js';
import type { TokenRole } from '../../app/ports/state-store.js';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';
import { WAIT_MS } from '../../testing/deadlines.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

async function serverFor(kit: PlaneKit, settings: ApiLimitSettings, metricsOpen = false): Promise<FastifyInstance> {
  return buildServer({
    ...kitServices(kit),
    metrics: { contentType: 'text/plain; version=0.0.4; charset=utf-8', render: async () => 'gpushare_up 1\n' },
    metricsOpen,
    limits: new ApiLimits(
      settings,
      (name) => kit.store.getTenant(name),
      () => kit.clock.nowMs(),
    ),
  });
}

/** Every `job N` a text names, as numbers. */
function namedJobIds(text: string): number[] {
  return [...text.matchAll(/\bjob(?:\(s\)|s)? #?(\d+(?:, #?\d+)*)/g)].flatMap((m) =>
    m[1]!.split(', ').map((id) => Number(id.replace('#', ''))),
  );
}

/**
 * Opens `GET /api/v1/events` on a listening server; resolves with its status and, for 200, the first snapshot and a
 * close function.
 */
async function openStream(
  url: string,
  token: string,
): Promise<{ status: number; body: string; snapshot: any; close: () => Promise<void> }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  if (response.status !== 200)
    return { status: response.status, body: await response.text(), snapshot: null, close: async () => undefined };
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const deadline = Date.now() + WAIT_MS;
  while (!buffer.includes('event: snapshot\n') || !buffer.slice(buffer.indexOf('event: snapshot\n')).includes('\n\n')) {
    if (Date.now() > deadline) throw new Error(`no snapshot within ${WAIT_MS} ms`);
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
  }
  const block = buffer.slice(buffer.indexOf('event: snapshot\n'));
  const snapshot = JSON.parse(block.slice(block.indexOf('data: ') + 6, block.indexOf('\n\n')));
  return {
    status: 200,
    body: '',
    snapshot,
    close: async () => {
      controller.abort();
      await reader.cancel().catch(() => undefined);
    },
  };
}

describe('caps and limits over HTTP', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  const admin = () => ({ authorization: `Bearer ${kit.adminToken}` });
  const call = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => {
    const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
    return {
      status: response.statusCode,
      headers: response.headers,
      text: response.body,
      body: response.body.startsWith('{') ? response.json() : null,
    };
  };
  /** A stored token of `role` for `tenant`, as an Authorization header. */
  const tokenOf = (tenant: string, role: TokenRole = 'member') => {
    const token = generateToken();
    kit.store.createToken({ digest: tokenDigest(token), role, tenant, label: `${role} of ${tenant}`, createdAtMs: 0 });
    return { token, header: { authorization: `Bearer ${token}` } };
  };

  beforeEach(async () => {
    kit = await planeKit('2xA10');
    app = await serverFor(kit, { ...DEFAULT_API_LIMITS, requestsPerSecond: 1, requestBurst: 3 });
    for (const name of ['team-a', 'team-b'])
      expect((await call('POST', '/api/v1/tenants', admin(), { name })).status).toBe(201);
  });

  afterEach(async () => {
    // Idle keep-alive sockets of the tests' fetch calls would hold close() for seconds.
    app.server.closeAllConnections();
    await app.close();
    await kit.plane.stop();
  });

  it(
    "caps a tenant's priority at its class (new tenants normal), names field, cap and who raises it; " +
      'an admin raises it and is never capped',
    async () => {
      const member = tokenOf('team-a');
      const submit = (priority: string | number, headers = member.header) =>
        call('POST', '/api/v1/jobs', headers, {
          command: ['t'],
          workingDirectory: '/w',
          gpu: { gpuMilli: 100 },
          priority,
        });
      const refused = await submit('high');
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        403,
        'GPUSHARE_PRIORITY_CAP',
        { field: 'priority', maxPriorityClass: 'normal', maxPriority: 500 },
      ]);
      expect(refused.body.error.message).toBe(
        'priority: 900 is above the cap of tenant "team-a": its highest priority class is normal (500); an ' +
          'admin can raise it with `gpushare tenant set-limits team-a --max-priority CLASS`',
      );
      expect(kit.store.listJobs().length).toBe(0);
      expect((await submit(500)).status).toBe(201);
      // Only an admin changes limits (a tenant-admin may not), for a known tenant, with a known class.
      const tenantAdmin = tokenOf('team-a', 'tenant-admin');
      expect(
        (await call('PUT', '/api/v1/tenants/team-a/limits', tenantAdmin.header, { maxPriorityClass: 'critical' }))
          .status,
      ).toBe(403);
      expect((await call('PUT', '/api/v1/tenants/nobody/limits', admin(), { maxPriorityClass: 'high' })).status).toBe(
        404,
      );
      const badClass = await call('PUT', '/api/v1/tenants/team-a/limits', admin(), { maxPriorityClass: 'urgent' });
      expect([badClass.status, badClass.body.error.details.issues[0].field]).toEqual([400, 'body.maxPriorityClass']);
      const empty = await call('PUT', '/api/v1/tenants/team-a/limits', admin(), {});
      expect([empty.status, empty.body.error.message]).toEqual([
        400,
        'body: give at least one of maxPriorityClass, requestsPerSecond, requestBurst, eventStreamsPerToken',
      ]);
      const raised = await call('PUT', '/api/v1/tenants/team-a/limits', admin(), {
        maxPriorityClass: 'high',
        requestBurst: 50,
      });
      expect([
        raised.status,
        raised.body.maxPriorityClass,
        raised.body.requestBurst,
        raised.body.requestsPerSecond,
      ]).toEqual([200, 'high', 50, null]);
      // The member's bucket (1/s) refills with time, not with a new burst.
      await kit.advance(10_000);
      expect((await submit('high')).status).toBe(201);
      const over = await submit(950);
      expect([over.status, over.body.error.details]).toEqual([
        403,
        { field: 'priority', maxPriorityClass: 'high', maxPriority: 900 },
      ]);
      // Tenant views show the cap; an admin's job for the tenant is not capped.
      expect(
        (await call('GET', '/api/v1/tenants', member.header)).body.tenants.map((t: any) => [
          t.name,
          t.maxPriorityClass,
        ]),
      ).toEqual([['team-a', 'high']]);
      expect(
        (
          await call('POST', '/api/v1/jobs', admin(), {
            command: ['t'],
            workingDirectory: '/w',
            tenant: 'team-a',
            gpu: { gpuMilli: 100 },
            priority: 'critical',
          })
        ).status,
      ).toBe(201);
    },
  );

  it(
    'throttles a token past its burst with 429, Retry-After and the limit named; another token and ' +
      'the admin go on',
    async () => {
      const a = tokenOf('team-a');
      for (let i = 0; i < 3; i++) expect((await call('GET', '/api/v1/jobs', a.header)).status).toBe(200);
      const limited = await call('GET', '/api/v1/jobs', a.header);
      expect([
        limited.status,
        limited.headers['retry-after'],
        limited.body.error.code,
        limited.body.error.details.limit,
      ]).toEqual([429, '1', 'GPUSHARE_TOO_MANY_REQUESTS', '1 requests/s per token, burst 3']);
      expect((await call('GET', '/api/v1/jobs', tokenOf('team-a').header)).status).toBe(200);
      // An admin's benchmark: 200 requests in the same (fake) millisecond, none throttled.
      const statuses = new Set<number>();
      for (let i = 0; i < 200; i++) statuses.add((await call('GET', '/api/v1/jobs', admin())).status);
      expect([...statuses]).toEqual([200]);
      // One second later the token has one request again.
      await kit.advance(1000);
      expect((await call('GET', '/api/v1/jobs', a.header)).status).toBe(200);
      expect((await call('GET', '/api/v1/jobs', a.header)).status).toBe(429);
    },
  );

  it(
    "/metrics needs an admin token: 401 without one, 403 for a tenant's token, 200 for the admin; " +
      'open when configured',
    async () => {
      expect((await call('GET', '/metrics', {})).status).toBe(401);
      const tenant = await call('GET', '/metrics', tokenOf('team-a', 'tenant-admin').header);
      expect([tenant.status, tenant.body.error.message]).toEqual([
        403,
        '/metrics needs an admin token: its series name the jobs of every tenant (or run the server with ' +
          '--metrics-open)',
      ]);
      const scraped = await call('GET', '/metrics', admin());
      expect([scraped.status, scraped.text]).toEqual([200, 'gpushare_up 1\n']);
      const open = await serverFor(kit, DEFAULT_API_LIMITS, true);
      try {
        const anonymous = await open.inject({ method: 'GET', url: '/metrics' });
        expect([anonymous.statusCode, anonymous.body]).toEqual([200, 'gpushare_up 1\n']);
      } finally {
        await open.close();
      }
    },
  );

  it(
    "never names another tenant's job to a tenant: waiting behind it, preempted by it, preempting " +
      'it; the admin sees the ids',
    async () => {
      await call('PUT', '/api/v1/tenants/team-b/limits', admin(), { maxPriorityClass: 'critical', requestBurst: 1000 });
      await call('PUT', '/api/v1/tenants/team-a/limits', admin(), { requestBurst: 1000 });
      const a = tokenOf('team-a', 'tenant-admin');
      const b = tokenOf('team-b', 'tenant-admin');
      kit.launcher.onSignal = (signal) =>
        signal === 'SIGUSR1' ? { exitCode: 0, signal: null } : { exitCode: null, signal };
      await call('POST', '/api/v1/gpus/1/cordon', admin());
      const job = async (headers: Record<string, string>, name: string, gpu: object, priority = 'normal') => {
        const created = await call('POST', '/api/v1/jobs', headers, {
          command: ['m'],
          workingDirectory: '/w',
          name,
          gpu,
          priority,
        });
        expect(created.status).toBe(201);
        await kit.advance(1000);
        return created.body.id as number;
      };
      // Waits for: team-a's MPS jobs hold GPU 0; team-b's job 3 is blocked there; team-a's job 4 waits behind it
      // (backfill).
      const mps = { gpuMilli: 250, mode: 'mps' };
      const a1 = await job(a.header, 'a-first', mps);
      await job(a.header, 'a-second', mps);
      const b3 = await job(b.header, 'secret-b-job', mps);
      const a4 = await job(a.header, 'a-waiting', mps);
      const adminView = (await call('GET', `/api/v1/jobs/${a4}`, admin())).body;
      expect([adminView.reasonCode, namedJobIds(adminView.reason)]).toEqual(['backfill', [b3]]);
      const aView = (await call('GET', `/api/v1/jobs/${a4}`, a.header)).body;
      expect(aView.reasonCode).toBe('backfill');
      expect(aView.reason).toMatch(/^waiting behind another tenant's job: /);
      // Preempted by: team-b's critical job takes GPU 0 from team-a's low-priority jobs.
      await call('POST', `/api/v1/jobs/${a4}/cancel`, a.header);
      await call('POST', `/api/v1/jobs/${b3}/cancel`, b.header);
      await kit.advance(1000);
      const b5 = (
        await call('POST', '/api/v1/jobs', b.header, {
          command: ['m'],
          workingDirectory: '/w',
          name: 'secret-b-critical',
          gpu: { gpuMilli: 1000 },
          priority: 'critical',
        })
      ).body.id as number;
      await kit.settle();
      // The preemptor waits for its victims; its reason names them to team-b only as another tenant's jobs.
      const bWaiting = (await call('GET', `/api/v1/jobs/${b5}`, b.header)).body;
      const adminWaiting = (await call('GET', `/api/v1/jobs/${b5}`, admin())).body;
      expect([bWaiting.state, namedJobIds(adminWaiting.reason)]).toEqual(['pending', [a1, a1 + 1]]);
      expect(bWaiting.reason).toBe('preempting 2 jobs of other tenants: waiting for them to checkpoint and exit');
      // A victim's own reason while it checkpoints names its preemptor as another tenant's job.
      expect((await call('GET', `/api/v1/jobs/${a1}`, a.header)).body.reason).toBe(
        "preemption requested: preempted by another tenant's job (priority 1000)",
      );
      await kit.advance(1000);
      expect(kit.store.getJob(a1)!.state).toBe('preempted');
      const aDetail = await call('GET', `/api/v1/jobs/${a1}`, a.header);
      const adminDetail = (await call('GET', `/api/v1/jobs/${a1}`, admin())).body;
      const adminReasons = adminDetail.events
        .map((e: any) => e.reason)
        .filter((r: any) => typeof r === 'string' && r.startsWith('preempted by'));
      expect(adminReasons).toEqual([`preempted by job ${b5} (priority 1000, tenant team-b)`]);
      expect(aDetail.body.events.filter((e: any) => e.to === 'preempted').map((e: any) => e.reason)).toEqual([
        "preempted by another tenant's job (priority 1000)",
      ]);
      const aList = await call('GET', '/api/v1/jobs?all=true', a.header);
      for (const text of [aDetail.text, aList.text]) {
        expect(text).not.toContain('secret-b');
        for (const r of [...text.matchAll(/"(?:reason|endReason)":"([^"]*)"/g)])
          expect(namedJobIds(r[1]!).filter((id) => id === b3 || id === b5)).toEqual([]);
      }
      // The event stream: team-a's snapshot names no job of team-b; the admin's does.
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const aStream = await openStream(url, a.token);
      const adminStream = await openStream(url, kit.adminToken);
      try {
        const aText = JSON.stringify(aStream.snapshot);
        expect(aText).not.toContain('secret-b');
        expect(aStream.snapshot.jobs.concat(aStream.snapshot.queue).every((j: any) => j.tenant === 'team-a')).toBe(
          true,
        );
        expect(aStream.snapshot.queue.find((j: any) => j.id === a1)?.state).toBe('preempted');
        expect(namedJobIds(aText).filter((id) => id === b3 || id === b5)).toEqual([]);
        expect(JSON.stringify(adminStream.snapshot)).toContain('secret-b-critical');
      } finally {
        await aStream.close();
        await adminStream.close();
      }
    },
  );

  it(
    'holds N event streams per token: the (N+1)th gets 429 while another token connects, and a ' +
      'closed stream lets a new one in',
    async () => {
      await app.close();
      app = await serverFor(kit, { ...DEFAULT_API_LIMITS, eventStreamsPerToken: 2, eventStreamsTotal: 4 });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const a = tokenOf('team-a');
      const b = tokenOf('team-b');
      const open = [await openStream(url, a.token), await openStream(url, a.token)];
      expect(open.map((s) => s.status)).toEqual([200, 200]);
      const third = await openStream(url, a.token);
      expect([third.status, JSON.parse(third.body).error.details]).toEqual([
        429,
        { limit: '2 event streams per token' },
      ]);
      // team-a holds half the total (2 of 4): another of its tokens waits.
      const sameTenant = await openStream(url, tokenOf('team-a').token);
      expect([sameTenant.status, JSON.parse(sameTenant.body).error.details]).toEqual([
        429,
        { limit: '2 event streams per tenant (half of eventStreamsTotal)' },
      ]);
      const other = await openStream(url, b.token);
      expect(other.status).toBe(200);
      const otherToo = await openStream(url, tokenOf('team-b').token);
      expect(otherToo.status).toBe(200);
      // The tenants' total (4) is reached: a third tenant waits, the admin does not.
      kit.store.createTenant('team-c', 0);
      const full = await openStream(url, tokenOf('team-c').token);
      expect([full.status, JSON.parse(full.body).error.details]).toEqual([429, { limit: '4 event streams in all' }]);
      const adminStream = await openStream(url, kit.adminToken);
      expect(adminStream.status).toBe(200);
      await open[0]!.close();
      // The server notices the closed socket on its own time: poll (bounded) until the slot is free.
      let again = await openStream(url, a.token);
      for (let i = 0; again.status !== 200 && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        again = await openStream(url, a.token);
      }
      expect(again.status).toBe(200);
      for (const s of [open[1]!, other, otherToo, adminStream, again]) await s.close();
    },
  );
});

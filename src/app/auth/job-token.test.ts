import { httpFailure } from '../testing/http-failure.js';
import { describe, expect, it } from 'vitest';
import { HANDLE, sampleJob, SHARED_PLACEMENT } from '../../adapters/store/store-fixtures.js';
import { QosService } from '../qos/qos-service.js';
import { planeKit } from '../testing/plane-kit.js';
import { checkJobTokenScope } from './job-scope.js';
import { generateToken, tokenDigest } from './tokens.js';
import { JOB_EVENT_CODES, jobEventReason, statusMessage } from '../../core/index.js';

const T0 = Date.UTC(2026, 0, 2);

/**
 * A plane with tenants team-a and team-b, running jobs 1 and 2 (team-a, step target 0.5 s) and 3 (team-b), each with
 * its report token.
 */
async function setup() {
  const kit = await planeKit('1xA100-80GB', { qosViolationSeconds: 1 });
  const { store, admin, clock, plane } = kit;
  store.createTenant('team-a', clock.nowMs());
  store.createTenant('team-b', clock.nowMs());
  const adminToken = generateToken();
  store.createToken({
    digest: tokenDigest(adminToken),
    role: 'admin',
    tenant: null,
    label: 'test',
    createdAtMs: clock.nowMs(),
  });
  const tenantToken = admin.tokens.create(
    { role: 'admin', tenant: null },
    { tenant: 'team-a', role: 'tenant-admin', label: 'ci' },
  ).token;
  const tokens: string[] = [];
  for (const tenant of ['team-a', 'team-a', 'team-b']) {
    const job = store.insertJob(sampleJob(tenant, { qos: { stepSeconds: 0.5 } }), T0);
    const token = generateToken();
    tokens.push(token);
    store.applyJobChanges([
      {
        jobId: job.id,
        atMs: T0 + 1,
        to: 'scheduled',
        patch: { placement: SHARED_PLACEMENT, reportTokenDigest: tokenDigest(token) },
      },
      { jobId: job.id, atMs: T0 + 2, to: 'running', patch: { process: HANDLE, attempt: 1 }, startAttempt: 1 },
    ]);
  }
  clock.advance(T0 + 10 - clock.nowMs());
  const logged: string[] = [];
  const logger = {
    info: (_: object, msg?: string) => logged.push(`info ${msg}`),
    warn: (_: object, msg?: string) => logged.push(`warn ${msg}`),
    error: () => undefined,
  };
  const qos = new QosService(plane, store, clock, logger);
  const events = kit.events;
  events.length = 0;
  return { store, admin, adminToken, tenantToken, tokens, kit, qos, events, clock, logged };
}

const bearer = (token: string): string => `Bearer ${token}`;

describe('job report tokens', () => {
  it('authenticate as role job with the job id; admin and tenant tokens are unchanged', async () => {
    const { admin, adminToken, tenantToken, tokens } = await setup();
    expect(admin.authenticate(bearer(tokens[0]!))).toEqual({ role: 'job', tenant: null, jobId: 1 });
    expect(admin.authenticate(bearer(tokens[2]!))).toEqual({ role: 'job', tenant: null, jobId: 3 });
    expect(admin.authenticate(bearer(adminToken))).toMatchObject({
      role: 'admin',
      tenant: null,
      tokenId: expect.any(Number),
    });
    expect(admin.authenticate(bearer(tenantToken))).toMatchObject({
      role: 'tenant-admin',
      tenant: 'team-a',
      tokenId: expect.any(Number),
    });
  });

  it('report for the own job: recorded, judged, violation stored as an event with its reason', async () => {
    const { admin, tokens, qos, clock, store, events, logged } = await setup();
    const principal = admin.authenticate(bearer(tokens[0]!));
    expect(() => checkJobTokenScope(principal, 'POST', '/api/v1/jobs/1/qos-reports')).not.toThrow();
    expect(qos.report(principal, 1, { stepSeconds: 0.62 }).status).toEqual([
      {
        kind: 'step',
        targetSeconds: 0.5,
        lastObservedSeconds: 0.62,
        lastReportAt: new Date(T0 + 10).toISOString(),
        reports: 1,
        violating: false,
        missingSince: new Date(T0 + 10).toISOString(),
        violations: 0,
      },
    ]);
    clock.advance(1_000);
    expect(qos.report(principal, 1, { stepSeconds: 0.62 }).status[0]).toMatchObject({
      violating: true,
      violations: 1,
      reports: 2,
    });
    expect(store.listEvents(1).at(-1)).toEqual({
      jobId: 1,
      atMs: T0 + 1_010,
      fromState: 'running',
      toState: 'running',
      reason: jobEventReason(JOB_EVENT_CODES.qosViolation, {
        kind: 'step',
        observedSeconds: 0.62,
        targetSeconds: 0.5,
        violationSeconds: 1,
      }),
    });
    expect(statusMessage(store.listEvents(1).at(-1)!.reason!)).toBe(
      'QoS violation: step 0.62 s > target 0.5 s for 1 s',
    );
    expect(store.getJob(1)?.state).toBe('running');
    expect(events.filter((e) => e.type === 'qos').map((e) => e.type === 'qos' && [e.kind, e.atMs])).toEqual([
      ['report', T0 + 10],
      ['report', T0 + 1_010],
      ['violation', T0 + 1_010],
    ]);
    expect(logged).toEqual(['warn QoS violation: step 0.62 s > target 0.5 s for 1 s']);
  });

  it("answers 403 for another job's report route and for every other route", async () => {
    const { admin, tokens, qos } = await setup();
    const principal = admin.authenticate(bearer(tokens[0]!));
    expect(httpFailure(() => checkJobTokenScope(principal, 'POST', '/api/v1/jobs/2/qos-reports'))).toEqual({
      status: 403,
      message: 'this job token belongs to job 1 and cannot report for job 2',
    });
    expect(httpFailure(() => qos.report(principal, 2, { stepSeconds: 0.4 }))).toEqual({
      status: 403,
      message: 'this job token belongs to job 1 and cannot report for job 2',
    });
    for (const [method, url] of [
      ['GET', '/api/v1/jobs'],
      ['GET', '/api/v1/jobs/1'],
      ['POST', '/api/v1/jobs/1/cancel'],
      ['POST', '/api/v1/jobs'],
      ['GET', '/api/v1/status'],
      ['GET', '/api/v1/jobs/1/qos-reports'],
      ['GET', '/api/v1/events?x=1'],
    ]) {
      expect(httpFailure(() => checkJobTokenScope(principal, method!, url!))).toEqual({
        status: 403,
        message:
          `a job token (GPUSHARE_JOB_TOKEN) may only call POST /api/v1/jobs/1/qos-reports; use a tenant or ` +
          `admin token for ${method} ${url!.split('?')[0]}`,
      });
    }
  });

  it('gives a job principal no rights in the other services (403 naming its one right)', async () => {
    const { admin, tokens, kit } = await setup();
    const principal = admin.authenticate(bearer(tokens[0]!));
    const { jobs } = kit;
    const only = { status: 403, message: 'a job token (GPUSHARE_JOB_TOKEN) may only report for its own job 1' };
    expect(httpFailure(() => jobs.listPage(principal, { all: true }))).toEqual(only);
    expect(httpFailure(() => jobs.activeCounts(principal))).toEqual(only);
    expect(httpFailure(() => jobs.get(principal, 1))).toEqual(only);
    expect(httpFailure(() => admin.listTenants(principal))).toEqual(only);
    expect(httpFailure(() => admin.createTenant(principal, 'x'))).toEqual(only);
  });

  it('stops working when the attempt ends (401), and a job that is not running answers 409', async () => {
    const { admin, tokens, store, qos, adminToken } = await setup();
    store.applyJobChanges([
      {
        jobId: 1,
        atMs: T0 + 20,
        to: 'succeeded',
        patch: { process: null, reportTokenDigest: null },
        endAttempt: {
          attempt: 1,
          exitCode: 0,
          signal: null,
          endReason: jobEventReason(JOB_EVENT_CODES.exited, { exitCode: 0 }),
        },
      },
    ]);
    expect(httpFailure(() => admin.authenticate(bearer(tokens[0]!)))).toEqual({
      status: 401,
      message: "unknown token (a job's GPUSHARE_JOB_TOKEN stops working when its attempt ends)",
    });
    expect(httpFailure(() => qos.report(admin.authenticate(bearer(adminToken)), 1, { stepSeconds: 0.4 }))).toEqual({
      status: 409,
      message: 'job 1 is succeeded: reports are accepted only while it runs',
    });
  });

  it("lets the tenant's token report for its own jobs only, and admins for any job", async () => {
    const { admin, tenantToken, adminToken, qos } = await setup();
    const tenant = admin.authenticate(bearer(tenantToken));
    expect(qos.report(tenant, 2, { stepSeconds: 0.3 }).status[0]).toMatchObject({
      lastObservedSeconds: 0.3,
      violating: false,
    });
    expect(httpFailure(() => qos.report(tenant, 3, { stepSeconds: 0.3 }))).toEqual({
      status: 404,
      message: expect.stringContaining('job 3') as string,
    });
    expect(qos.report(admin.authenticate(bearer(adminToken)), 3, { stepSeconds: 0.7 }).status[0]).toMatchObject({
      lastObservedSeconds: 0.7,
      reports: 1,
    });
    expect(httpFailure(() => qos.report(tenant, 2, { latencySeconds: 0.3 }))).toEqual({
      status: 422,
      message: expect.stringContaining('job 2 declares no latency target') as string,
    });
  });
});

/**
 * Every route × every kind of caller × own and another tenant's target, against the statuses of the
 * table in docs/security.md ("Roles: who may call what"). The routes come from the server itself
 * (`onRoute`), so a route without a row fails; the server listens on 127.0.0.1 and is called over
 * real HTTP, each case with fresh tokens and fresh targets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLE, sampleJob } from '../store/store-fixtures.js';
import type { Placement } from '../../core/index.js';
import { generateToken, tokenDigest, type Principal } from '../../app/auth/tokens.js';
import type { TokenRole } from '../../app/ports/state-store.js';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { createMemoryAuditLog } from '../store/memory-audit-log.js';
import { ApiLimits, DEFAULT_API_LIMITS } from '../../app/auth/api-limits.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';

const CALLERS = ['admin', 'tenant-admin', 'member', 'viewer', 'report token', 'revoked', 'expired', 'none'] as const;
type Caller = (typeof CALLERS)[number];
type Which = 'own' | 'other';

/** One row of the documented table: the route and, per caller, the status for own and other targets. */
interface Row {
  readonly route: string;
  readonly statuses: Readonly<Record<Caller, { own: number; other: number }>>;
}

/** The table between the route-roles markers of docs/security.md. */
function documentedRows(): Row[] {
  const text = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');
  const table = /<!-- route-roles:start -->\n([\s\S]*?)<!-- route-roles:end -->/.exec(text)?.[1];
  if (!table) throw new Error('docs/security.md has no route-roles table');
  const lines = table.trim().split('\n');
  const header = lines[0]!
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
  expect(header).toEqual(['route', ...CALLERS]);
  return lines.slice(2).map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const route = cells[0]!.replace(/`/g, '');
    const statuses = Object.fromEntries(
      CALLERS.map((caller, i) => {
        const [own, other = own] = cells[i + 1]!.split('/').map((v) => Number(v.trim()));
        return [caller, { own: own!, other: other! }];
      }),
    ) as Record<Caller, { own: number; other: number }>;
    return { route, statuses };
  });
}

/** A request a case sends. */
interface Call {
  readonly method: string;
  readonly url: string;
  readonly body?: unknown;
}

/** The callers' tokens and targets of one case, all fresh. */
interface CaseContext {
  readonly kit: PlaneKit;
  /** The calling token (null for `none`) and the stored token id behind it. */
  readonly token: string | null;
  readonly tokenId: number | null;
  /** The job a report token belongs to (its attempt's running job). */
  readonly reportJobId: number | null;
  readonly caller: Caller;
  readonly fresh: () => number;
  readonly backupDir: string;
}

const PENDING_JOB = { command: ['train'], workingDirectory: '/work', gpu: { gpuMilli: 500 } };

function storedToken(kit: PlaneKit, role: TokenRole, tenant: string | null): { token: string; id: number } {
  const token = generateToken();
  const record = kit.store.createToken({
    digest: tokenDigest(token),
    role,
    tenant,
    label: `${role} of ${tenant ?? 'all'}`,
    createdAtMs: kit.clock.nowMs(),
  });
  return { token, id: record.id };
}

/** A pending job of `tenant` submitted by the token `submitter` (id) through the job service. */
function pendingJob(
  kit: PlaneKit,
  tenant: string,
  submitter: number | null,
  environment: Record<string, string> = {},
): number {
  const principal: Principal = {
    role: submitter === null ? 'admin' : 'member',
    tenant: submitter === null ? null : tenant,
    ...(submitter === null ? {} : { tokenId: submitter }),
  };
  return kit.jobs.submit(principal, {
    ...PENDING_JOB,
    tenant,
    environment,
    priority: 'normal',
    timeLimitSeconds: null,
    retries: 0,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', isolation: 'standard' },
  }).id;
}

/** A running job of `tenant` with a step-time target, submitted by `submitter`, and its report token. */
function runningJob(kit: PlaneKit, tenant: string, submitter: number | null): { id: number; reportToken: string } {
  const job = kit.store.insertJob(
    sampleJob(tenant, {
      qos: { stepSeconds: 5 },
      submittedByTokenId: submitter,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: { gpuCount: 1, gpuMilli: 1, gpuMemoryMiB: 1, mode: 'timeslice' },
    }),
    kit.clock.nowMs(),
  );
  // A sliver of GPU 1, so that the many running jobs of a run never fill it.
  const placement: Placement = {
    mode: 'timeslice',
    gpus: [{ index: 1, uuid: kit.gpus[1]!.uuid, gpuMilli: 1, accountedGpuMilli: 1, gpuMemoryMiB: 1, mig: null }],
  };
  const reportToken = generateToken();
  kit.store.applyJobChanges([
    {
      jobId: job.id,
      atMs: kit.clock.nowMs(),
      to: 'scheduled',
      patch: { placement, reportTokenDigest: tokenDigest(reportToken) },
    },
    { jobId: job.id, atMs: kit.clock.nowMs(), to: 'running', patch: { process: HANDLE, attempt: 1 }, startAttempt: 1 },
  ]);
  return { id: job.id, reportToken };
}

/**
 * The job a job route acts on: the caller's own (its tenant's, for a member one it submitted; for a report token its
 * job) or another tenant's.
 */
function jobTarget(ctx: CaseContext, which: Which, running: boolean): number {
  const { kit } = ctx;
  if (which === 'other') return running ? runningJob(kit, 'team-b', null).id : pendingJob(kit, 'team-b', null);
  if (ctx.caller === 'report token') return ctx.reportJobId!;
  const submitter = ctx.caller === 'member' ? ctx.tokenId : storedToken(kit, 'member', 'team-a').id;
  return running ? runningJob(kit, 'team-a', submitter).id : pendingJob(kit, 'team-a', submitter);
}

const tenantOf = (which: Which): string => (which === 'own' ? 'team-a' : 'team-b');

/**
 * The token a token route acts on: for a member or viewer its own, else a member token of its tenant; or one of another
 * tenant.
 */
function tokenTarget(ctx: CaseContext, which: Which): number {
  if (which === 'own' && (ctx.caller === 'member' || ctx.caller === 'viewer')) return ctx.tokenId!;
  return storedToken(ctx.kit, 'member', tenantOf(which)).id;
}

/** How to call each documented route for a case. */
const CALLS: Record<string, (ctx: CaseContext, which: Which) => Call> = {
  'GET /healthz': () => ({ method: 'GET', url: '/healthz' }),
  'GET /openapi.json': () => ({ method: 'GET', url: '/openapi.json' }),
  'GET /metrics': () => ({ method: 'GET', url: '/metrics' }),
  'POST /api/v1/jobs': (_, which) => ({
    method: 'POST',
    url: '/api/v1/jobs',
    body: { ...PENDING_JOB, tenant: tenantOf(which) },
  }),
  'GET /api/v1/jobs': () => ({ method: 'GET', url: '/api/v1/jobs' }),
  'GET /api/v1/jobs/:id': (ctx, which) => ({ method: 'GET', url: `/api/v1/jobs/${jobTarget(ctx, which, false)}` }),
  'POST /api/v1/jobs/:id/cancel': (ctx, which) => ({
    method: 'POST',
    url: `/api/v1/jobs/${jobTarget(ctx, which, false)}/cancel`,
  }),
  // Many jobs: another tenant's job is skipped as "not found" inside a 200, never a 404 of the call.
  'POST /api/v1/jobs/cancel': (ctx, which) => ({
    method: 'POST',
    url: '/api/v1/jobs/cancel',
    body: { ids: [jobTarget(ctx, which, false)] },
  }),
  'GET /api/v1/jobs/:id/logs': (ctx, which) => ({
    method: 'GET',
    url: `/api/v1/jobs/${jobTarget(ctx, which, false)}/logs`,
  }),
  'POST /api/v1/jobs/:id/qos-reports': (ctx, which) => ({
    method: 'POST',
    url: `/api/v1/jobs/${jobTarget(ctx, which, true)}/qos-reports`,
    body: { stepSeconds: 1 },
  }),
  'GET /api/v1/gpus': () => ({ method: 'GET', url: '/api/v1/gpus' }),
  'POST /api/v1/gpus/:index/cordon': () => ({ method: 'POST', url: '/api/v1/gpus/0/cordon' }),
  'POST /api/v1/gpus/:index/uncordon': () => ({ method: 'POST', url: '/api/v1/gpus/0/uncordon' }),
  'GET /api/v1/tenants': () => ({ method: 'GET', url: '/api/v1/tenants' }),
  'POST /api/v1/tenants': (ctx) => ({ method: 'POST', url: '/api/v1/tenants', body: { name: `new-${ctx.fresh()}` } }),
  'PUT /api/v1/tenants/:name/quota': (_, which) => ({
    method: 'PUT',
    url: `/api/v1/tenants/${tenantOf(which)}/quota`,
    body: { guaranteedGpuEquivalents: 0, limitGpuEquivalents: null },
  }),
  'PUT /api/v1/tenants/:name/limits': (_, which) => ({
    method: 'PUT',
    url: `/api/v1/tenants/${tenantOf(which)}/limits`,
    body: { maxPriorityClass: 'high' },
  }),
  'GET /api/v1/quotas': () => ({ method: 'GET', url: '/api/v1/quotas' }),
  'GET /api/v1/tokens': () => ({ method: 'GET', url: '/api/v1/tokens' }),
  'POST /api/v1/tokens': (ctx, which) => ({
    method: 'POST',
    url: '/api/v1/tokens',
    body: { tenant: tenantOf(which), role: 'member', label: `t${ctx.fresh()}` },
  }),
  'POST /api/v1/tokens/:id/revoke': (ctx, which) => ({
    method: 'POST',
    url: `/api/v1/tokens/${tokenTarget(ctx, which)}/revoke`,
  }),
  'POST /api/v1/tokens/:id/rotate': (ctx, which) => ({
    method: 'POST',
    url: `/api/v1/tokens/${tokenTarget(ctx, which)}/rotate`,
  }),
  'POST /api/v1/drain': () => ({ method: 'POST', url: '/api/v1/drain' }),
  'POST /api/v1/backup': (ctx) => ({
    method: 'POST',
    url: '/api/v1/backup',
    body: { path: join(ctx.backupDir, `b${ctx.fresh()}.db`) },
  }),
  'GET /api/v1/status': () => ({ method: 'GET', url: '/api/v1/status' }),
  'GET /api/v1/usage/history': () => ({ method: 'GET', url: '/api/v1/usage/history' }),
  // Every caller who may read jobs gets its own (an admin every tenant's): never another tenant's, never a 404.
  'GET /api/v1/history': () => ({ method: 'GET', url: '/api/v1/history' }),
  'GET /api/v1/events (event stream)': () => ({ method: 'GET', url: '/api/v1/events' }),
  'GET /api/v1/dashboard/jobs': (_, which) => ({
    method: 'GET',
    url: `/api/v1/dashboard/jobs?tenant=${tenantOf(which)}`,
  }),
  'GET /api/v1/audit': (_, which) => ({ method: 'GET', url: `/api/v1/audit?tenant=${tenantOf(which)}` }),
};

/** Rows that change the server for every later case: run after all others, the admin last. */
const LAST = new Set(['POST /api/v1/drain']);
const DASHBOARD_ROW = "GET / and the dashboard's files";

/** The status of one call over HTTP; an event stream is closed once its headers arrive. */
async function send(base: string, call: Call, token: string | null): Promise<number> {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + call.url, {
    method: call.method,
    headers,
    signal: abort.signal,
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  const status = response.status;
  abort.abort();
  await response.body?.cancel().catch(() => undefined);
  return status;
}

describe('every route × every caller, as docs/security.md says', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  let base: string;
  let backupDir: string;
  const routes: string[] = [];
  let counter = 0;

  beforeAll(async () => {
    kit = await planeKit('2xA10');
    kit.store.createTenant('team-a', kit.clock.nowMs());
    kit.store.createTenant('team-b', kit.clock.nowMs());
    backupDir = mkdtempSync(join(tmpdir(), 'gpushare-route-roles-'));
    app = await buildServer(
      {
        ...kitServices(kit),
        metrics: { contentType: 'text/plain; version=0.0.4; charset=utf-8', render: async () => 'gpushare_up 1\n' },
        limits: new ApiLimits(
          DEFAULT_API_LIMITS,
          (name) => kit.store.getTenant(name),
          () => kit.clock.nowMs(),
        ),
        audit: {
          log: createMemoryAuditLog(),
          record: () => undefined,
          jobTenant: (id) => kit.store.getJob(id)?.tenant ?? null,
          nowMs: () => kit.clock.nowMs(),
          logError: () => undefined,
        },
      },
      {
        logInternalError: (e) => console.error('INTERNAL', e),
        onRoute: ({ method, url }) => {
          if (method !== 'HEAD') routes.push(`${method} ${url}`);
        },
      },
    );
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await app?.close();
    await kit?.plane.stop();
    rmSync(backupDir, { recursive: true, force: true });
  });

  /** Fresh tokens (and for a report token its running job) for one case. */
  function contextFor(caller: Caller): CaseContext {
    const fresh = () => ++counter;
    const common = { kit, caller, fresh, backupDir };
    switch (caller) {
      case 'admin': {
        const t = storedToken(kit, 'admin', null);
        return { ...common, token: t.token, tokenId: t.id, reportJobId: null };
      }
      case 'tenant-admin':
      case 'member':
      case 'viewer': {
        const t = storedToken(kit, caller, 'team-a');
        return { ...common, token: t.token, tokenId: t.id, reportJobId: null };
      }
      case 'report token': {
        const job = runningJob(kit, 'team-a', storedToken(kit, 'member', 'team-a').id);
        return { ...common, token: job.reportToken, tokenId: null, reportJobId: job.id };
      }
      case 'revoked': {
        const t = storedToken(kit, 'tenant-admin', 'team-a');
        kit.store.revokeToken(t.id, kit.clock.nowMs());
        return { ...common, token: t.token, tokenId: t.id, reportJobId: null };
      }
      case 'expired': {
        const token = generateToken();
        const record = kit.store.createToken({
          digest: tokenDigest(token),
          role: 'tenant-admin',
          tenant: 'team-a',
          label: 'expired',
          createdAtMs: kit.clock.nowMs() - 2000,
          expiresAtMs: kit.clock.nowMs() - 1000,
        });
        return { ...common, token, tokenId: record.id, reportJobId: null };
      }
      case 'none':
        return { ...common, token: null, tokenId: null, reportJobId: null };
    }
  }

  it('has a row for every route the server serves, and a call for every row', () => {
    const rows = documentedRows().map((r) => r.route);
    const dashboardRoutes = routes.filter((r) => r.startsWith('GET /') && !r.startsWith('GET /api/') && !(r in CALLS));
    const undocumented = routes.filter(
      (r) => !rows.includes(r) && !rows.includes(`${r} (event stream)`) && !dashboardRoutes.includes(r),
    );
    expect(undocumented).toEqual([]);
    expect(dashboardRoutes).toContain('GET /');
    expect(rows.filter((r) => r !== DASHBOARD_ROW && !(r in CALLS))).toEqual([]);
    expect(rows.filter((r) => r !== DASHBOARD_ROW && !routes.includes(r.replace(' (event stream)', '')))).toEqual([]);
  });

  it(
    "lets a member read a fellow member's job (its environment's values hidden) but not read its " +
      'logs or cancel it; a tenant-admin may all three',
    async () => {
      const member = contextFor('member');
      const tenantAdmin = contextFor('tenant-admin');
      const fellow = pendingJob(kit, 'team-a', storedToken(kit, 'member', 'team-a').id, { API_KEY: 'sk-value' });
      const statuses = async (token: string) => [
        await send(base, { method: 'GET', url: `/api/v1/jobs/${fellow}` }, token),
        await send(base, { method: 'GET', url: `/api/v1/jobs/${fellow}/logs` }, token),
      ];
      expect(await statuses(member.token!)).toEqual([200, 403]);
      // Its environment's values (often secrets) go with its logs: a fellow member sees the names only.
      const seen = async (token: string) =>
        (
          (await (
            await fetch(`${base}/api/v1/jobs/${fellow}`, { headers: { authorization: `Bearer ${token}` } })
          ).json()) as { environment: Record<string, string> }
        ).environment;
      expect(await seen(member.token!)).toEqual({ API_KEY: '(hidden)' });
      expect(await seen(tenantAdmin.token!)).toEqual({ API_KEY: 'sk-value' });
      expect(await send(base, { method: 'POST', url: `/api/v1/jobs/${fellow}/cancel` }, member.token)).toBe(403);
      expect(await statuses(tenantAdmin.token!)).toEqual([200, 200]);
      expect(await send(base, { method: 'POST', url: `/api/v1/jobs/${fellow}/cancel` }, tenantAdmin.token)).toBe(200);
    },
  );

  it('answers every route for every caller and target with the documented status', async () => {
    const rows = documentedRows();
    const dashboardRoutes = routes.filter((r) => r.startsWith('GET /') && !r.startsWith('GET /api/') && !(r in CALLS));
    const cases: {
      row: Row;
      call: (ctx: CaseContext, which: Which) => Call;
      caller: Caller;
      which: Which;
      last: boolean;
    }[] = [];
    for (const row of rows) {
      const calls =
        row.route === DASHBOARD_ROW
          ? dashboardRoutes.map((r) => () => ({ method: 'GET', url: r.slice('GET '.length) }))
          : [CALLS[row.route]!];
      for (const call of calls) {
        for (const caller of CALLERS) {
          for (const which of ['own', 'other'] as const)
            cases.push({ row, call, caller, which, last: LAST.has(row.route) });
        }
      }
    }
    const ordered = [
      ...cases.filter((c) => !c.last),
      ...cases.filter((c) => c.last && c.caller !== 'admin'),
      ...cases.filter((c) => c.last && c.caller === 'admin'),
    ];
    const wrong: string[] = [];
    for (const c of ordered) {
      const ctx = contextFor(c.caller);
      const call = c.call(ctx, c.which);
      const status = await send(base, call, ctx.token);
      const expected = c.row.statuses[c.caller][c.which];
      if (status !== expected)
        wrong.push(`${call.method} ${call.url} as ${c.caller} (${c.which}): ${status}, documented ${expected}`);
    }
    expect(wrong).toEqual([]);
    expect(ordered.length).toBeGreaterThan(rows.length * CALLERS.length * 2 - 1);
  });
});

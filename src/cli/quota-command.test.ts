/**
 * `gpushare quota` and `gpushare quota set` run in-process (through commander) against a fake
 * server built with node:http.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sampleQuotaUse, sampleTenant } from '../adapters/http-client/testing/api-fixtures.js';
import {
  startFakeApiServer,
  type FakeApiServer,
  type FakeResponse,
  type RecordedRequest,
} from '../adapters/http-client/testing/fake-api-server.js';
import { runClientCli } from './testing/run-client-cli.js';

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(
  handler: (r: RecordedRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<{ env: Record<string, string>; server: FakeApiServer }> {
  server = await startFakeApiServer(handler);
  return { server, env: { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' } };
}

const QUOTAS = [
  sampleQuotaUse(),
  sampleQuotaUse({
    tenant: 'default',
    guaranteedGpuEquivalents: 0,
    limitGpuEquivalents: null,
    usedGpuEquivalents: 0.25,
    borrowedGpuEquivalents: 0.25,
    queuedGpuEquivalents: 0,
    runningJobs: 1,
    queuedJobs: 0,
  }),
  sampleQuotaUse({
    tenant: 'team-b',
    guaranteedGpuEquivalents: 3 / 7,
    limitGpuEquivalents: 1,
    usedGpuEquivalents: 0,
    borrowedGpuEquivalents: 0,
    queuedGpuEquivalents: 0,
    runningJobs: 0,
    queuedJobs: 0,
  }),
];

/** A fake server with tenants team-a and team-b that keeps the quotas it is given. */
function quotaServer(r: RecordedRequest): FakeResponse {
  const match = /^\/api\/v1\/tenants\/([^/]+)\/quota$/.exec(r.path);
  if (r.method === 'PUT' && match) {
    const name = decodeURIComponent(match[1]!);
    if (name !== 'team-a' && name !== 'team-b')
      return {
        status: 404,
        body: {
          error: {
            code: 'GPUSHARE_TENANT_NOT_FOUND',
            message: `tenant "${name}" not found (tenants: default, team-a, team-b)`,
          },
        },
      };
    return { status: 200, body: sampleTenant({ name, ...(r.body as object) }) };
  }
  if (r.method === 'GET' && r.path === '/api/v1/quotas') return { status: 200, body: { quotas: QUOTAS } };
  return { status: 404, body: { error: { code: 'NOPE', message: `no route ${r.method} ${r.path}` } } };
}

describe('gpushare quota', () => {
  it('prints each tenant\'s quota and use; "quota list" is the same; LIMIT none for no limit', async () => {
    const { env, server } = await serve(quotaServer);
    const table = [
      'TENANT   GUARANTEED  LIMIT  USED  BORROWED  QUEUED  RUNNING/QUEUED',
      'team-a   1           2      1.5   0.5       1       2/1',
      'default  0           none   0.25  0.25      0       1/0',
      'team-b   0.429       1      0     0         0       0/0',
      '',
    ].join('\n');
    expect(await runClientCli(['quota'], { env })).toEqual({ code: 0, stdout: table, stderr: '' });
    expect(await runClientCli(['quota', 'list'], { env })).toEqual({ code: 0, stdout: table, stderr: '' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/quotas', 'GET /api/v1/quotas']);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer gs_test');
  });

  it('-o json prints exactly the JSON array of the API\'s QuotaUse objects, with or without "list"', async () => {
    const { env } = await serve(quotaServer);
    for (const args of [
      ['quota', '-o', 'json'],
      ['quota', 'list', '-o', 'json'],
    ]) {
      const run = await runClientCli(args, { env });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(QUOTAS);
    }
  });

  it('takes --url and --token without "list"', async () => {
    const { server } = await serve(quotaServer);
    const run = await runClientCli(['quota', '--url', server.url, '--token', 'flagtok'], { env: {} });
    expect(run.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer flagtok');
  });

  it('says "no tenants" when the list is empty', async () => {
    const { env } = await serve(() => ({ status: 200, body: { quotas: [] } }));
    expect(await runClientCli(['quota'], { env })).toEqual({ code: 0, stdout: 'no tenants\n', stderr: '' });
  });

  it("is listed in the program's help", async () => {
    const run = await runClientCli(['quota', '--help'], { env: {} });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/list \[options\] +each tenant's quota and use/);
    expect(run.stdout).toMatch(/set \[options\] <tenant> +set a tenant's quota/);
  });
});

describe('gpushare quota set', () => {
  it.each([
    [
      ['--guaranteed', '1', '--limit', '2'],
      { guaranteedGpuEquivalents: 1, limitGpuEquivalents: 2 },
      'quota of tenant team-a: guaranteed 1, limit 2 (GPU-equivalents)\n',
    ],
    [
      ['--guaranteed', '0.5', '--limit', 'none'],
      { guaranteedGpuEquivalents: 0.5, limitGpuEquivalents: null },
      'quota of tenant team-a: guaranteed 0.5, limit none (GPU-equivalents)\n',
    ],
    [
      ['--guaranteed', '1.5'],
      { guaranteedGpuEquivalents: 1.5, limitGpuEquivalents: null },
      'quota of tenant team-a: guaranteed 1.5, limit none (GPU-equivalents)\n',
    ],
    [
      ['--guaranteed', '0', '--limit', '0'],
      { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 0 },
      'quota of tenant team-a: guaranteed 0, limit 0 (GPU-equivalents)\n',
    ],
    [
      ['--limit', '2', '--guaranteed', '2'],
      { guaranteedGpuEquivalents: 2, limitGpuEquivalents: 2 },
      'quota of tenant team-a: guaranteed 2, limit 2 (GPU-equivalents)\n',
    ],
  ])('quota set team-a %j sends %j (no --limit = no limit)', async (flags, body, stdout) => {
    const { env, server } = await serve(quotaServer);
    const run = await runClientCli(['quota', 'set', 'team-a', ...flags], { env });
    expect(run).toEqual({ code: 0, stdout, stderr: '' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/v1/tenants/team-a/quota']);
    expect(server.requests[0]?.body).toEqual(body);
  });

  it.each([
    [
      ['--guaranteed', '-1'],
      "--guaranteed: '-1' is not valid; expected a number of GPU-equivalents 0..1000000 (1 = one whole " +
        'GPU; e.g. 1, 0.5, 2.25)',
    ],
    [['--guaranteed', 'one'], "--guaranteed: 'one' is not valid"],
    [['--guaranteed', 'none'], "--guaranteed: 'none' is not valid"],
    [
      ['--guaranteed', '1', '--limit', 'lots'],
      "--limit: 'lots' is not valid; expected a number of GPU-equivalents 0..1000000 (1 = one whole GPU; " +
        'e.g. 1, 0.5, 2.25), or none for no limit',
    ],
    [['--guaranteed', '1', '--limit', '1e3'], "--limit: '1e3' is not valid"],
    [
      ['--guaranteed', '2', '--limit', '1.5'],
      'error: --limit 1.5 is below --guaranteed 2; the limit must be at least the guarantee, or none\n',
    ],
    [['--limit', '2'], "error: required option '--guaranteed <gpu-eq>' not specified"],
    [[], "error: required option '--guaranteed <gpu-eq>' not specified"],
  ])('quota set team-a %j exits 2 naming the flag, before calling the server', async (flags, message) => {
    const { env, server } = await serve(quotaServer);
    const run = await runClientCli(['quota', 'set', 'team-a', ...flags], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('needs a tenant (exit 2)', async () => {
    const run = await runClientCli(['quota', 'set', '--guaranteed', '1'], {
      env: { GPUSHARE_URL: 'http://127.0.0.1:1', GPUSHARE_TOKEN: 't' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'tenant'");
  });

  it("an unknown tenant (404) and a tenant token (403) exit 1 with the server's message", async () => {
    const { env } = await serve((r) =>
      r.headers.authorization === 'Bearer gs_tenant'
        ? { status: 403, body: { error: { code: 'GPUSHARE_FORBIDDEN', message: 'this needs an admin token' } } }
        : quotaServer(r),
    );
    expect(await runClientCli(['quota', 'set', 'nobody', '--guaranteed', '1'], { env })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: tenant "nobody" not found (tenants: default, team-a, team-b)\n',
    });
    expect(
      await runClientCli(['quota', 'set', 'team-a', '--guaranteed', '1'], {
        env: { ...env, GPUSHARE_TOKEN: 'gs_tenant' },
      }),
    ).toEqual({ code: 1, stdout: '', stderr: 'error: this needs an admin token\n' });
  });
});

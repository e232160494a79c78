import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, normalizeBaseUrl } from './api-client.js';
import { ApiError, ApiResponseError, ApiUnreachableError } from './api-errors.js';
import {
  sampleGpu,
  sampleJob,
  sampleJobDetail,
  sampleQuotaUse,
  sampleStatus,
  sampleTenant,
  sampleToken,
} from './testing/api-fixtures.js';
import {
  startFakeApiServer,
  unusedLocalUrl,
  type FakeApiServer,
  type FakeResponse,
  type RecordedRequest,
} from './testing/fake-api-server.js';

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(handler: (r: RecordedRequest) => FakeResponse) {
  server = await startFakeApiServer(handler);
  return { client: createApiClient({ url: server.url, token: 'gs_tok' }), server };
}

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:7070', 'http://127.0.0.1:7070'],
    ['http://127.0.0.1:7070/', 'http://127.0.0.1:7070'],
    ['http://127.0.0.1:7070/api/v1', 'http://127.0.0.1:7070'],
    ['https://gpus.example/prefix/api/v1/', 'https://gpus.example/prefix'],
    ['http://[::1]:7070', 'http://[::1]:7070'],
  ])('%s → %s', (url, base) => {
    expect(normalizeBaseUrl(url)).toBe(base);
  });

  it.each(['localhost:7070', 'ftp://host', 'not a url', 'http://h/?q=1'])('rejects %s', (url) => {
    expect(() => normalizeBaseUrl(url)).toThrow(/e\.g\. http:\/\/127\.0\.0\.1:7070/);
  });
});

describe('createApiClient', () => {
  it('submits a job with the bearer token and JSON body, and validates the 201 answer', async () => {
    const { client, server } = await clientFor(() => ({ status: 201, body: sampleJob() }));
    const job = await client.submitJob({ command: ['python', 'train.py'], gpu: { gpuMilli: 500 } });
    expect(job.id).toBe(12);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/v1/jobs');
    expect(request?.headers.authorization).toBe('Bearer gs_tok');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({ command: ['python', 'train.py'], gpu: { gpuMilli: 500 } });
  });

  it('sends list and log queries, and unwraps list answers', async () => {
    const { client, server } = await clientFor((r) => {
      if (r.path === '/api/v1/jobs') return { status: 200, body: { jobs: [sampleJob()] } };
      if (r.path === '/api/v1/gpus') return { status: 200, body: { gpus: [sampleGpu()] } };
      if (r.path === '/api/v1/tenants') return { status: 200, body: { tenants: [sampleTenant()] } };
      return { status: 200, body: { attempt: 2, text: 'hello\n', nextOffset: 6, ended: false } };
    });
    expect(await client.listJobs({ all: true, state: 'running' })).toHaveLength(1);
    expect(await client.listGpus()).toEqual([sampleGpu()]);
    expect((await client.listTenants())[0]?.name).toBe('team-a');
    expect(await client.getLogs(12, { stream: 'stderr', attempt: 2, offset: 10 })).toEqual({
      attempt: 2,
      text: 'hello\n',
      nextOffset: 6,
      ended: false,
    });
    expect(server.requests[0]?.query.toString()).toBe('all=true&state=running');
    expect(server.requests[3]?.path).toBe('/api/v1/jobs/12/logs');
    expect(server.requests[3]?.query.toString()).toBe('stream=stderr&attempt=2&offset=10');
  });

  it('calls every route with its method and path', async () => {
    const { client, server } = await clientFor((r) => {
      const bodies: Record<string, unknown> = {
        'GET /healthz': { status: 'ok' },
        'GET /api/v1/jobs/7': sampleJobDetail({ id: 7 }),
        'POST /api/v1/jobs/7/cancel': sampleJob({ id: 7, state: 'cancelled' }),
        'POST /api/v1/gpus/1/cordon': sampleGpu({ index: 1, cordoned: true }),
        'POST /api/v1/gpus/1/uncordon': sampleGpu({ index: 1 }),
        'POST /api/v1/tenants': sampleTenant({ name: 'team-b' }),
        'POST /api/v1/tokens': { ...sampleToken(), token: 'gs_new' },
        'POST /api/v1/drain': { draining: true, running: 2 },
        'POST /api/v1/backup': { path: '/tmp/b.db', bytes: 4096 },
        'GET /api/v1/status': sampleStatus(),
      };
      const body = bodies[`${r.method} ${r.path}`];
      return body === undefined
        ? { status: 404, body: { error: { code: 'NOPE', message: `no route ${r.path}` } } }
        : { status: r.method === 'POST' && r.path.endsWith('s') ? 201 : 200, body };
    });
    expect(await client.healthz()).toEqual({ status: 'ok' });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect((await client.getJob(7)).events).toHaveLength(3);
    expect((await client.cancelJob(7)).state).toBe('cancelled');
    expect((await client.cordonGpu(1)).cordoned).toBe(true);
    expect((await client.uncordonGpu(1)).cordoned).toBe(false);
    expect((await client.createTenant('team-b')).name).toBe('team-b');
    expect((await client.createToken({ tenant: 'team-b', label: 'ci' })).token).toBe('gs_new');
    expect(await client.drain()).toEqual({ draining: true, running: 2 });
    expect(await client.backup('/tmp/b.db')).toEqual({ path: '/tmp/b.db', bytes: 4096 });
    const status = await client.status();
    expect(status.you.role).toBe('admin');
    expect(status.checkpoint.method).toBe('signal');
    expect(server.requests.map((r) => r.body)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      { name: 'team-b' },
      { tenant: 'team-b', label: 'ci' },
      undefined,
      { path: '/tmp/b.db' },
      undefined,
    ]);
  });

  it('creates, lists, revokes and rotates tokens, sending only the fields given', async () => {
    const { client, server } = await clientFor((r) => {
      const bodies: Record<string, unknown> = {
        'POST /api/v1/tokens': {
          ...sampleToken({ role: 'viewer', expiresAt: '2025-01-31T00:00:00.000Z' }),
          token: 'gs_new',
        },
        'GET /api/v1/tokens': {
          tokens: [sampleToken({ id: 1, tenant: null, role: 'admin', self: true }), sampleToken()],
        },
        'POST /api/v1/tokens/3/revoke': sampleToken({ state: 'revoked', revokedAt: '2025-01-02T00:00:00.000Z' }),
        'POST /api/v1/tokens/3/rotate': {
          ...sampleToken({ rotatedAt: '2025-01-02T00:00:00.000Z' }),
          token: 'gs_rotated',
        },
      };
      const body = bodies[`${r.method} ${r.path}`];
      return body === undefined
        ? { status: 404, body: { error: { code: 'NOPE', message: `no route ${r.path}` } } }
        : { status: 200, body };
    });
    expect(await client.createToken({ tenant: 'team-b', role: 'viewer', expiresInSeconds: 3600 })).toMatchObject({
      role: 'viewer',
      token: 'gs_new',
    });
    expect((await client.listTokens()).map((t) => [t.id, t.role, t.self])).toEqual([
      [1, 'admin', true],
      [3, 'member', false],
    ]);
    expect((await client.revokeToken(3)).state).toBe('revoked');
    expect((await client.rotateToken(3)).token).toBe('gs_rotated');
    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/api/v1/tokens', { tenant: 'team-b', role: 'viewer', expiresInSeconds: 3600 }],
      ['GET', '/api/v1/tokens', undefined],
      ['POST', '/api/v1/tokens/3/revoke', undefined],
      ['POST', '/api/v1/tokens/3/rotate', undefined],
    ]);
  });

  it('sets a quota with PUT /tenants/:name/quota and lists quotas', async () => {
    const { client, server } = await clientFor((r) => {
      if (r.method === 'PUT' && r.path === '/api/v1/tenants/team-a/quota') {
        const body = r.body as { guaranteedGpuEquivalents: number; limitGpuEquivalents: number | null };
        return { status: 200, body: sampleTenant(body) };
      }
      if (r.method === 'GET' && r.path === '/api/v1/quotas')
        return {
          status: 200,
          body: { quotas: [sampleQuotaUse(), sampleQuotaUse({ tenant: 'team-b', limitGpuEquivalents: null })] },
        };
      return { status: 404, body: { error: { code: 'NOPE', message: `no route ${r.method} ${r.path}` } } };
    });
    expect(await client.setQuota('team-a', { guaranteedGpuEquivalents: 1.5, limitGpuEquivalents: null })).toEqual(
      sampleTenant({ guaranteedGpuEquivalents: 1.5, limitGpuEquivalents: null }),
    );
    expect(
      (await client.setQuota('team-a', { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 2 })).limitGpuEquivalents,
    ).toBe(2);
    const quotas = await client.listQuotas();
    expect(quotas.map((q) => [q.tenant, q.limitGpuEquivalents])).toEqual([
      ['team-a', 2],
      ['team-b', null],
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /api/v1/tenants/team-a/quota',
      'PUT /api/v1/tenants/team-a/quota',
      'GET /api/v1/quotas',
    ]);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer gs_tok');
    expect(server.requests.map((r) => r.body)).toEqual([
      { guaranteedGpuEquivalents: 1.5, limitGpuEquivalents: null },
      { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 2 },
      undefined,
    ]);
  });

  it(
    "setQuota rejects with the server's 404 for an unknown tenant and 400 for a limit below the " + 'guarantee',
    async () => {
      const { client } = await clientFor((r) =>
        r.path.includes('/nobody/')
          ? {
              status: 404,
              body: { error: { code: 'GPUSHARE_TENANT_NOT_FOUND', message: 'tenant "nobody" not found' } },
            }
          : {
              status: 400,
              body: {
                error: {
                  code: 'GPUSHARE_INVALID_FIELD',
                  message: 'limitGpuEquivalents must be at least guaranteedGpuEquivalents (or null for no limit)',
                },
              },
            },
      );
      await expect(
        client.setQuota('nobody', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: null }),
      ).rejects.toMatchObject({ status: 404, code: 'GPUSHARE_TENANT_NOT_FOUND' });
      const err = await client
        .setQuota('team-a', { guaranteedGpuEquivalents: 2, limitGpuEquivalents: 1 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        status: 400,
        message: 'limitGpuEquivalents must be at least guaranteedGpuEquivalents (or null for no limit)',
      });
    },
  );

  it('listQuotas throws ApiResponseError when an entry misses a field', async () => {
    const { client } = await clientFor(() => ({ status: 200, body: { quotas: [{ tenant: 'team-a' }] } }));
    await expect(client.listQuotas()).rejects.toThrow(/GET \/api\/v1\/quotas: quotas\.0\.guaranteedGpuEquivalents: /);
  });

  it('throws ApiError with the status, code and message of an error body', async () => {
    const { client } = await clientFor(() => ({
      status: 404,
      body: { error: { code: 'GPUSHARE_JOB_NOT_FOUND', message: 'job 99 not found', details: {} } },
    }));
    const err = await client.getJob(99).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'GPUSHARE_JOB_NOT_FOUND', message: 'job 99 not found' });
  });

  it("throws ApiError naming the route and status when the error body is not gpushare's", async () => {
    const { client } = await clientFor(() => ({ status: 502, body: 'Bad Gateway from proxy' }));
    const err = await client.listGpus().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502' });
    expect((err as Error).message).toBe('GET /api/v1/gpus failed with HTTP 502 Bad Gateway: Bad Gateway from proxy');
  });

  it("throws ApiError with the server's message for a 400 on logs (e.g. an attempt that does not exist)", async () => {
    const { client, server } = await clientFor(() => ({
      status: 400,
      body: { error: { code: 'GPUSHARE_INVALID_FIELD', message: 'job 12 has 1 attempt(s); attempt 5 does not exist' } },
    }));
    const err = await client.getLogs(12, { attempt: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      code: 'GPUSHARE_INVALID_FIELD',
      message: 'job 12 has 1 attempt(s); attempt 5 does not exist',
    });
    expect(server.requests[0]?.query.toString()).toBe('attempt=5');
  });

  it('exports the history as the CSV text the server answers, sending since and until', async () => {
    const csv = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\njob-1,0,0,1,500\n';
    const { client, server } = await clientFor((r) =>
      r.query.get('since') === '5'
        ? { status: 200, body: 'not csv', contentType: 'text/plain' }
        : { status: 200, body: csv, contentType: 'text/csv; charset=utf-8' },
    );
    expect(await client.exportHistory({ since: 1000, until: 2000 })).toBe(csv);
    expect(await client.exportHistory()).toBe(csv);
    expect(server.requests.map((r) => [r.path, r.query.toString(), r.headers.accept])).toEqual([
      ['/api/v1/history', 'since=1000&until=2000', 'text/csv'],
      ['/api/v1/history', '', 'text/csv'],
    ]);
    await expect(client.exportHistory({ since: 5 })).rejects.toThrow(
      new ApiResponseError('GET /api/v1/history', 'the body is text/plain, not text/csv'),
    );
  });

  it('throws ApiResponseError when a 2xx answer does not match the contract', async () => {
    const { client } = await clientFor(() => ({ status: 200, body: { jobs: [{ id: 'twelve' }] } }));
    await expect(client.listJobs()).rejects.toThrow(ApiResponseError);
    await expect(client.listJobs()).rejects.toThrow(
      /unexpected answer from the server to GET \/api\/v1\/jobs: jobs\.0\.id: /,
    );
  });

  it('throws ApiUnreachableError naming the URL when the connection is refused', async () => {
    const url = await unusedLocalUrl();
    const err = await createApiClient({ url, token: 't' })
      .status()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiUnreachableError);
    expect((err as Error).message).toBe(
      `cannot reach the gpushare server at ${url}: connection refused (is \`gpushare serve\` running?)`,
    );
  });

  it('throws ApiUnreachableError when the server does not answer in time', async () => {
    server = await startFakeApiServer(
      () =>
        new Promise<FakeResponse>((resolve) =>
          setTimeout(() => resolve({ status: 200, body: { status: 'ok' } }), 2_000),
        ),
    );
    const client = createApiClient({ url: server.url, token: 't', timeoutMs: 100 });
    await expect(client.healthz()).rejects.toThrow(
      `cannot reach the gpushare server at ${server.url}: no answer within 0.1 s`,
    );
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ status: 'ok' }), { status: 200 });
    };
    await createApiClient({ url: 'http://example.invalid:1/', token: 't', fetch: fakeFetch }).healthz();
    expect(calls).toEqual(['http://example.invalid:1/healthz']);
  });
});

/**
 * `GET /api/v1/jobs` on a real server (in process, listening on 127.0.0.1, a real SQLite store,
 * one simulated GPU, cordoned so that submitted jobs wait as `pending`): the selectors (state,
 * tenant, name, since), paging (limit, after, nextAfter), fields, the table view, their 400s, and
 * the tenant rule.
 * Every 200 answer is checked against the route's response schema.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../../config/server-config.js';
import { JOB_STATES } from '../../../core/index.js';
import { JOB_FIELDS } from '../../../contract/job-fields.js';
import { JobPageSchema, JobTablePageSchema } from '../../../contract/job-list.js';
import { JOB_TABLE_COLUMNS, jobTableRow, type TableJob } from '../../../contract/job-table.js';
import { startServer, type RunningServer } from '../../../main/serve.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are checked field by field */

describe('GET /api/v1/jobs: selectors, pages and fields', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-jobs-list-'));
  let server: RunningServer;
  let admin: string;
  let teamToken: string;
  /** Ids by name. */
  const ids: Record<string, number> = {};
  /** An ISO time after the first three submits and before the last two. */
  let between = '';
  const call = async (
    method: string,
    path: string,
    body: unknown,
    token: string,
  ): Promise<{ status: number; body: any }> => {
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
  /** A 200 listing, checked against the schema. */
  const list = async (query: string, token = admin): Promise<{ jobs: any[]; nextAfter: number | null }> => {
    const answer = await call('GET', `/api/v1/jobs${query}`, undefined, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // What the route's zod serializer would have sent: nothing stripped, nothing changed.
    expect(JobPageSchema.parse(answer.body)).toStrictEqual(answer.body);
    return answer.body;
  };
  const names = (page: { jobs: any[] }): string[] => page.jobs.map((j) => j.name as string);
  const refusal = async (query: string): Promise<string> => {
    const answer = await call('GET', `/api/v1/jobs${query}`, undefined, admin);
    expect(answer.status).toBe(400);
    return answer.body.error.message as string;
  };
  const submit = async (tenant: string, name: string): Promise<void> => {
    const answer = await call(
      'POST',
      '/api/v1/jobs',
      { command: ['sleep', '30'], workingDirectory: '/tmp', tenant, name, gpu: { gpuMilli: 500 } },
      admin,
    );
    expect(answer.status).toBe(201);
    ids[name] = answer.body.id;
  };

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
    teamToken = (await call('POST', '/api/v1/tokens', { tenant: 'team-a', role: 'viewer' }, admin)).body.token;
    await submit('default', 'train-1');
    await submit('team-a', 'train-a1');
    await submit('default', 'eval-1');
    // The next submits are at least 1 ms later than `between` (bounded wait on the clock).
    const mark = Date.now();
    for (let i = 0; i < 1_000_000 && Date.now() <= mark; i++) await new Promise((resolve) => setImmediate(resolve));
    between = new Date(Date.now()).toISOString();
    for (let i = 0; i < 1_000_000 && Date.now() <= Date.parse(between); i++)
      await new Promise((resolve) => setImmediate(resolve));
    await submit('team-a', 'train-a2');
    await submit('default', 'train-2');
    expect((await call('POST', `/api/v1/jobs/${ids['eval-1']}/cancel`, undefined, admin)).status).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists active jobs by ascending id with every field and no next page; all=true adds finished ones', async () => {
    const page = await list('');
    expect(names(page)).toEqual(['train-1', 'train-a1', 'train-a2', 'train-2']);
    expect(page.nextAfter).toBeNull();
    expect(Object.keys(page.jobs[0]).sort()).toEqual([...JOB_FIELDS].sort());
    expect(names(await list('?all=true'))).toEqual(['train-1', 'train-a1', 'eval-1', 'train-a2', 'train-2']);
  });

  it('selects by one or several states, and refuses an unknown one naming state and the allowed values', async () => {
    expect(names(await list('?state=cancelled'))).toEqual(['eval-1']);
    expect(names(await list('?state=cancelled,pending&all=false'))).toEqual([
      'train-1',
      'train-a1',
      'eval-1',
      'train-a2',
      'train-2',
    ]);
    expect(names(await list('?state=running'))).toEqual([]);
    const message = await refusal('?state=pending,bogus');
    expect(message).toContain('state');
    expect(message).toContain(JOB_STATES.join(', '));
    expect(message).toContain('"bogus"');
  });

  it('selects by tenant, name pattern and submit time, combined', async () => {
    expect(names(await list('?tenant=team-a'))).toEqual(['train-a1', 'train-a2']);
    expect(names(await list('?name=train-*'))).toEqual(['train-1', 'train-a1', 'train-a2', 'train-2']);
    expect(names(await list('?name=train-a*&all=true'))).toEqual(['train-a1', 'train-a2']);
    expect(names(await list('?name=*-1&all=true'))).toEqual(['train-1', 'eval-1']);
    expect(names(await list('?name=train'))).toEqual([]);
    expect(names(await list(`?since=${encodeURIComponent(between)}&all=true`))).toEqual(['train-a2', 'train-2']);
    expect(names(await list(`?since=${encodeURIComponent(between)}&tenant=default&name=train-*`))).toEqual(['train-2']);
    expect(names(await list(`?since=${encodeURIComponent('2000-01-01T01:00:00+01:00')}`))).toHaveLength(4);
    expect(await refusal('?since=yesterday')).toContain('since');
    expect(await refusal('?since=2025-01-01T00:00:00')).toContain('since: must be an ISO 8601 time with a zone');
    expect(await refusal('?tenant=Not_A_Tenant')).toContain('tenant');
  });

  it('pages with limit and after: nextAfter is the last id while more jobs match, then null', async () => {
    const first = await list('?all=true&limit=2');
    expect(names(first)).toEqual(['train-1', 'train-a1']);
    expect(first.nextAfter).toBe(ids['train-a1']);
    const second = await list(`?all=true&limit=2&after=${first.nextAfter}`);
    expect(names(second)).toEqual(['eval-1', 'train-a2']);
    expect(second.nextAfter).toBe(ids['train-a2']);
    const last = await list(`?all=true&limit=2&after=${second.nextAfter}`);
    expect(names(last)).toEqual(['train-2']);
    expect(last.nextAfter).toBeNull();
    // A page exactly as long as what is left has no next page.
    expect((await list(`?all=true&limit=1&after=${second.nextAfter}`)).nextAfter).toBeNull();
    expect(await refusal('?limit=0')).toContain('limit');
    expect(await refusal('?limit=5001')).toContain('limit');
    expect(await refusal('?after=-1')).toContain('after');
  });

  it(
    'returns only the chosen fields (and id), in JobSchema order; refuses an unknown field naming ' +
      'the allowed ones',
    async () => {
      const page = await list('?fields=state,name&limit=1');
      expect(page.jobs).toEqual([{ id: ids['train-1'], name: 'train-1', state: 'pending' }]);
      expect(Object.keys(page.jobs[0])).toEqual(['id', 'name', 'state']);
      expect((await list('?fields=id')).jobs.map((j) => Object.keys(j))).toEqual([['id'], ['id'], ['id'], ['id']]);
      const message = await refusal('?fields=name,secret');
      expect(message).toContain('fields');
      expect(message).toContain(JOB_FIELDS.join(', '));
    },
  );

  it(
    "shows a tenant token only its own tenant's jobs; another tenant is an empty page, like a tenant " + 'without jobs',
    async () => {
      expect(names(await list('', teamToken))).toEqual(['train-a1', 'train-a2']);
      expect(names(await list('?tenant=team-a&limit=1', teamToken))).toEqual(['train-a1']);
      expect(await list('?tenant=default', teamToken)).toEqual({ jobs: [], nextAfter: null });
      expect(await list('?tenant=no-such-tenant', teamToken)).toEqual({ jobs: [], nextAfter: null });
      expect(await list('?tenant=no-such-tenant')).toEqual({ jobs: [], nextAfter: null });
    },
  );

  it(
    'view=table: the rows of the same jobs as the listing, as jobTableRow writes them, with the same ' +
      'selectors, pages and tenant rule; not with fields',
    async () => {
      const table = async (query: string, token = admin): Promise<any> => {
        const answer = await call('GET', `/api/v1/jobs?view=table${query}`, undefined, token);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(JobTablePageSchema.parse(answer.body)).toStrictEqual(answer.body);
        return answer.body;
      };
      const before = Date.now();
      const page = await table('&all=true&limit=3');
      const after = Date.now();
      const jobs = (await list('?all=true&limit=3')).jobs as TableJob[];
      expect(page.columns).toEqual([...JOB_TABLE_COLUMNS]);
      expect(page.nextAfter).toBe(ids['eval-1']);
      expect(page.rows.map((row: string[]) => row[0])).toEqual(
        [ids['train-1'], ids['train-a1'], ids['eval-1']].map(String),
      );
      // Ages come from the server's clock while it answered: each row is the row at one of the two reads of this one.
      page.rows.forEach((row: string[], i: number) =>
        expect([jobTableRow(jobs[i]!, before), jobTableRow(jobs[i]!, after)]).toContainEqual(row),
      );
      expect(page.rows[2]).toEqual([
        String(ids['eval-1']),
        'eval-1',
        'default',
        'cancelled',
        '0.5 × 1',
        'auto',
        expect.stringMatching(/^\d+s {2}cancelled by /),
      ]);
      expect((await table(`&all=true&after=${page.nextAfter}`)).rows.map((row: string[]) => row[1])).toEqual([
        'train-a2',
        'train-2',
      ]);
      expect((await table('', teamToken)).rows.map((row: string[]) => row[1])).toEqual(['train-a1', 'train-a2']);
      expect(await table('&tenant=default', teamToken)).toEqual({
        columns: [...JOB_TABLE_COLUMNS],
        rows: [],
        nextAfter: null,
      });
      const refused = await call('GET', '/api/v1/jobs?view=table&fields=name', undefined, admin);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toEqual({
        code: 'GPUSHARE_INVALID_FIELD',
        message: 'fields: not with view=table: the table has its own columns',
        details: { field: 'fields' },
      });
      expect(await refusal('?view=tables')).toContain('view');
    },
  );
});

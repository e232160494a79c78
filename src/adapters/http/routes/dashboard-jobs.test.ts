/**
 * `GET /api/v1/dashboard/jobs` on a real HTTP server on 127.0.0.1 (in process, over a plane kit:
 * one simulated A100, no job processes): name patterns, states, tenants and pages, the count of all
 * matches, the order (active by ascending id, then ended newest first), a tenant token's view, and
 * 400s naming the field.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, tokenDigest } from '../../../app/auth/tokens.js';
import { planeKit, type PlaneKit } from '../../../app/testing/plane-kit.js';
import { buildServer } from '../build-server.js';
import { kitServices } from '../testing/kit-services.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- bodies are checked field by field */

describe('GET /api/v1/dashboard/jobs', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  let base: string;
  let memberToken: string;
  const get = async (query: string, token = kit.adminToken): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${base}/api/v1/dashboard/jobs${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.json() };
  };
  const ids = (body: any): number[] => body.jobs.map((j: any) => j.id);

  beforeAll(async () => {
    kit = await planeKit('1xA100-80GB');
    for (const name of ['team-a', 'team-b']) kit.admin.createTenant(kit.adminPrincipal, name);
    const job = (name: string, tenant: string, gpuMilli: number) =>
      kit.submit({ command: ['/bin/true'], workingDirectory: '/tmp', name, tenant, gpu: { gpuMilli } }).id;
    // 1 runs (the whole GPU), 2 is cancelled, 3-5 wait behind 1, 6 is cancelled after them.
    job('train-1', 'team-a', 1000);
    await kit.settle();
    job('old-train', 'team-a', 1000);
    await kit.jobs.cancel(kit.adminPrincipal, 2);
    job('train-2', 'team-a', 1000);
    job('eval-3', 'team-b', 1000);
    job('train-eval-4', 'team-b', 1000);
    job('eval-5', 'team-b', 1000);
    await kit.jobs.cancel(kit.adminPrincipal, 6);
    await kit.settle();
    memberToken = generateToken();
    kit.store.createToken({
      digest: tokenDigest(memberToken),
      role: 'member',
      tenant: 'team-a',
      label: 'alice',
      createdAtMs: kit.clock.nowMs(),
    });
    app = await buildServer(kitServices(kit), { logInternalError: (error) => console.error('INTERNAL', error) });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app?.close();
    await kit?.plane.stop();
  });

  it('lists every job the admin may see: active by ascending id, then ended newest first, with the count', async () => {
    const all = await get('');
    expect(all.status).toBe(200);
    expect([all.body.total, all.body.unfiltered, all.body.offset, all.body.limit, ids(all.body)]).toEqual([
      6,
      6,
      0,
      50,
      [1, 3, 4, 5, 6, 2],
    ]);
    expect(all.body.jobs.map((j: any) => `${j.name} ${j.state}`)).toEqual([
      'train-1 running',
      'train-2 pending',
      'eval-3 pending',
      'train-eval-4 pending',
      'eval-5 cancelled',
      'old-train cancelled',
    ]);
  });

  it('filters by whole-name pattern, states and tenant, together', async () => {
    expect(ids((await get('?name=train-*')).body)).toEqual([1, 3, 5]);
    expect(ids((await get('?name=eval-3')).body)).toEqual([4]);
    expect(ids((await get('?name=eval')).body)).toEqual([]); // whole name: no job is named "eval"
    expect(ids((await get(`?name=${encodeURIComponent('*eval*')}`)).body)).toEqual([4, 5, 6]);
    expect(ids((await get('?states=pending,preempted')).body)).toEqual([3, 4, 5]);
    expect(ids((await get('?states=cancelled')).body)).toEqual([6, 2]);
    expect(ids((await get('?tenant=team-b')).body)).toEqual([4, 5, 6]);
    const combined = await get(`?name=${encodeURIComponent('*eval*')}&states=pending&tenant=team-b`);
    expect([combined.body.total, combined.body.unfiltered, ids(combined.body)]).toEqual([2, 6, [4, 5]]);
    expect((await get('?tenant=default')).body).toEqual({ total: 0, unfiltered: 6, offset: 0, limit: 50, jobs: [] });
  });

  it('pages with offset and limit; the count stays that of every match', async () => {
    const page = await get('?limit=2&offset=1');
    expect([page.body.total, page.body.offset, page.body.limit, ids(page.body)]).toEqual([6, 1, 2, [3, 4]]);
    expect(ids((await get('?limit=2&offset=4')).body)).toEqual([6, 2]);
    expect((await get('?offset=6')).body).toMatchObject({ total: 6, jobs: [] });
  });

  it('shows a tenant token its own jobs only, and refuses another tenant by name', async () => {
    const own = await get('', memberToken);
    expect([own.status, own.body.total, own.body.unfiltered, ids(own.body)]).toEqual([200, 3, 3, [1, 3, 2]]);
    const trains = await get('?tenant=team-a&name=train-*', memberToken);
    expect([trains.body.total, trains.body.unfiltered, ids(trains.body)]).toEqual([2, 3, [1, 3]]);
    const other = await get('?tenant=team-b', memberToken);
    expect([other.status, other.body.error.code, other.body.error.message]).toEqual([
      403,
      'GPUSHARE_FORBIDDEN',
      'this member token belongs to tenant "team-a" and sees only its jobs; tenant "team-b" needs an admin token',
    ]);
  });

  it('answers bad input with a 400 naming the field', async () => {
    const cases: [string, string][] = [
      [
        '?states=pending,bogus',
        'querystring.states: a comma-separated list of job states (allowed: pending, scheduled, running, ' +
          'preempted, succeeded, failed, cancelled)',
      ],
      [
        '?states=',
        'querystring.states: a comma-separated list of job states (allowed: pending, scheduled, running, ' +
          'preempted, succeeded, failed, cancelled)',
      ],
      ['?name=', 'querystring.name: a name pattern has 1 to 256 characters'],
      [`?name=${'x'.repeat(257)}`, 'querystring.name: a name pattern has 1 to 256 characters'],
      [
        '?limit=0',
        'querystring.limit: must be a decimal integer 1-500 (digits only, no sign, spaces or leading ' +
          'zeros); the most jobs of the page (default 50)',
      ],
      [
        '?limit=501',
        'querystring.limit: must be a decimal integer 1-500 (digits only, no sign, spaces or leading ' +
          'zeros); the most jobs of the page (default 50)',
      ],
      [
        '?offset=-1',
        'querystring.offset: must be a decimal integer 0-10000000 (digits only, no sign, spaces or ' +
          'leading zeros); matching jobs to skip (default 0)',
      ],
      [
        '?tenant=Team_B',
        'querystring.tenant: tenant names are 1-63 characters: lower-case letters, digits and "-", ' +
          'starting with a letter or digit',
      ],
    ];
    for (const [query, message] of cases) {
      const answer = await get(query);
      expect([query, answer.status, answer.body.error.code, answer.body.error.message]).toEqual([
        query,
        400,
        'GPUSHARE_INVALID_FIELD',
        message,
      ]);
    }
    const unknown = await get('?page=2');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'GPUSHARE_INVALID_FIELD']);
    expect(unknown.body.error.message).toContain('page');
  });
});

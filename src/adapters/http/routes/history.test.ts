/**
 * `GET /api/v1/history` in process over a plane kit: the CSV of the jobs that ran, as text/csv,
 * a tenant's token sees its own tenant's, the query is checked, and /openapi.json declares the
 * answer as text/csv (errors stay JSON).
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateToken, tokenDigest } from '../../../app/auth/tokens.js';
import { planeKit, type PlaneKit } from '../../../app/testing/plane-kit.js';
import { buildServer } from '../build-server.js';
import { kitServices } from '../testing/kit-services.js';
import { epochSeconds } from '../../../contract/history.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is checked field by field */

describe('GET /api/v1/history', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  const get = (url: string, token = kit.adminToken) =>
    app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  beforeEach(async () => {
    kit = await planeKit('2xA10');
    app = await buildServer(kitServices(kit));
  });
  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
  });

  it("answers the jobs that ran as text/csv; a tenant's token gets its own tenant's", async () => {
    kit.store.createTenant('team-a', kit.clock.nowMs());
    const submitted = kit.clock.nowMs();
    const a = kit.submit({ command: ['a'], workingDirectory: '/work', gpu: { gpuMilli: 500 }, tenant: 'team-a' });
    const b = kit.submit({ command: ['b'], workingDirectory: '/work', gpu: { gpuCount: 1 } });
    await kit.advance(1000);
    const started = kit.store.getJob(a.id)!.startedAtMs!;
    await kit.advance(9000);
    kit.launcher.exit(a.id, { exitCode: 0 });
    kit.launcher.exit(b.id, { exitCode: 1 });
    await kit.advance(1000);
    expect([kit.store.getJob(a.id)?.state, kit.store.getJob(b.id)?.state]).toEqual(['succeeded', 'failed']);
    // One attempt: it ends when the job does, when its process exited, 9 s of the manual clock after its start.
    const ended = kit.store.getJob(a.id)!.endedAtMs!;
    expect(ended - started).toBe(9_000);

    const all = await get('/api/v1/history');
    expect([all.statusCode, all.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
    const lines = all.body.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe(
      `a-${a.id},0,0,1,500,,,${epochSeconds(submitted)},${epochSeconds(started)},${epochSeconds(ended)},team-a,` +
        `500,${kit.store.getJob(a.id)!.placement!.mode},0,,`,
    );
    expect(lines[2]!.split(',').slice(0, 5)).toEqual([`b-${b.id}`, '0', '0', '1', '1000']);

    const token = generateToken();
    kit.store.createToken({ digest: tokenDigest(token), role: 'viewer', tenant: 'team-a', label: 'v', createdAtMs: 0 });
    const own = await get('/api/v1/history', token);
    expect(
      own.body
        .trimEnd()
        .split('\n')
        .map((l) => l.split(',')[0]),
    ).toEqual(['name', `a-${a.id}`]);
    const none = await get(`/api/v1/history?since=${submitted + 1}`);
    expect(none.body.trimEnd().split('\n')).toHaveLength(1);
  });

  it('refuses a malformed query as JSON, naming the field', async () => {
    const bad = await get('/api/v1/history?since=-1');
    expect([bad.statusCode, bad.headers['content-type'], bad.json().error.code]).toEqual([
      400,
      'application/json; charset=utf-8',
      'GPUSHARE_INVALID_FIELD',
    ]);
    expect(bad.json().error.message).toMatch(/^querystring\.since: must be a decimal integer/);
    expect((await get('/api/v1/history?from=1')).statusCode).toBe(400);
  });

  it('is declared as text/csv in /openapi.json, its errors as JSON', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const responses = doc.paths['/api/v1/history'].get.responses;
    expect(Object.keys(responses['200'].content)).toEqual(['text/csv']);
    expect(responses['200'].content['text/csv'].schema.type).toBe('string');
    expect(Object.keys(responses['4XX'].content)).toEqual(['application/json']);
    expect(doc.paths['/api/v1/history'].get.parameters.map((p: any) => p.name)).toEqual(['since', 'until']);
    expect(Object.keys(doc.paths['/api/v1/jobs'].get.responses['200'].content)).toEqual(['application/json']);
  });
});

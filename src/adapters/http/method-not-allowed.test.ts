/**
 * 405 with `Allow` for the methods an API path does not serve (method-not-allowed.ts), through the
 * real server's routes with Fastify's `inject`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';

describe('methods a path does not serve', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  let routes: string[];

  beforeAll(async () => {
    kit = await planeKit('1xA10');
    routes = [];
    app = await buildServer(kitServices(kit), { onRoute: (route) => routes.push(`${route.method} ${route.url}`) });
  });

  afterAll(async () => {
    await app.close();
    await kit.plane.stop();
  });

  it.each([
    ['TRACE', '/api/v1/jobs', 'GET, HEAD, POST'],
    ['DELETE', '/api/v1/jobs/7', 'GET, HEAD'],
    ['PATCH', '/api/v1/gpus/0/cordon', 'POST'],
    ['QUERY', '/api/v1/jobs/7/cancel', 'POST'],
    ['OPTIONS', '/api/v1/tenants/acme/quota', 'PUT'],
    ['GET', '/api/v1/backup', 'POST'],
  ] as const)('%s %s is 405 with Allow: %s, before any body is read', async (method, url, allow) => {
    // A body that is not JSON under a type no parser reads: the answer is still 405.
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${kit.adminToken}`, 'content-type': 'text/plain' },
      payload: 'not json',
    });
    expect([response.statusCode, response.headers.allow]).toEqual([405, allow]);
    expect(response.json()).toEqual({
      error: {
        code: 'GPUSHARE_METHOD_NOT_ALLOWED',
        message: `${method} is not served here; this path serves ${allow}`,
        details: { method, allowed: allow.split(', ') },
      },
    });
  });

  it('asks for a token first: 401 without one', async () => {
    const response = await app.inject({ method: 'TRACE', url: '/api/v1/jobs' });
    expect([response.statusCode, response.json().error.code]).toEqual([401, 'GPUSHARE_UNAUTHENTICATED']);
  });

  it('keeps 404 for a path no route serves', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/no-such-thing',
      headers: { authorization: `Bearer ${kit.adminToken}` },
    });
    expect([response.statusCode, response.json().error.code]).toEqual([404, 'GPUSHARE_NOT_FOUND']);
  });

  it('tells onRoute only the routes the server serves', () => {
    expect(routes.filter((route) => route.startsWith('TRACE '))).toEqual([]);
    expect(routes).toContain('POST /api/v1/jobs');
  });
});

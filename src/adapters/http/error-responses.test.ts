/**
 * `registerErrorResponses` on a bare Fastify app with the zod type provider and the OpenAPI
 * plugin, as build-server.ts sets them up: documented routes get `4XX`, `5XX` and the named
 * statuses with the error body, a route's own error entry wins, hidden routes and routes without a
 * response schema stay as they are, and an error answer passes through the error schema unchanged.
 */
import swagger from '@fastify/swagger';
import fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forbidden } from '../../app/errors.js';
import { registerErrorHandler } from './error-handler.js';
import { registerErrorResponses } from './error-responses.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is read as plain JSON */

async function appWithRoutes(): Promise<FastifyInstance> {
  const app = fastify().withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerErrorResponses(app);
  await app.register(swagger, { openapi: { info: { title: 't', version: '1' } }, transform: jsonSchemaTransform });
  app.get('/documented', { schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async () => {
    throw forbidden('not you');
  });
  app.post(
    '/things/:id',
    { schema: { body: z.object({ n: z.number() }), response: { 200: z.object({ ok: z.boolean() }) } } },
    async () => ({ ok: true }),
  );
  app.get(
    '/own-404',
    { schema: { response: { 200: z.object({ ok: z.boolean() }), 404: z.object({ missing: z.string() }) } } },
    async () => ({ ok: true }),
  );
  app.get('/hidden', { schema: { hide: true, response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({
    ok: true,
  }));
  app.get('/no-response-schema', { schema: {} }, async () => ({ ok: true }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return app;
}

describe('registerErrorResponses', () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  it("declares 4XX, 5XX and the named statuses on documented routes only, keeping a route's own entries", async () => {
    app = await appWithRoutes();
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as any;
    expect(Object.keys(spec.paths).sort()).toEqual(['/documented', '/no-response-schema', '/own-404', '/things/{id}']);
    expect(Object.keys(spec.paths['/documented'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '429',
      '4XX',
      '5XX',
    ]);
    // A path parameter adds 404, a body 413 and 415.
    expect(Object.keys(spec.paths['/things/{id}'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '4XX',
      '5XX',
    ]);
    expect(spec.paths['/documented'].get.responses['401'].description).toMatch(/GPUSHARE_UNAUTHENTICATED$/);
    const error = spec.paths['/documented'].get.responses['4XX'].content['application/json'].schema;
    expect([error.required, error.properties.error.required, Object.keys(error.properties.error.properties)]).toEqual([
      ['error'],
      ['code', 'message'],
      ['code', 'message', 'details'],
    ]);
    expect(spec.paths['/documented'].get.responses['5XX'].description).toMatch(/^the server could not do it/);
    expect(Object.keys(spec.paths['/own-404'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '4XX',
      '5XX',
    ]);
    expect(
      Object.keys(spec.paths['/own-404'].get.responses['404'].content['application/json'].schema.properties),
    ).toEqual(['missing']);
    expect(Object.keys(spec.paths['/no-response-schema'].get.responses)).toEqual(['200']);
  });

  it('sends an error answer through the error schema unchanged', async () => {
    app = await appWithRoutes();
    const answer = await app.inject({ method: 'GET', url: '/documented' });
    expect([answer.statusCode, answer.json()]).toEqual([
      403,
      { error: { code: 'GPUSHARE_FORBIDDEN', message: 'not you' } },
    ]);
  });
});

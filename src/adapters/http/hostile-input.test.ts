/**
 * Hostile and careless input at the HTTP API, in process (inject over a control plane on in-memory
 * adapters): every refusal is a 4xx in the API's own format that names the field and says what is
 * allowed, and nothing is stored (docs/security.md "Hostile input").
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageHistory } from '../../app/services/usage-history.js';
import { QosService } from '../../app/qos/qos-service.js';
import { planeKit, type PlaneKit } from '../../app/testing/plane-kit.js';
import { buildServer } from './build-server.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NAME_RULE =
  'must be 1-200 printable characters, not only spaces, without control characters (U+0000-U+001F, ' +
  'U+007F-U+009F), bidirectional and line-separator controls (U+061C, U+200E, U+200F, U+2028, U+2029, ' +
  'U+202A-U+202E, U+2066-U+2069), invisible format characters (U+00AD, U+180E, U+200B-U+200D, ' +
  'U+2060-U+2064, U+FEFF) or lone surrogates';
const INDEX_RULE =
  'params.index: must be a decimal integer 0-1000000 (digits only, no sign, spaces or leading zeros); ' +
  'the GPU index (see GET /gpus)';
const ID_RULE =
  'params.id: must be a decimal integer 1-9007199254740991 (digits only, no sign, spaces or leading zeros); the job id';

describe('hostile input at the HTTP API', () => {
  let kit: PlaneKit;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  const internalErrors: Array<{ message: string; method: string; url: string }> = [];
  const send = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    payload?: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: any }> => {
    const response = await app.inject({
      method,
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: response.json() };
  };
  const cordoned = async (): Promise<boolean[]> =>
    (await send('GET', '/api/v1/gpus')).body.gpus.map((g: any) => g.cordoned);
  const json = (method: 'POST' | 'PUT', url: string, body: unknown) =>
    send(method, url, JSON.stringify(body), { 'content-type': 'application/json' });

  beforeEach(async () => {
    kit = await planeKit('2xA10');
    internalErrors.length = 0;
    app = await buildServer(
      {
        plane: kit.plane,
        jobs: kit.jobs,
        admin: kit.admin,
        version: '9.9.9',
        usageHistory: new UsageHistory(60_000),
        onDrained: () => undefined,
        status: () => {
          throw new Error('status broke: /secret/path');
        },
        dashboard: () => ({}) as never,
        dashboardJobs: () => ({}) as never,
        qos: new QosService(kit.plane, kit.store, kit.clock, silent),
      },
      {
        logInternalError: (error, request) =>
          internalErrors.push({ message: error.message, method: request.method, url: request.url }),
      },
    );
    auth = { authorization: `Bearer ${kit.adminToken}` };
  });

  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
  });

  it.each([
    ['ESC (a terminal escape code)', 'ok\u001b[2J', 'got U+001B at character 3'],
    ['NUL', 'a\u0000b', 'got U+0000 at character 2'],
    ['a newline (a forged row)', 'a\n9  forged', 'got U+000A at character 2'],
    ['DEL', 'x\u007f', 'got U+007F at character 2'],
    ['a C1 CSI', '\u009b31m', 'got U+009B at character 1'],
    ['a right-to-left override', 'abc\u202etxt.exe', 'got U+202E at character 4'],
    ['a bidi isolate', '\u2066x', 'got U+2066 at character 1'],
    ['only spaces', '   ', 'got only white space'],
    ['nothing', '', 'got an empty text'],
    ['201 characters', 'n'.repeat(201), 'got 201 characters'],
  ])(
    'refuses a job name with %s: 400 naming body.name and what is allowed, nothing stored',
    async (_what, name, got) => {
      const response = await json('POST', '/api/v1/jobs', { command: ['train'], workingDirectory: '/work', name });
      expect([response.status, response.body.error.code, response.body.error.message]).toEqual([
        400,
        'GPUSHARE_INVALID_FIELD',
        `body.name: ${NAME_RULE}: ${got}`,
      ]);
      expect(kit.store.listJobs({})).toEqual([]);
    },
  );

  it('takes a name of printable text, spaces inside and around, and non-Latin letters', async () => {
    const response = await json('POST', '/api/v1/jobs', {
      command: ['train'],
      workingDirectory: '/work',
      name: ' Résumé 学习 run ',
    });
    expect([response.status, response.body.name]).toEqual([201, ' Résumé 学习 run ']);
  });

  it.each([
    ['NUL', 'ci\u0000', 'got U+0000 at character 3'],
    ['ESC', '\u001b]0;pwned\u0007', 'got U+001B at character 1'],
    ['only spaces', '  ', 'got only white space'],
  ])('refuses a token label with %s: 400 naming body.label, no token made', async (_what, label, got) => {
    await json('POST', '/api/v1/tenants', { name: 'team-a' });
    const response = await json('POST', '/api/v1/tokens', { tenant: 'team-a', label });
    expect([response.status, response.body.error.message]).toEqual([400, `body.label: ${NAME_RULE}: ${got}`]);
    // Nothing was stored: the next token gets the id after the admin's (1).
    const next = await json('POST', '/api/v1/tokens', { tenant: 'team-a', label: 'ci runner' });
    expect([next.status, next.body.id, next.body.label]).toEqual([201, 2, 'ci runner']);
  });

  it('refuses a tenant name with an escape code, in a body and in a path', async () => {
    const created = await json('POST', '/api/v1/tenants', { name: 'a\u001bb' });
    const rule =
      'tenant names are 1-63 characters: lower-case letters, digits and "-", starting with a letter or digit';
    expect([created.status, created.body.error.message]).toEqual([400, `body.name: ${rule}`]);
    const quota = await json('PUT', '/api/v1/tenants/a%1Bb/quota', {
      guaranteedGpuEquivalents: 1,
      limitGpuEquivalents: null,
    });
    expect([quota.status, quota.body.error.message]).toEqual([400, `params.name: ${rule}`]);
  });

  it.each([
    ['/api/v1/gpus//cordon', INDEX_RULE],
    ['/api/v1/gpus/%20/cordon', INDEX_RULE],
    ['/api/v1/gpus/0x1/cordon', INDEX_RULE],
    ['/api/v1/gpus/1e0/cordon', INDEX_RULE],
    ['/api/v1/gpus/+1/cordon', INDEX_RULE],
    ['/api/v1/gpus/01/cordon', INDEX_RULE],
    ['/api/v1/gpus/-1/uncordon', INDEX_RULE],
    ['/api/v1/gpus/1.0/uncordon', INDEX_RULE],
    ['/api/v1/jobs/0x1/cancel', ID_RULE],
    ['/api/v1/jobs/%20/cancel', ID_RULE],
    ['/api/v1/jobs/0/cancel', ID_RULE],
  ])('POST %s is 400 naming the parameter and "a decimal integer"; no GPU is cordoned', async (url, message) => {
    const response = await send('POST', url);
    expect([response.status, response.body.error.code, response.body.error.message]).toEqual([
      400,
      'GPUSHARE_INVALID_FIELD',
      message,
    ]);
    expect(await cordoned()).toEqual([false, false]);
  });

  it.each([
    ['/api/v1/jobs/0x1'],
    ['/api/v1/jobs/%20'],
    ['/api/v1/jobs/1e0'],
    ['/api/v1/jobs/01'],
    ['/api/v1/jobs/9007199254740992'],
  ])('GET %s is 400 naming params.id', async (url) => {
    const response = await send('GET', url);
    expect([response.status, response.body.error.message]).toEqual([400, ID_RULE]);
  });

  it('cordons GPU 0 and GPU 10 only when asked in decimal digits (0 is not refused, 10 is 404)', async () => {
    expect((await send('POST', '/api/v1/gpus/0/cordon')).status).toBe(200);
    const ten = await send('POST', '/api/v1/gpus/10/cordon');
    expect([ten.status, ten.body.error.message]).toEqual([404, 'GPU 10 not found (GPUs: 0, 1)']);
  });

  it.each([['/api/v1/drain'], ['/api/v1/gpus/1/cordon'], ['/api/v1/gpus/1/uncordon']])(
    'POST %s refuses body fields, and takes no body, an empty body or {}',
    async (url) => {
      const fields = await json('POST', url, { force: true });
      expect([fields.status, fields.body.error.message]).toEqual([
        400,
        'body: this call takes no body fields: send no body or {}, got the field(s) force',
      ]);
      expect(await cordoned()).toEqual([false, false]);
      for (const [payload, headers] of [
        [undefined, {}],
        ['', { 'content-type': 'application/json' }],
        ['{}', { 'content-type': 'application/json' }],
      ] as const) {
        const response = await send('POST', url, payload, headers);
        expect([url, payload, response.status]).toEqual([url, payload, url === '/api/v1/drain' ? 202 : 200]);
      }
    },
  );

  it('POST /jobs/:id/cancel refuses body fields, the job stays as it is', async () => {
    await json('POST', '/api/v1/jobs', { command: ['train'], workingDirectory: '/work' });
    const response = await json('POST', '/api/v1/jobs/1/cancel', { reason: 'x' });
    expect([response.status, response.body.error.message]).toEqual([
      400,
      'body: this call takes no body fields: send no body or {}, got the field(s) reason',
    ]);
    expect(kit.store.getJob(1)!.state).toBe('pending');
  });

  it.each([
    [
      'invalid JSON',
      '{"command": [',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      /^body: not valid JSON: .+/,
    ],
    [
      'no body',
      undefined,
      {},
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object (Content-Type: application/json), got no body',
    ],
    [
      'an empty body',
      '',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object (Content-Type: application/json), got no body',
    ],
    [
      'an array',
      '[1]',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object, got an array',
    ],
    [
      'a string',
      '"x"',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object, got a string',
    ],
    [
      'a number',
      '7',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object, got a number',
    ],
    [
      'null',
      'null',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: must be a JSON object, got null',
    ],
    [
      'a __proto__ key',
      '{"command":["t"],"__proto__":{"x":1}}',
      { 'content-type': 'application/json' },
      400,
      'GPUSHARE_INVALID_FIELD',
      'body: the key "__proto__" is not allowed',
    ],
    [
      'text/plain',
      '{"command":["t"]}',
      { 'content-type': 'text/plain' },
      415,
      'GPUSHARE_UNSUPPORTED_MEDIA_TYPE',
      'Content-Type: "text/plain" is not accepted; send application/json',
    ],
    [
      'form data',
      'command=t',
      { 'content-type': 'application/x-www-form-urlencoded' },
      415,
      'GPUSHARE_UNSUPPORTED_MEDIA_TYPE',
      'Content-Type: "application/x-www-form-urlencoded" is not accepted; send application/json',
    ],
    [
      '2 MiB',
      `{"name":"${'x'.repeat(2 << 20)}"}`,
      { 'content-type': 'application/json' },
      413,
      'GPUSHARE_BODY_TOO_LARGE',
      'body: larger than the limit of 1048576 bytes (1 MiB)',
    ],
  ] as const)(
    "POST /jobs with %s: the API's own error saying so, nothing stored",
    async (_what, payload, headers, status, code, message) => {
      const response = await send('POST', '/api/v1/jobs', payload, headers);
      expect([response.status, response.body.error.code]).toEqual([status, code]);
      if (typeof message === 'string') expect(response.body.error.message).toBe(message);
      else expect(response.body.error.message).toMatch(message);
      expect(response.body.error.message).not.toMatch(
        /FST_|Body cannot|Unsupported Media Type|Request body is too large/,
      );
      expect(kit.store.listJobs({})).toEqual([]);
    },
  );

  it('refuses an argument or environment entry longer than the kernel takes (MAX_ARG_STRLEN), naming it', async () => {
    const arg = await json('POST', '/api/v1/jobs', {
      command: ['echo', 'x'.repeat(131_072)],
      workingDirectory: '/work',
    });
    expect([arg.status, arg.body.error.message]).toEqual([
      400,
      "body.command.1: an argument may have at most 131071 bytes (the kernel's limit for one argument, " +
        'MAX_ARG_STRLEN), got 131072',
    ]);
    const env = await json('POST', '/api/v1/jobs', {
      command: ['echo'],
      workingDirectory: '/work',
      environment: { BIG: 'é'.repeat(65_534) },
    });
    expect([env.status, env.body.error.message]).toEqual([
      400,
      "body.environment.BIG: NAME=value may have at most 131071 bytes (the kernel's limit for one " +
        'environment entry, MAX_ARG_STRLEN), got 131072',
    ]);
    const fits = await json('POST', '/api/v1/jobs', {
      command: ['echo', 'x'.repeat(131_071)],
      workingDirectory: '/work',
    });
    expect(fits.status).toBe(201);
  });

  it('refuses a NUL or another control character in a backup path: 400 naming path', async () => {
    for (const [path, got] of [
      ['/tmp/a\u0000b.db', 'U+0000'],
      ['/tmp/a\nb.db', 'U+000A'],
    ]) {
      const response = await json('POST', '/api/v1/backup', { path });
      expect([response.status, response.body.error.message]).toEqual([
        400,
        `body.path: must be an absolute path without control characters (U+0000-U+001F, U+007F-U+009F), ` +
          `bidirectional and line-separator controls (U+061C, U+200E, U+200F, U+2028, U+2029, ` +
          `U+202A-U+202E, U+2066-U+2069), invisible format characters (U+00AD, U+180E, U+200B-U+200D, ` +
          `U+2060-U+2064, U+FEFF) or lone surrogates: got ${got}`,
      ]);
    }
  });

  it('answers a failure inside the server with 500, no internal code or text, and logs its details', async () => {
    const response = await send('GET', '/api/v1/status');
    expect([response.status, response.body]).toEqual([
      500,
      { error: { code: 'GPUSHARE_INTERNAL', message: 'internal error; see the server log' } },
    ]);
    expect(internalErrors).toEqual([{ message: 'status broke: /secret/path', method: 'GET', url: '/api/v1/status' }]);
  });
});

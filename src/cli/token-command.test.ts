/**
 * `gpushare token create|list|revoke|rotate` run in-process (through commander) against a fake
 * server built with node:http; `rotate` of the CLI's own token rewrites a real config file.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sampleToken } from '../adapters/http-client/testing/api-fixtures.js';
import {
  startFakeApiServer,
  type FakeApiServer,
  type FakeResponse,
  type RecordedRequest,
} from '../adapters/http-client/testing/fake-api-server.js';
import { writeCliConfig } from '../config/cli-config-write.js';
import { cliConfigPath } from '../config/cli-config.js';
import { parseExpiresIn } from './token-command.js';
import { runClientCli } from './testing/run-client-cli.js';

let server: FakeApiServer | undefined;
const folders: string[] = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function serve(
  handler: (r: RecordedRequest) => FakeResponse,
): Promise<{ env: Record<string, string>; server: FakeApiServer }> {
  server = await startFakeApiServer(handler);
  return { server, env: { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' } };
}

const LIST = [
  sampleToken({ id: 1, tenant: null, role: 'admin', label: 'admin (created by gpushare serve)', self: true }),
  sampleToken({ id: 3, label: 'ci\u001b[2J', expiresAt: '2025-02-01T00:00:00.000Z' }),
  sampleToken({
    id: 4,
    tenant: 'team-a',
    role: 'viewer',
    label: '',
    state: 'revoked',
    revokedAt: '2025-01-05T10:00:00.000Z',
  }),
];

function tokenServer(r: RecordedRequest): FakeResponse {
  switch (`${r.method} ${r.path}`) {
    case 'POST /api/v1/tokens': {
      const body = r.body as { role?: string; tenant?: string; label?: string; expiresInSeconds?: number };
      return {
        status: 201,
        body: {
          ...sampleToken({
            id: 5,
            role: body.role as 'member',
            tenant: body.tenant ?? null,
            label: body.label ?? '',
            expiresAt: body.expiresInSeconds === undefined ? null : '2025-01-31T00:00:00.000Z',
          }),
          token: 'gs_secret',
        },
      };
    }
    case 'GET /api/v1/tokens':
      return { status: 200, body: { tokens: LIST } };
    case 'POST /api/v1/tokens/3/revoke':
      return { status: 200, body: sampleToken({ state: 'revoked', revokedAt: '2025-01-02T03:04:05.678Z' }) };
    case 'POST /api/v1/tokens/3/rotate':
      return { status: 200, body: { ...sampleToken({ rotatedAt: '2025-01-02T00:00:00.000Z' }), token: 'gs_rotated' } };
    case 'POST /api/v1/tokens/1/rotate':
      return { status: 200, body: { ...LIST[0]!, token: 'gs_new_admin' } };
    default:
      return {
        status: 404,
        body: { error: { code: 'GPUSHARE_TOKEN_NOT_FOUND', message: `token ${r.path.split('/')[4]} not found` } },
      };
  }
}

describe('gpushare token', () => {
  it('create sends tenant, role, label and expiry in seconds; the secret is alone on the last line', async () => {
    const { env, server } = await serve(tokenServer);
    const run = await runClientCli(
      ['token', 'create', '--tenant', 'team-b', '--role', 'viewer', '--label', 'dash', '--expires-in', '30d'],
      { env },
    );
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'created viewer token 5 for tenant team-b (dash), expires 2025-01-31T00:00:00Z; it is shown only ' +
        'this once:\ngs_secret\n',
    });
    const plain = await runClientCli(['token', 'create', '--tenant', 'team-b'], { env });
    expect(plain.stdout.trimEnd().split('\n').at(-1)).toBe('gs_secret');
    expect((await runClientCli(['token', 'create', '--role', 'admin'], { env })).stdout).toContain(
      'created admin token 5;',
    );
    expect(server.requests.map((r) => r.body)).toEqual([
      { tenant: 'team-b', role: 'viewer', label: 'dash', expiresInSeconds: 2_592_000 },
      { tenant: 'team-b', role: 'member' },
      { role: 'admin' },
    ]);
  });

  it(
    'parses --expires-in as a whole number with a unit, up to 10 years; anything else exits 2 naming ' + 'the flag',
    async () => {
      expect([
        parseExpiresIn('3600s'),
        parseExpiresIn('90m'),
        parseExpiresIn('12h'),
        parseExpiresIn('30d'),
        parseExpiresIn('3650d'),
      ]).toEqual([3600, 5400, 43_200, 2_592_000, 315_360_000]);
      const env = { GPUSHARE_URL: 'http://127.0.0.1:1', GPUSHARE_TOKEN: 't' };
      for (const bad of ['3651d', '0s', '1.5h', '10', '-1d', '1w']) {
        const run = await runClientCli(['token', 'create', '--tenant', 'a', '--expires-in', bad], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(
          `--expires-in '${bad}': expected a whole number with a unit s, m, h or d (e.g. 30d, 12h, 3600s), ` +
            `at most 10 years (3650d)`,
        );
      }
    },
  );

  it(
    'list prints a table (own token marked *, escape codes in labels shown escaped) or the JSON of ' + 'the API',
    async () => {
      const { env } = await serve(tokenServer);
      expect(await runClientCli(['token', 'list'], { env })).toEqual({
        code: 0,
        stderr: '',
        stdout: [
          'ID  TENANT  ROLE    LABEL                              STATE                         ' +
            'CREATED               EXPIRES',
          '1*  -       admin   admin (created by gpushare serve)  active                        ' +
            '2025-01-01T00:00:00Z  never',
          '3   team-b  member  ci\\x1b[2J                          active                        ' +
            '2025-01-01T00:00:00Z  2025-02-01T00:00:00Z',
          '4   team-a  viewer  -                                  revoked 2025-01-05T10:00:00Z  ' +
            '2025-01-01T00:00:00Z  never',
          '',
        ].join('\n'),
      });
      const json = await runClientCli(['token', 'list', '-o', 'json'], { env });
      expect(JSON.parse(json.stdout)).toEqual(LIST);
    },
  );

  it('revoke and rotate take a decimal id; rotate prints the new secret alone on the last line', async () => {
    const { env, server } = await serve(tokenServer);
    expect(await runClientCli(['token', 'revoke', '3'], { env })).toEqual({
      code: 0,
      stderr: '',
      stdout: 'token 3 (ci) revoked at 2025-01-02T03:04:05Z\n',
    });
    const rotated = await runClientCli(['token', 'rotate', '3'], { env });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout.trimEnd().split('\n').at(-1)).toBe('gs_rotated');
    const bad = await runClientCli(['token', 'revoke', '0x3'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'0x3' is not a token id; expected a whole number >= 1");
    const missing = await runClientCli(['token', 'revoke', '9'], { env });
    expect(missing).toMatchObject({ code: 1, stderr: 'error: token 9 not found\n' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/tokens/3/revoke',
      'POST /api/v1/tokens/3/rotate',
      'POST /api/v1/tokens/9/revoke',
    ]);
  });

  it(
    "rotate of the CLI's own token from its config file writes the new one there, keeping url and " +
      'ca; from GPUSHARE_TOKEN it says to update that',
    async () => {
      server = await startFakeApiServer(tokenServer);
      const home = mkdtempSync(join(tmpdir(), 'gpushare-token-cli-'));
      folders.push(home);
      const env = { XDG_CONFIG_HOME: home };
      writeCliConfig({ url: server.url, token: 'gs_old_admin', ca: null }, env);
      const run = await runClientCli(['token', 'rotate', '1'], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        `rotated token 1 (admin (created by gpushare serve)); the old secret no longer works. this is the ` +
          `token this CLI uses: ${cliConfigPath(env)} now holds the new one\nThe new one is shown only this ` +
          `once:\ngs_new_admin\n`,
      );
      expect(parse(readFileSync(cliConfigPath(env), 'utf8'))).toEqual({ url: server.url, token: 'gs_new_admin' });
      expect(statSync(cliConfigPath(env)).mode & 0o777).toBe(0o600);
      expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer gs_old_admin');
      const fromEnv = await runClientCli(['token', 'rotate', '1'], { env: { ...env, GPUSHARE_TOKEN: 'gs_env' } });
      expect(fromEnv.stdout).toContain('this is the token this CLI uses: update GPUSHARE_TOKEN with the new one\n');
      expect(parse(readFileSync(cliConfigPath(env), 'utf8'))).toEqual({ url: server.url, token: 'gs_new_admin' });
    },
  );
});

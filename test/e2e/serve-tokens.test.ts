/**
 * End-to-end: token lifecycle against a real `gpushare serve` child process. A revoked token, an
 * expired one and the old admin token after rotation get 401 on their next request while their
 * successors work; rotating through the CLI rewrites the admin token file and the CLI's config; a
 * restart with a new admin token file leaves the old admin token 401.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { api, cleanupServe, cli, pollFor, type ServeHandle, startServe, stopServe } from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const adminTokenFile = (handle: ServeHandle): string => join(handle.dataDir, 'data', 'admin-token');
const jobsWith = (handle: ServeHandle, token: string) => api(handle, 'GET', '/api/v1/jobs', undefined, token);

describe('gpushare serve: tokens', () => {
  it(
    'a revoked token, an expired one and the old admin token after rotation get 401 on the next ' +
      'request; their successors work',
    async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB' });
      const s = server;
      expect((await api(s, 'POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
      const member = await api(s, 'POST', '/api/v1/tokens', { tenant: 'team-a', label: 'alice' });
      expect(member.status).toBe(201);
      expect(member.body).toMatchObject({
        tenant: 'team-a',
        role: 'member',
        label: 'alice',
        state: 'active',
        expiresAt: null,
        revokedAt: null,
      });
      expect(Object.keys(member.body).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'id',
        'label',
        'revokedAt',
        'role',
        'rotatedAt',
        'self',
        'state',
        'tenant',
        'token',
      ]);
      const short = await api(s, 'POST', '/api/v1/tokens', { tenant: 'team-a', label: 'short', expiresInSeconds: 1 });
      expect(short.status).toBe(201);
      expect(Date.parse(short.body.expiresAt) - Date.parse(short.body.createdAt)).toBe(1000);

      // Revoked: 401 on the very next request, naming the token and the time.
      expect((await jobsWith(s, member.body.token)).status).toBe(200);
      const revoked = await api(s, 'POST', `/api/v1/tokens/${member.body.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: member.body.id, state: 'revoked' });
      const afterRevoke = await jobsWith(s, member.body.token);
      expect(afterRevoke.status).toBe(401);
      expect(afterRevoke.body.error.message).toBe(
        `token ${member.body.id} (alice) was revoked at ${revoked.body.revokedAt}`,
      );

      // Expired: answers 401 once its second is over (polled, bounded).
      const expired = await pollFor('the 1-second token to expire', async () => {
        const answer = await jobsWith(s, short.body.token);
        return answer.status === 200 ? undefined : answer;
      });
      expect(expired.status).toBe(401);
      expect(expired.body.error.message).toBe(`token ${short.body.id} (short) expired at ${short.body.expiresAt}`);

      // The admin token, rotated through the API: the old secret is unknown at once, the new one
      // works and is what the admin token file holds now (0600).
      const oldAdmin = s.adminToken;
      const listed = await api(s, 'GET', '/api/v1/tokens');
      const own = listed.body.tokens.find((t: { self: boolean }) => t.self);
      expect(own).toMatchObject({ role: 'admin', tenant: null, label: 'admin (created by gpushare serve)' });
      const rotated = await api(s, 'POST', `/api/v1/tokens/${own.id}/rotate`);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ id: own.id, role: 'admin', state: 'active', self: true });
      const afterRotate = await jobsWith(s, oldAdmin);
      expect(afterRotate.status).toBe(401);
      expect(afterRotate.body.error.message).toMatch(/^unknown token/);
      expect((await jobsWith(s, rotated.body.token)).status).toBe(200);
      expect(readFileSync(adminTokenFile(s), 'utf8')).toBe(`${rotated.body.token}\n`);
      expect(statSync(adminTokenFile(s)).mode & 0o777).toBe(0o600);

      // Listing never shows a secret; the states are as the server sees them now.
      const states = (await api(s, 'GET', '/api/v1/tokens', undefined, rotated.body.token)).body.tokens.map(
        (t: { id: number; state: string }) => [t.id, t.state],
      );
      expect(states).toEqual([
        [own.id, 'active'],
        [member.body.id, 'revoked'],
        [short.body.id, 'expired'],
      ]);
      expect(JSON.stringify(listed.body)).not.toContain('gs_');
      expect((await api(s, 'POST', '/api/v1/tokens/0x1/rotate', undefined, rotated.body.token)).status).toBe(400);
    },
  );

  it(
    "`gpushare token rotate` of the CLI's own token updates its config and the admin token file; a " +
      'restart with a new admin token file leaves the old one 401',
    async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB' });
      const configPath = join(server.configHome, 'gpushare', 'config.yaml');
      const first = server.adminToken;
      expect(cli(server, ['token', 'create', '--role', 'admin', '--label', 'ci']).code).toBe(0);
      const list = JSON.parse(cli(server, ['token', 'list', '-o', 'json']).stdout) as {
        id: number;
        self: boolean;
        label: string;
      }[];
      expect(list.map((t) => [t.id, t.label, t.self])).toEqual([
        [1, 'admin (created by gpushare serve)', true],
        [2, 'ci', false],
      ]);
      const rotate = cli(server, ['token', 'rotate', '1']);
      expect(rotate.code).toBe(0);
      const second = rotate.stdout.trimEnd().split('\n').at(-1)!;
      expect(second).toMatch(/^gs_[A-Za-z0-9_-]{43}$/);
      expect((parse(readFileSync(configPath, 'utf8')) as { token: string }).token).toBe(second);
      expect(readFileSync(adminTokenFile(server), 'utf8')).toBe(`${second}\n`);
      expect(cli(server, ['token', 'list']).code).toBe(0);
      expect((await jobsWith(server, first)).status).toBe(401);

      // A leaked admin token does not survive a restart with a new admin token file.
      await stopServe(server);
      writeFileSync(adminTokenFile(server), 'gs_a-token-this-server-never-made\n', { mode: 0o600 });
      server = await startServe({
        simulateGpus: '1xA100-80GB',
        dataDir: server.dataDir,
        configHome: server.configHome,
      });
      const third = server.adminToken;
      expect(third).not.toBe(second);
      const leaked = await jobsWith(server, second);
      expect(leaked.status).toBe(401);
      expect(leaked.body.error.message).toMatch(
        /^token 1 \(admin \(created by gpushare serve\)\) was revoked at \d{4}-\d{2}-\d{2}T/,
      );
      expect((await jobsWith(server, third)).status).toBe(200);
      expect(server.stderr).toContain(
        'was not an active admin token: made admin token 3 and revoked the earlier server admin token 1',
      );
      const after = (await api(server, 'GET', '/api/v1/tokens')).body.tokens.map(
        (t: { id: number; state: string; label: string }) => [t.id, t.label, t.state],
      );
      expect(after).toEqual([
        [1, 'admin (created by gpushare serve)', 'revoked'],
        [2, 'ci', 'active'],
        [3, 'admin (created by gpushare serve)', 'active'],
      ]);
    },
  );
});

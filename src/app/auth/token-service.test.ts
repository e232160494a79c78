import { httpFailure } from '../testing/http-failure.js';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { MAX_TOKEN_LIFETIME_SECONDS, TokenRoleSchema } from '../../contract/api.js';
import { AdminService } from '../services/admin-service.js';
import { TOKEN_ROLES, type TokenRecord } from '../ports/state-store.js';
import { SERVER_ADMIN_TOKEN_LABEL } from './token-service.js';
import { tokenDigest, type Principal } from './tokens.js';

const T0 = Date.UTC(2026, 0, 2, 12, 0, 0);

/** A store with tenants acme and beta, an admin token, and a clock the test moves. */
function setup() {
  const store = createMemoryStore();
  let nowMs = T0;
  const rotated: { id: number; secret: string }[] = [];
  const admin = new AdminService(
    store,
    () => nowMs,
    () => [],
    null,
    { onRotated: (token: TokenRecord, secret: string) => rotated.push({ id: token.id, secret }) },
  );
  const root = admin.ensureAdminToken(null);
  store.createTenant('acme', T0);
  store.createTenant('beta', T0);
  const rootPrincipal = admin.authenticate(`Bearer ${root.token}`);
  const make = (tenant: string, role: 'tenant-admin' | 'member' | 'viewer', label: string) => {
    const created = admin.tokens.create(rootPrincipal, { tenant, role, label });
    return { ...created, principal: admin.authenticate(`Bearer ${created.token}`) };
  };
  return { store, admin, root, rootPrincipal, make, rotated, advance: (ms: number) => (nowMs += ms), now: () => nowMs };
}

describe('TokenService', () => {
  it('speaks the same roles as the store, in the same order', () => {
    expect([...TokenRoleSchema.options]).toEqual(TOKEN_ROLES);
  });

  it('creates a member token by default, with no expiry; the view never shows a secret or digest', () => {
    const { admin, rootPrincipal, store } = setup();
    const created = admin.tokens.create(rootPrincipal, { tenant: 'acme', label: 'alice' });
    expect(created).toEqual({
      id: 2,
      tenant: 'acme',
      role: 'member',
      label: 'alice',
      createdAt: '2026-01-02T12:00:00.000Z',
      expiresAt: null,
      revokedAt: null,
      rotatedAt: null,
      state: 'active',
      self: false,
      token: created.token,
    });
    expect(created.token).toMatch(/^gs_[A-Za-z0-9_-]{43}$/);
    expect(store.getToken(2)?.digest).toBe(tokenDigest(created.token));
    expect(JSON.stringify(admin.tokens.list(rootPrincipal))).not.toContain(tokenDigest(created.token));
    expect(admin.authenticate(`Bearer ${created.token}`)).toEqual({ role: 'member', tenant: 'acme', tokenId: 2 });
  });

  it(
    'lets an admin create an admin token (no tenant) and refuses one with a tenant or a tenant token ' + 'without one',
    () => {
      const { admin, rootPrincipal } = setup();
      expect(admin.tokens.create(rootPrincipal, { role: 'admin', label: 'ci' })).toMatchObject({
        tenant: null,
        role: 'admin',
      });
      expect(httpFailure(() => admin.tokens.create(rootPrincipal, { role: 'admin', tenant: 'acme' }))).toEqual({
        status: 422,
        message: 'tenant: an admin token belongs to no tenant: leave tenant out',
      });
      expect(httpFailure(() => admin.tokens.create(rootPrincipal, { role: 'viewer' }))).toEqual({
        status: 422,
        message: 'tenant: a viewer token needs a tenant (allowed: acme, beta, default)',
      });
      expect(httpFailure(() => admin.tokens.create(rootPrincipal, { tenant: 'ghost' }))).toEqual({
        status: 422,
        message: 'tenant: unknown tenant "ghost" (allowed: acme, beta, default)',
      });
    },
  );

  it("lets a tenant-admin create its tenant's member and viewer tokens only (its tenant by default)", () => {
    const { admin, make } = setup();
    const lead = make('acme', 'tenant-admin', 'lead');
    expect(admin.tokens.create(lead.principal, { role: 'viewer', label: 'dash' })).toMatchObject({
      tenant: 'acme',
      role: 'viewer',
    });
    expect(httpFailure(() => admin.tokens.create(lead.principal, { role: 'tenant-admin' })).status).toBe(403);
    expect(httpFailure(() => admin.tokens.create(lead.principal, { tenant: 'beta' })).message).toBe(
      'this tenant-admin token belongs to tenant "acme" and cannot act on tenant "beta"',
    );
    expect(httpFailure(() => admin.tokens.create(lead.principal, { role: 'admin' })).message).toBe(
      'this tenant-admin token belongs to tenant "acme" and cannot act on admin tokens, which belong to ' +
        'no tenant (an admin may)',
    );
    const member = make('acme', 'member', 'm');
    expect(httpFailure(() => admin.tokens.create(member.principal, {})).status).toBe(403);
  });

  it(
    'takes an expiry in seconds or as an ISO time, within 10 years in the future, and refuses anything ' +
      'else naming the field',
    () => {
      const { admin, rootPrincipal } = setup();
      expect(admin.tokens.create(rootPrincipal, { tenant: 'acme', expiresInSeconds: 3600 }).expiresAt).toBe(
        '2026-01-02T13:00:00.000Z',
      );
      expect(
        admin.tokens.create(rootPrincipal, { tenant: 'acme', expiresAt: '2026-02-01T00:00:00+01:00' }).expiresAt,
      ).toBe('2026-01-31T23:00:00.000Z');
      expect(
        admin.tokens.create(rootPrincipal, { tenant: 'acme', expiresInSeconds: MAX_TOKEN_LIFETIME_SECONDS }).expiresAt,
      ).toBe('2035-12-31T12:00:00.000Z');
      const bad = (input: object) =>
        httpFailure(() => admin.tokens.create(rootPrincipal, { tenant: 'acme', ...input })).message;
      expect(bad({ expiresInSeconds: 0 })).toBe(
        `expiresInSeconds: must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS} (10 years), got 0`,
      );
      expect(bad({ expiresInSeconds: 1.5 })).toContain('got 1.5');
      expect(bad({ expiresInSeconds: MAX_TOKEN_LIFETIME_SECONDS + 1 })).toContain(
        'expiresInSeconds: must be a whole number',
      );
      expect(bad({ expiresAt: '2026-01-02T11:59:59Z' })).toBe(
        'expiresAt: 2026-01-02T11:59:59Z is not in the future (now 2026-01-02T12:00:00.000Z)',
      );
      expect(bad({ expiresAt: 'tomorrow' })).toBe(
        'expiresAt: "tomorrow" is not an ISO 8601 time with a zone, such as 2030-01-31T12:00:00Z',
      );
      expect(bad({ expiresAt: '2030-01-31T12:00:00' })).toContain('is not an ISO 8601 time with a zone');
      expect(bad({ expiresAt: '2037-01-01T00:00:00Z' })).toBe(
        'expiresAt: 2037-01-01T00:00:00Z is more than 10 years ahead (latest 2035-12-31T12:00:00.000Z)',
      );
      expect(bad({ expiresInSeconds: 60, expiresAt: '2027-01-01T00:00:00Z' })).toBe(
        'expiresAt: give expiresInSeconds or expiresAt, not both',
      );
    },
  );

  it(
    "lists all tokens for an admin, its tenant's for a tenant-admin, its own for a member or viewer; " +
      'refuses a job token',
    () => {
      const { admin, rootPrincipal, make } = setup();
      const lead = make('acme', 'tenant-admin', 'lead');
      const alice = make('acme', 'member', 'alice');
      const bob = make('beta', 'viewer', 'bob');
      const ids = (principal: Principal) => admin.tokens.list(principal).map((t) => t.id);
      expect(ids(rootPrincipal)).toEqual([1, lead.id, alice.id, bob.id]);
      expect(ids(lead.principal)).toEqual([lead.id, alice.id]);
      expect(ids(alice.principal)).toEqual([alice.id]);
      expect(ids(bob.principal)).toEqual([bob.id]);
      expect(admin.tokens.list(alice.principal)[0]).toMatchObject({ label: 'alice', self: true });
      expect(admin.tokens.list(lead.principal).map((t) => t.self)).toEqual([true, false]);
      expect(httpFailure(() => admin.tokens.list({ role: 'job', tenant: null, jobId: 1 })).status).toBe(403);
    },
  );

  it(
    'revokes: the next authentication is 401 naming the token and the time; a second revoke keeps the ' + 'first time',
    () => {
      const { admin, rootPrincipal, make, advance } = setup();
      const alice = make('acme', 'member', 'alice');
      advance(5000);
      expect(admin.tokens.revoke(rootPrincipal, alice.id)).toMatchObject({
        state: 'revoked',
        revokedAt: '2026-01-02T12:00:05.000Z',
      });
      expect(httpFailure(() => admin.authenticate(`Bearer ${alice.token}`))).toEqual({
        status: 401,
        message: `token ${alice.id} (alice) was revoked at 2026-01-02T12:00:05.000Z`,
      });
      advance(5000);
      expect(admin.tokens.revoke(rootPrincipal, alice.id).revokedAt).toBe('2026-01-02T12:00:05.000Z');
    },
  );

  it(
    "lets a member revoke its own token but not another's (404: it cannot see it); a tenant-admin not " +
      "another tenant-admin's (403)",
    () => {
      const { admin, make } = setup();
      const lead = make('acme', 'tenant-admin', 'lead');
      const lead2 = make('acme', 'tenant-admin', 'lead2');
      const alice = make('acme', 'member', 'alice');
      const carol = make('acme', 'member', 'carol');
      expect(httpFailure(() => admin.tokens.revoke(alice.principal, carol.id))).toEqual({
        status: 404,
        message: `token ${carol.id} not found`,
      });
      expect(httpFailure(() => admin.tokens.revoke(alice.principal, 999))).toEqual({
        status: 404,
        message: 'token 999 not found',
      });
      expect(httpFailure(() => admin.tokens.revoke(lead.principal, 1))).toEqual({
        status: 404,
        message: 'token 1 not found',
      });
      expect(httpFailure(() => admin.tokens.revoke(lead.principal, lead2.id)).status).toBe(403);
      expect(admin.tokens.revoke(lead.principal, carol.id).state).toBe('revoked');
      expect(admin.tokens.revoke(alice.principal, alice.id).state).toBe('revoked');
    },
  );

  it('expires: 401 naming the token and its expiry from that millisecond on', () => {
    const { admin, rootPrincipal, advance } = setup();
    const created = admin.tokens.create(rootPrincipal, { tenant: 'acme', label: 'short', expiresInSeconds: 1 });
    advance(999);
    expect(admin.authenticate(`Bearer ${created.token}`).tokenId).toBe(created.id);
    advance(1);
    expect(httpFailure(() => admin.authenticate(`Bearer ${created.token}`))).toEqual({
      status: 401,
      message: `token ${created.id} (short) expired at 2026-01-02T12:00:01.000Z`,
    });
    expect(admin.tokens.list(rootPrincipal).find((t) => t.id === created.id)?.state).toBe('expired');
    expect(httpFailure(() => admin.tokens.rotate(rootPrincipal, created.id))).toEqual({
      status: 409,
      message: `token ${created.id} (short) is expired: create a new token instead of rotating it`,
    });
  });

  it(
    'rotates: same id, label, role, expiry; the old secret is an unknown token at once, the new one works; ' +
      'the hook hears of it',
    () => {
      const { admin, rootPrincipal, make, advance, rotated } = setup();
      const alice = make('acme', 'member', 'alice');
      advance(2000);
      const next = admin.tokens.rotate(alice.principal, alice.id);
      expect(next).toMatchObject({
        id: alice.id,
        label: 'alice',
        role: 'member',
        tenant: 'acme',
        state: 'active',
        rotatedAt: '2026-01-02T12:00:02.000Z',
        self: true,
      });
      expect(next.token).not.toBe(alice.token);
      expect(httpFailure(() => admin.authenticate(`Bearer ${alice.token}`))).toEqual({
        status: 401,
        message: "unknown token (a job's GPUSHARE_JOB_TOKEN stops working when its attempt ends)",
      });
      expect(admin.authenticate(`Bearer ${next.token}`)).toEqual({ role: 'member', tenant: 'acme', tokenId: alice.id });
      expect(rotated).toEqual([{ id: alice.id, secret: next.token }]);
      admin.tokens.revoke(rootPrincipal, alice.id);
      expect(httpFailure(() => admin.tokens.rotate(rootPrincipal, alice.id)).status).toBe(409);
    },
  );

  it(
    'keeps a valid admin token file; a missing, unknown or revoked one gets a new admin token and revokes ' +
      "the server's earlier ones only",
    () => {
      const { admin, root, rootPrincipal, store } = setup();
      expect(root).toMatchObject({ id: 1, created: true, revokedIds: [] });
      expect(store.getToken(1)).toMatchObject({
        label: SERVER_ADMIN_TOKEN_LABEL,
        createdByServer: true,
        role: 'admin',
      });
      expect(admin.ensureAdminToken(root.token)).toEqual({ token: root.token, id: 1, created: false, revokedIds: [] });
      const ci = admin.tokens.create(rootPrincipal, { role: 'admin', label: 'ci' });
      const fresh = admin.ensureAdminToken('gs_not-a-token');
      expect(fresh).toMatchObject({ id: 3, created: true, revokedIds: [1] });
      expect(httpFailure(() => admin.authenticate(`Bearer ${root.token}`)).status).toBe(401);
      expect(admin.authenticate(`Bearer ${ci.token}`).role).toBe('admin');
      // A file holding a revoked token counts as unknown.
      expect(admin.ensureAdminToken(root.token)).toMatchObject({ id: 4, created: true, revokedIds: [3] });
      expect(admin.ensureAdminToken(null)).toMatchObject({ id: 5, created: true, revokedIds: [4] });
    },
  );
});

/**
 * The token part of the StateStore contract (store.contract.ts calls it inside its `tokens`
 * suite): creation, lookup by digest, expiry, listing by tenant, revocation and rotation.
 */
import { expect, it } from 'vitest';
import { type StateStore, StoreConflictError } from '../../app/ports/state-store.js';

/**
 * Declares the token lifecycle cases.
 * @param store the store of the current test (fresh and empty for each)
 * @param t0 a base time, ms since the epoch
 */
export function describeTokenLifecycle(store: () => StateStore, t0: number): void {
  it('creates tokens with increasing ids and finds them by digest', () => {
    store().createTenant('acme', t0);
    const admin = store().createToken({
      digest: 'a'.repeat(64),
      role: 'admin',
      tenant: null,
      label: 'root',
      createdAtMs: t0,
    });
    const tenant = store().createToken({
      digest: 'b'.repeat(64),
      role: 'tenant-admin',
      tenant: 'acme',
      label: 'ci',
      createdAtMs: t0 + 1,
    });
    expect(tenant.id).toBeGreaterThan(admin.id);
    expect(store().findTokenByDigest('a'.repeat(64))).toEqual(admin);
    expect(store().findTokenByDigest('b'.repeat(64))).toEqual({
      id: tenant.id,
      digest: 'b'.repeat(64),
      role: 'tenant-admin',
      tenant: 'acme',
      label: 'ci',
      createdAtMs: t0 + 1,
      expiresAtMs: null,
      revokedAtMs: null,
      rotatedAtMs: null,
      createdByServer: false,
    });
    expect(store().findTokenByDigest('c'.repeat(64))).toBeNull();
  });

  it('rejects a duplicate digest and a token of an unknown tenant', () => {
    store().createToken({ digest: 'a'.repeat(64), role: 'admin', tenant: null, label: 'root', createdAtMs: t0 });
    expect(() =>
      store().createToken({ digest: 'a'.repeat(64), role: 'admin', tenant: null, label: 'again', createdAtMs: t0 }),
    ).toThrow(StoreConflictError);
    expect(() =>
      store().createToken({
        digest: 'd'.repeat(64),
        role: 'tenant-admin',
        tenant: 'ghost',
        label: 'x',
        createdAtMs: t0,
      }),
    ).toThrow(StoreConflictError);
    expect(store().findTokenByDigest('a'.repeat(64))?.label).toBe('root');
    expect(store().findTokenByDigest('d'.repeat(64))).toBeNull();
  });

  const digest = (c: string): string => c.repeat(64);
  const seed = (s: StateStore) => {
    s.createTenant('acme', t0);
    s.createTenant('beta', t0);
    return {
      admin: s.createToken({
        digest: digest('a'),
        role: 'admin',
        tenant: null,
        label: 'root',
        createdAtMs: t0,
        createdByServer: true,
      }),
      acme: s.createToken({
        digest: digest('b'),
        role: 'member',
        tenant: 'acme',
        label: 'ci',
        createdAtMs: t0 + 1,
        expiresAtMs: t0 + 3_600_000,
      }),
      beta: s.createToken({ digest: digest('c'), role: 'viewer', tenant: 'beta', label: 'dash', createdAtMs: t0 + 2 }),
      acme2: s.createToken({
        digest: digest('d'),
        role: 'tenant-admin',
        tenant: 'acme',
        label: 'lead',
        createdAtMs: t0 + 3,
      }),
    };
  };

  it("stores expiry and server origin, gets tokens by id and lists them by id, all or one tenant's", () => {
    const s = store();
    const { admin, acme, beta, acme2 } = seed(s);
    expect(admin).toMatchObject({ createdByServer: true, expiresAtMs: null, revokedAtMs: null, rotatedAtMs: null });
    expect(acme).toMatchObject({ role: 'member', expiresAtMs: t0 + 3_600_000, createdByServer: false });
    expect(s.getToken(acme.id)).toEqual(acme);
    expect(s.getToken(9999)).toBeNull();
    expect(s.listTokens().map((t) => t.id)).toEqual([admin.id, acme.id, beta.id, acme2.id]);
    expect(s.listTokens({ tenant: 'acme' }).map((t) => t.label)).toEqual(['ci', 'lead']);
    expect(s.listTokens({ tenant: 'beta' })).toEqual([beta]);
    expect(s.listTokens({ tenant: 'ghost' })).toEqual([]);
  });

  it('revokes a token once: a second revoke keeps the first time; an unknown id conflicts', () => {
    const s = store();
    const { acme, beta } = seed(s);
    const revoked = s.revokeToken(acme.id, t0 + 50);
    expect(revoked).toEqual({ ...acme, revokedAtMs: t0 + 50 });
    expect(s.revokeToken(acme.id, t0 + 90).revokedAtMs).toBe(t0 + 50);
    expect(s.findTokenByDigest(digest('b'))?.revokedAtMs).toBe(t0 + 50);
    expect(s.getToken(beta.id)?.revokedAtMs).toBeNull();
    expect(() => s.revokeToken(9999, t0)).toThrow(StoreConflictError);
  });

  it('rotates a token: same id, label, role and expiry, new digest; the old digest stops matching at once', () => {
    const s = store();
    const { acme } = seed(s);
    const rotated = s.rotateToken(acme.id, digest('e'), t0 + 70);
    expect(rotated).toEqual({ ...acme, digest: digest('e'), rotatedAtMs: t0 + 70 });
    expect(s.findTokenByDigest(digest('b'))).toBeNull();
    expect(s.findTokenByDigest(digest('e'))).toEqual(rotated);
    expect(s.getToken(acme.id)).toEqual(rotated);
    // The old digest is free again; a new token may not take a digest in use.
    expect(() =>
      s.createToken({ digest: digest('e'), role: 'member', tenant: 'acme', label: 'x', createdAtMs: t0 }),
    ).toThrow(StoreConflictError);
  });

  it('refuses a rotation to a digest in use or of an unknown id, changing nothing', () => {
    const s = store();
    const { acme, beta } = seed(s);
    expect(() => s.rotateToken(acme.id, digest('c'), t0 + 5)).toThrow(StoreConflictError);
    expect(() => s.rotateToken(9999, digest('f'), t0 + 5)).toThrow(StoreConflictError);
    expect(s.getToken(acme.id)).toEqual(acme);
    expect(s.getToken(beta.id)).toEqual(beta);
    expect(s.findTokenByDigest(digest('f'))).toBeNull();
  });
}

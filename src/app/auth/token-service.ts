/**
 * API tokens over their lifetime: create (with a role, a label and an expiry), list, revoke and
 * rotate; which stored token a bearer secret is, and whether it still works; and the admin token
 * of the server's admin token file. Every rights check goes through `authorize`. Secrets are
 * returned once and only their SHA-256 digests are stored.
 */
import { MAX_TOKEN_LIFETIME_SECONDS, type NewTokenView, type TokenView } from '../../contract/api.js';
import { GpushareError, conflict, invalidField, unauthenticated } from '../errors.js';
import type { StateStore, TokenRecord, TokenRole } from '../ports/state-store.js';
import { authorize, isAllowed, type AuthTarget } from './authorize.js';
import { generateToken, tokenDigest, type Principal } from './tokens.js';

/** The role of a token created without one: the least privilege that may submit jobs. */
export const DEFAULT_TOKEN_ROLE: TokenRole = 'member';

/** Label of the admin tokens `gpushare serve` makes for its admin token file. */
export const SERVER_ADMIN_TOKEN_LABEL = 'admin (created by gpushare serve)';

/** What `create` takes (the `POST /tokens` body). */
export interface CreateTokenInput {
  /** The tenant; absent for an admin token (and for a tenant-admin's own tenant). */
  readonly tenant?: string;
  /** Default {@link DEFAULT_TOKEN_ROLE}. */
  readonly role?: TokenRole;
  readonly label?: string;
  /** Lifetime from now, whole seconds, 1 to {@link MAX_TOKEN_LIFETIME_SECONDS}. */
  readonly expiresInSeconds?: number;
  /** An ISO 8601 time in the future, at most {@link MAX_TOKEN_LIFETIME_SECONDS} ahead. */
  readonly expiresAt?: string;
}

/** Options of {@link TokenService}. */
export interface TokenServiceOptions {
  /**
   * Called after a token's secret was replaced, with the token as stored now and its new secret (e.g. to rewrite the
   * admin token file).
   */
  readonly onRotated?: (token: TokenRecord, secret: string) => void;
}

/** The admin token `ensureAdminToken` settled on. */
export interface EnsuredAdminToken {
  /** The secret (the file's own when it was valid). */
  readonly token: string;
  readonly id: number;
  /** Whether a new admin token was made (the file must be written). */
  readonly created: boolean;
  /** Ids of the earlier server-made admin tokens revoked because a new one was made. */
  readonly revokedIds: readonly number[];
}

/** A token's state at `nowMs`: revoked wins over expired. */
export function tokenState(token: TokenRecord, nowMs: number): TokenView['state'] {
  if (token.revokedAtMs !== null) return 'revoked';
  if (token.expiresAtMs !== null && nowMs >= token.expiresAtMs) return 'expired';
  return 'active';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A token as `authorize` sees it: its tenant, its own id (as owner) and role. */
const targetOf = (token: TokenRecord): AuthTarget => ({
  tenant: token.tenant,
  ownerTokenId: token.id,
  tokenRole: token.role,
});

function tokenNotFound(id: number): GpushareError {
  return new GpushareError('GPUSHARE_TOKEN_NOT_FOUND', 404, `token ${id} not found`);
}

/** Token operations over a store. */
export class TokenService {
  /** @param nowMs the clock, ms since the epoch */
  constructor(
    private readonly store: StateStore,
    private readonly nowMs: () => number,
    private readonly options: TokenServiceOptions = {},
  ) {}

  /** The API view of a token (no secret, no digest); `self` when it is the caller's own. */
  view(token: TokenRecord, principal?: Principal): TokenView {
    return {
      id: token.id,
      tenant: token.tenant,
      role: token.role,
      label: token.label,
      createdAt: new Date(token.createdAtMs).toISOString(),
      expiresAt: iso(token.expiresAtMs),
      revokedAt: iso(token.revokedAtMs),
      rotatedAt: iso(token.rotatedAtMs),
      state: tokenState(token, this.nowMs()),
      self: principal?.tokenId === token.id,
    };
  }

  /**
   * Creates a token; its secret is returned once. An admin may create any role (an admin token has
   * no tenant); a tenant-admin its own tenant's member and viewer tokens.
   * @throws GpushareError 422 naming the field (unknown tenant, a tenant with an admin token or none
   *   with another role, a bad expiry), 403 (the role may not create it)
   */
  create(principal: Principal, input: CreateTokenInput): NewTokenView {
    const role = input.role ?? DEFAULT_TOKEN_ROLE;
    const tenant =
      role === 'admin' ? null : (input.tenant ?? (principal.role === 'tenant-admin' ? principal.tenant : undefined));
    if (role === 'admin' && input.tenant !== undefined)
      throw invalidField('tenant', 'an admin token belongs to no tenant: leave tenant out');
    authorize(principal, 'token.create', { tenant, tokenRole: role });
    if (tenant === undefined)
      throw invalidField(
        'tenant',
        `a ${role} token needs a tenant`,
        this.store.listTenants().map((t) => t.name),
      );
    if (tenant !== null && this.store.getTenant(tenant) === null)
      throw invalidField(
        'tenant',
        `unknown tenant "${tenant}"`,
        this.store.listTenants().map((t) => t.name),
      );
    const createdAtMs = this.nowMs();
    const expiresAtMs = this.expiry(input, createdAtMs);
    const secret = generateToken();
    const record = this.store.createToken({
      digest: tokenDigest(secret),
      role,
      tenant,
      label: input.label ?? '',
      createdAtMs,
      expiresAtMs,
    });
    return { ...this.view(record, principal), token: secret };
  }

  /**
   * The tokens the caller may see: all for an admin, its tenant's for a tenant-admin, its own for a member or viewer.
   * @throws GpushareError 403 (a job's report token)
   */
  list(principal: Principal): TokenView[] {
    authorize(principal, 'token.read', { tenant: principal.tenant, ownerTokenId: principal.tokenId ?? null });
    const candidates =
      principal.role === 'admin' || principal.tenant === null
        ? this.store.listTokens()
        : this.store.listTokens({ tenant: principal.tenant });
    return candidates
      .filter((t) => isAllowed(principal, 'token.read', targetOf(t)))
      .map((t) => this.view(t, principal));
  }

  /**
   * Revokes a token at once (its next request gets 401); revoking it again keeps the first time.
   * @throws GpushareError 404 (unknown, or one the caller may not see), 403 (may see, may not revoke)
   */
  revoke(principal: Principal, id: number): TokenView {
    const token = this.visible(principal, id);
    authorize(principal, 'token.revoke', targetOf(token));
    return this.view(this.store.revokeToken(id, this.nowMs()), principal);
  }

  /**
   * Replaces a token's secret: same id, label, role and expiry; the old secret gets 401 from now
   * on. The new secret is returned once.
   * @throws GpushareError 404, 403 (as `revoke`), 409 (revoked or expired: create a new one)
   */
  rotate(principal: Principal, id: number): NewTokenView {
    const token = this.visible(principal, id);
    authorize(principal, 'token.rotate', targetOf(token));
    const state = tokenState(token, this.nowMs());
    if (state !== 'active')
      throw conflict(`token ${id} (${token.label}) is ${state}: create a new token instead of rotating it`);
    const secret = generateToken();
    const rotated = this.store.rotateToken(id, tokenDigest(secret), this.nowMs());
    this.options.onRotated?.(rotated, secret);
    return { ...this.view(rotated, principal), token: secret };
  }

  /**
   * The principal of a stored token's secret, or null when no stored token has it (a rotated
   * token's old secret included).
   * @throws GpushareError 401 naming the token when it was revoked or has expired
   */
  principalOf(secret: string): Principal | null {
    const record = this.store.findTokenByDigest(tokenDigest(secret));
    if (record === null) return null;
    const state = tokenState(record, this.nowMs());
    if (state === 'revoked')
      throw unauthenticated(`token ${record.id} (${record.label}) was revoked at ${iso(record.revokedAtMs)}`);
    if (state === 'expired')
      throw unauthenticated(`token ${record.id} (${record.label}) expired at ${iso(record.expiresAtMs)}`);
    return { role: record.role, tenant: record.tenant, tokenId: record.id };
  }

  /**
   * Makes sure `existing` (the admin token file's content, if any) is an active admin token. When
   * it is missing, unknown, revoked or expired, makes a new server admin token and revokes every
   * earlier admin token the server made, so that a leaked one dies with its file.
   */
  ensureAdminToken(existing: string | null): EnsuredAdminToken {
    if (existing) {
      const record = this.store.findTokenByDigest(tokenDigest(existing));
      if (record?.role === 'admin' && tokenState(record, this.nowMs()) === 'active')
        return { token: existing, id: record.id, created: false, revokedIds: [] };
    }
    const token = generateToken();
    const nowMs = this.nowMs();
    const record = this.store.createToken({
      digest: tokenDigest(token),
      role: 'admin',
      tenant: null,
      label: SERVER_ADMIN_TOKEN_LABEL,
      createdAtMs: nowMs,
      createdByServer: true,
    });
    const earlier = this.store
      .listTokens()
      .filter((t) => t.createdByServer && t.id !== record.id && t.revokedAtMs === null);
    for (const t of earlier) this.store.revokeToken(t.id, nowMs);
    return { token, id: record.id, created: true, revokedIds: earlier.map((t) => t.id) };
  }

  /** The token `id` when the caller may see it. @throws GpushareError 404 otherwise */
  private visible(principal: Principal, id: number): TokenRecord {
    const token = this.store.getToken(id);
    if (token === null || !isAllowed(principal, 'token.read', targetOf(token))) throw tokenNotFound(id);
    return token;
  }

  /**
   * The expiry of `input`, ms since the epoch, counted from `nowMs` (the token's creation time); null for none. @throws
   * GpushareError 422 naming the field
   */
  private expiry(input: CreateTokenInput, nowMs: number): number | null {
    const maxMs = nowMs + MAX_TOKEN_LIFETIME_SECONDS * 1000;
    if (input.expiresInSeconds !== undefined && input.expiresAt !== undefined)
      throw invalidField('expiresAt', 'give expiresInSeconds or expiresAt, not both');
    if (input.expiresInSeconds !== undefined) {
      const seconds = input.expiresInSeconds;
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TOKEN_LIFETIME_SECONDS) {
        throw invalidField(
          'expiresInSeconds',
          `must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS} (10 years), got ${seconds}`,
        );
      }
      return nowMs + seconds * 1000;
    }
    if (input.expiresAt !== undefined) {
      const text = input.expiresAt;
      const atMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
        ? Date.parse(text)
        : Number.NaN;
      if (Number.isNaN(atMs))
        throw invalidField('expiresAt', `"${text}" is not an ISO 8601 time with a zone, such as 2030-01-31T12:00:00Z`);
      if (atMs <= nowMs)
        throw invalidField('expiresAt', `${text} is not in the future (now ${new Date(nowMs).toISOString()})`);
      if (atMs > maxMs)
        throw invalidField(
          'expiresAt',
          `${text} is more than 10 years ahead (latest ${new Date(maxMs).toISOString()})`,
        );
      return atMs;
    }
    return null;
  }
}

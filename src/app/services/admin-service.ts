/**
 * Admin operations: tenants, quotas, backup, authentication of bearer tokens, and the admin token
 * a server creates on its first start; tokens themselves are `tokens` (token-service.ts).
 */
import type { GpuDevice } from '../../core/index.js';
import { conflict, tenantNotFound, unauthenticated } from '../errors.js';
import { authorize } from '../auth/authorize.js';
import { tokenDigest, type Principal } from '../auth/tokens.js';
import { type EnsuredAdminToken, TokenService, type TokenServiceOptions } from '../auth/token-service.js';
import type { StateStore, TenantLimits, TenantRecord } from '../ports/state-store.js';
import { StoreConflictError } from '../ports/state-store.js';
import { quotaUse, type QuotaUse } from './quota-use.js';

/** Admin operations over a store. */
export class AdminService {
  /** Tokens: create, list, revoke, rotate (src/app/auth/token-service.ts). */
  readonly tokens: TokenService;

  /**
   * @param nowMs the clock, ms since the epoch
   * @param gpus the server's GPUs now (quota sizes are measured against them)
   * @param tenantLimit most tenants this server may have and why (a server that cannot sandbox jobs), null for none
   * @param tokenOptions what happens when a token is rotated (see TokenServiceOptions)
   */
  constructor(
    private readonly store: StateStore,
    private readonly nowMs: () => number,
    private readonly gpus: () => readonly GpuDevice[] = () => [],
    private readonly tenantLimit: { readonly max: number; readonly why: string } | null = null,
    tokenOptions: TokenServiceOptions = {},
  ) {
    this.tokens = new TokenService(store, nowMs, tokenOptions);
  }

  /** Each visible tenant's use against its quota (a tenant sees its own). */
  quotas(principal: Principal): QuotaUse[] {
    authorize(principal, 'quota.read');
    const tenants = this.listTenants(principal);
    return quotaUse(
      tenants,
      this.store.listJobs({ states: ['scheduled', 'running'] }),
      this.store.listJobs({ states: ['pending', 'preempted'] }),
      this.gpus(),
    );
  }

  /**
   * Writes a consistent copy of the store to `path` (StateStore.backup checks it). @returns its size in bytes
   * @throws GpushareError 403, or 400 naming `path` for a refused path or an existing file
   */
  async backup(principal: Principal, path: string): Promise<number> {
    authorize(principal, 'server.backup');
    return this.store.backup(path);
  }

  /**
   * Who holds `authorization` (an `Authorization` header value): an admin or tenant token, or the
   * report token of a job's current attempt (role `job`, see src/app/auth/job-scope.ts).
   * @throws GpushareError 401 when the header is missing, malformed or the token unknown (a report
   *   token is unknown once its attempt ended; so is a rotated token's old secret), revoked or expired
   */
  authenticate(authorization: string | undefined): Principal {
    if (!authorization)
      throw unauthenticated(
        'missing Authorization header: send "Authorization: Bearer <token>" (see `gpushare serve` output ' +
          'for the admin token)',
      );
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw unauthenticated('Authorization header must be "Bearer <token>"');
    const principal = this.tokens.principalOf(match[1]!);
    if (principal !== null) return principal;
    const job = this.store.findJobByReportTokenDigest(tokenDigest(match[1]!));
    if (job) return { role: 'job', tenant: null, jobId: job.id };
    throw unauthenticated("unknown token (a job's GPUSHARE_JOB_TOKEN stops working when its attempt ends)");
  }

  /** Creates a tenant. @throws GpushareError 403 (not admin), 409 (exists, or over the server's tenant limit) */
  createTenant(principal: Principal, name: string): TenantRecord {
    authorize(principal, 'tenant.create');
    const limit = this.tenantLimit;
    if (limit !== null && this.store.listTenants().length >= limit.max) {
      throw conflict(`this server accepts ${limit.max} tenant${limit.max === 1 ? '' : 's'} only: ${limit.why}`);
    }
    try {
      return this.store.createTenant(name, this.nowMs());
    } catch (error) {
      if (error instanceof StoreConflictError) throw conflict(`tenant "${name}" already exists`);
      throw error;
    }
  }

  /** Sets a tenant's quota. @throws GpushareError 403 (not admin), 404 (unknown tenant) */
  setQuota(
    principal: Principal,
    name: string,
    quota: { guaranteedGpuEquivalents: number; limitGpuEquivalents: number | null },
  ): TenantRecord {
    authorize(principal, 'quota.set', { tenant: name });
    try {
      return this.store.setTenantQuota(name, quota);
    } catch (error) {
      if (error instanceof StoreConflictError)
        throw tenantNotFound(
          name,
          this.store.listTenants().map((t) => t.name),
        );
      throw error;
    }
  }

  /**
   * Changes a tenant's caps and limits: fields absent keep their value, null returns to the
   * server's default. @throws GpushareError 403 (not admin), 404 (unknown tenant)
   */
  setLimits(principal: Principal, name: string, change: Partial<TenantLimits>): TenantRecord {
    authorize(principal, 'tenant.update', { tenant: name });
    const current = this.store.getTenant(name);
    if (current === null)
      throw tenantNotFound(
        name,
        this.store.listTenants().map((t) => t.name),
      );
    const pick = <K extends keyof TenantLimits>(key: K): TenantLimits[K] =>
      change[key] === undefined ? current[key] : change[key]!;
    try {
      return this.store.setTenantLimits(name, {
        maxPriorityClass: pick('maxPriorityClass'),
        requestsPerSecond: pick('requestsPerSecond'),
        requestBurst: pick('requestBurst'),
        eventStreamsPerToken: pick('eventStreamsPerToken'),
      });
    } catch (error) {
      if (error instanceof StoreConflictError)
        throw tenantNotFound(
          name,
          this.store.listTenants().map((t) => t.name),
        );
      throw error;
    }
  }

  /** Tenants: all for admins, its own for a tenant. */
  listTenants(principal: Principal): TenantRecord[] {
    authorize(principal, 'tenant.read');
    const all = this.store.listTenants();
    return principal.role === 'admin' ? all : all.filter((t) => t.name === principal.tenant);
  }

  /**
   * Makes sure `existing` (the admin token file's content, if any) is an active admin token (see
   * `TokenService.ensureAdminToken`: a new one revokes the server's earlier ones), and creates the
   * `default` tenant on a fresh store.
   */
  ensureAdminToken(existing: string | null): EnsuredAdminToken {
    if (this.store.getTenant('default') === null) this.store.createTenant('default', this.nowMs());
    return this.tokens.ensureAdminToken(existing);
  }
}

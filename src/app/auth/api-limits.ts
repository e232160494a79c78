/**
 * Per-token limits of the API (docs/security.md, "Caps and limits"):
 *
 * - **Request rate**: a token bucket per stored token (and per job for report tokens), by default
 *   `requestsPerSecond` 20 with a burst of 40, a tenant's own values when an admin set them. Admin
 *   tokens are never throttled. Over it: 429 with `Retry-After` naming the limit.
 * - **Event streams** (`GET /api/v1/events`): at most `eventStreamsPerToken` (4; a tenant's own
 *   value when set) open streams per token, `adminEventStreamsPerToken` (16) per admin token, and
 *   `eventStreamsTotal` (64) in all for tokens of tenants, of which one tenant's tokens hold at most
 *   half: a tenant that makes many tokens cannot shut the others out, and admins (not counted in the
 *   total) are never shut out. A closed stream frees its slot.
 */
import { tooManyRequests } from '../errors.js';
import type { TenantRecord } from '../ports/state-store.js';
import { TokenBuckets } from './token-buckets.js';
import type { Principal } from './tokens.js';

/** The server's limits (config keys of the same names). */
export interface ApiLimitSettings {
  /** Requests per second each non-admin token may make (refill rate). */
  readonly requestsPerSecond: number;
  /** Requests a token may make at once above that rate (the bucket's size). */
  readonly requestBurst: number;
  /** Open event streams per non-admin token. */
  readonly eventStreamsPerToken: number;
  /** Open event streams per admin token. */
  readonly adminEventStreamsPerToken: number;
  /** Open event streams in all. */
  readonly eventStreamsTotal: number;
}

/** The defaults of `ApiLimitSettings`. */
export const DEFAULT_API_LIMITS: ApiLimitSettings = {
  requestsPerSecond: 20,
  requestBurst: 40,
  eventStreamsPerToken: 4,
  adminEventStreamsPerToken: 16,
  eventStreamsTotal: 64,
};

/** The key of a principal's bucket and stream slots: its stored token, or its job for a report token. */
function keyOf(principal: Principal): string {
  if (principal.role === 'job') return `job:${principal.jobId ?? '?'}`;
  return `token:${principal.tokenId ?? `${principal.role}:${principal.tenant ?? ''}`}`;
}

/** Applies the limits; one per server. */
export class ApiLimits {
  private readonly buckets: TokenBuckets;
  private readonly streams = new Map<string, number>();
  private openStreams = 0;
  private readonly tenantStreams = new Map<string, number>();

  /**
   * @param tenantOf the tenant record of a name (its own limits), null when unknown
   * @param nowMs the clock, ms
   */
  constructor(
    private readonly settings: ApiLimitSettings,
    private readonly tenantOf: (name: string) => TenantRecord | null,
    private readonly nowMs: () => number,
    maxBuckets?: number,
  ) {
    this.buckets = new TokenBuckets(maxBuckets);
  }

  /**
   * Counts one API request of `principal` (after authentication).
   * @throws GpushareError 429 naming the limit, with `retryAfterSeconds` (whole seconds ≥ 1)
   */
  admitRequest(principal: Principal): void {
    if (principal.role === 'admin') return;
    const tenant = principal.tenant === null ? null : this.tenantOf(principal.tenant);
    const rate = tenant?.requestsPerSecond ?? this.settings.requestsPerSecond;
    const burst = tenant?.requestBurst ?? this.settings.requestBurst;
    const waitSeconds = this.buckets.take(keyOf(principal), { requestsPerSecond: rate, burst }, this.nowMs());
    if (waitSeconds === 0) return;
    const limit = `${rate} requests/s per token, burst ${burst}`;
    throw tooManyRequests(
      `too many requests: this token may make ${limit}` +
        `${
          tenant?.requestsPerSecond != null || tenant?.requestBurst != null
            ? ` (tenant ${tenant.name}'s limit)`
            : " (the server's " + 'requestsPerSecond and requestBurst)'
        }` +
        `; retry after the Retry-After header's seconds`,
      limit,
      Math.max(1, Math.ceil(waitSeconds)),
    );
  }

  /**
   * Takes an event-stream slot for `principal`.
   * @returns the function that frees it (idempotent)
   * @throws GpushareError 429 naming the per-token or the total limit
   */
  openStream(principal: Principal): () => void {
    const key = keyOf(principal);
    const tenant = principal.tenant === null ? null : this.tenantOf(principal.tenant);
    const perToken =
      principal.role === 'admin'
        ? this.settings.adminEventStreamsPerToken
        : (tenant?.eventStreamsPerToken ?? this.settings.eventStreamsPerToken);
    const held = this.streams.get(key) ?? 0;
    if (held >= perToken) {
      const limit = `${perToken} event streams per ${principal.role === 'admin' ? 'admin ' : ''}token`;
      throw tooManyRequests(
        `too many event streams: this token holds ${held} open, the limit is ${limit}; close one (another ` +
          `tab or client) and retry`,
        limit,
      );
    }
    // Admins count against their own per-token allowance only.
    const counted = principal.role !== 'admin';
    if (counted && this.openStreams >= this.settings.eventStreamsTotal) {
      const limit = `${this.settings.eventStreamsTotal} event streams in all`;
      throw tooManyRequests(
        `too many event streams: tenants' tokens hold ${this.openStreams} open, the limit is ${limit} ` +
          `(eventStreamsTotal); retry later`,
        limit,
      );
    }
    const tenantName = principal.tenant ?? '';
    const perTenant = Math.max(1, Math.floor(this.settings.eventStreamsTotal / 2));
    const tenantHeld = this.tenantStreams.get(tenantName) ?? 0;
    if (counted && tenantHeld >= perTenant) {
      const limit = `${perTenant} event streams per tenant (half of eventStreamsTotal)`;
      throw tooManyRequests(
        `too many event streams: tenant ${tenantName}'s tokens hold ${tenantHeld} open, the limit is ` +
          `${limit}; close some and retry`,
        limit,
      );
    }
    this.streams.set(key, held + 1);
    if (counted) {
      this.openStreams++;
      this.tenantStreams.set(tenantName, tenantHeld + 1);
    }
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      if (counted) {
        this.openStreams--;
        const tenantLeft = (this.tenantStreams.get(tenantName) ?? 1) - 1;
        if (tenantLeft <= 0) this.tenantStreams.delete(tenantName);
        else this.tenantStreams.set(tenantName, tenantLeft);
      }
      const left = (this.streams.get(key) ?? 1) - 1;
      if (left <= 0) this.streams.delete(key);
      else this.streams.set(key, left);
    };
  }

  /** Event streams open now (for tests and diagnostics). */
  get openStreamCount(): number {
    return this.openStreams;
  }
}

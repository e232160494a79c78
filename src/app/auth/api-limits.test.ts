import { describe, expect, it } from 'vitest';
import { GpushareError } from '../errors.js';
import { DEFAULT_TENANT_LIMITS, type TenantRecord } from '../ports/state-store.js';
import { ApiLimits, DEFAULT_API_LIMITS } from './api-limits.js';
import { TokenBuckets } from './token-buckets.js';
import type { Principal } from './tokens.js';

const member = (tokenId: number, tenant = 'team-a'): Principal => ({ role: 'member', tenant, tokenId });
const admin: Principal = { role: 'admin', tenant: null, tokenId: 100 };

/** The error `fn` throws (fails the test when it throws none). */
function thrown(fn: () => unknown): GpushareError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GpushareError) return error;
    throw error;
  }
  throw new Error('expected a GpushareError');
}

describe('TokenBuckets', () => {
  it('allows the burst at once, then one request per 1/rate seconds, and says how long to wait', () => {
    const buckets = new TokenBuckets();
    const limit = { requestsPerSecond: 2, burst: 3 };
    expect([0, 0, 0].map(() => buckets.take('a', limit, 1000))).toEqual([0, 0, 0]);
    expect(buckets.take('a', limit, 1000)).toBe(0.5);
    expect(buckets.take('a', limit, 1250)).toBe(0.25);
    expect(buckets.take('a', limit, 1500)).toBe(0);
    // Another key has its own bucket.
    expect(buckets.take('b', limit, 1500)).toBe(0);
  });

  it('keeps memory bounded: full buckets are dropped by a sweep, and never more than maxBuckets are held', () => {
    const buckets = new TokenBuckets(10);
    const limit = { requestsPerSecond: 1, burst: 2 };
    for (let i = 0; i < 1000; i++) buckets.take(`k${i}`, limit, 0);
    expect(buckets.size).toBe(10);
    // The ten kept are the most recently used: k999 has one request left, so a second is refused at once.
    expect(buckets.take('k999', limit, 0)).toBe(0);
    expect(buckets.take('k999', limit, 0)).toBe(1);
    buckets.sweep(2000); // every bucket is full again after burst / rate = 2 s
    expect(buckets.size).toBe(0);
  });
});

describe('ApiLimits', () => {
  const tenants = new Map<string, TenantRecord>();
  const tenantRecord = (name: string, limits: Partial<TenantRecord> = {}): TenantRecord => ({
    name,
    createdAtMs: 0,
    guaranteedGpuEquivalents: 0,
    limitGpuEquivalents: null,
    ...DEFAULT_TENANT_LIMITS,
    ...limits,
  });
  const nowMs = { value: 0 };
  const limits = (settings = DEFAULT_API_LIMITS) =>
    new ApiLimits(
      settings,
      (name) => tenants.get(name) ?? null,
      () => nowMs.value,
    );

  it(
    'lets a token make 40 requests at once (burst), refuses the 41st with 429 naming the limit and ' +
      'Retry-After 1, and throttles no admin',
    () => {
      tenants.set('team-a', tenantRecord('team-a'));
      const api = limits();
      for (let i = 0; i < 40; i++) api.admitRequest(member(7));
      const error = thrown(() => api.admitRequest(member(7)));
      expect([error.httpStatus, error.code, error.details]).toEqual([
        429,
        'GPUSHARE_TOO_MANY_REQUESTS',
        { limit: '20 requests/s per token, burst 40', retryAfterSeconds: 1 },
      ]);
      expect(error.message).toMatch(
        new RegExp(
          /^too many requests: this token may make 20 requests\/s per token, /.source +
            /burst 40 \(the server's requestsPerSecond and requestBurst\)/.source,
        ),
      );
      // Another token of the same tenant is not affected; 50 ms later one more request is in the bucket.
      api.admitRequest(member(8));
      nowMs.value += 50;
      api.admitRequest(member(7));
      // An admin's benchmark: 10000 requests in the same millisecond, none refused.
      for (let i = 0; i < 10_000; i++) api.admitRequest(admin);
    },
  );

  it("uses a tenant's own rate and burst, and one bucket per job for report tokens", () => {
    tenants.set('slow', tenantRecord('slow', { requestsPerSecond: 0.5, requestBurst: 2 }));
    const api = limits();
    api.admitRequest(member(9, 'slow'));
    api.admitRequest(member(9, 'slow'));
    const error = thrown(() => api.admitRequest(member(9, 'slow')));
    expect([error.httpStatus, error.details]).toEqual([
      429,
      { limit: '0.5 requests/s per token, burst 2', retryAfterSeconds: 2 },
    ]);
    expect(error.message).toContain("(tenant slow's limit)");
    const job = (jobId: number): Principal => ({ role: 'job', tenant: null, jobId });
    for (let i = 0; i < 40; i++) api.admitRequest(job(3));
    expect(thrown(() => api.admitRequest(job(3))).httpStatus).toBe(429);
    api.admitRequest(job(4));
  });

  it(
    "holds at most N streams per token, half of M per tenant and M in all for tenants' tokens; admins have " +
      'their own allowance and are never shut out; a closed stream frees its slot',
    () => {
      tenants.set('team-a', tenantRecord('team-a'));
      tenants.set('team-b', tenantRecord('team-b', { eventStreamsPerToken: 1 }));
      tenants.set('team-c', tenantRecord('team-c'));
      const api = limits({
        ...DEFAULT_API_LIMITS,
        eventStreamsPerToken: 2,
        adminEventStreamsPerToken: 3,
        eventStreamsTotal: 5,
      });
      const a = [api.openStream(member(1)), api.openStream(member(1))];
      const perToken = thrown(() => api.openStream(member(1)));
      expect([perToken.httpStatus, perToken.details]).toEqual([429, { limit: '2 event streams per token' }]);
      expect(perToken.message).toBe(
        'too many event streams: this token holds 2 open, the limit is 2 event streams per token; close ' +
          'one (another tab or client) and retry',
      );
      // team-a holds 2 of 5: half the total (rounded down), so another of its tokens waits.
      const perTenant = thrown(() => api.openStream(member(4)));
      expect([perTenant.httpStatus, perTenant.details]).toEqual([
        429,
        { limit: '2 event streams per tenant (half of eventStreamsTotal)' },
      ]);
      // Tenant team-b's own per-token limit is 1.
      api.openStream(member(2, 'team-b'));
      expect(thrown(() => api.openStream(member(2, 'team-b'))).details).toEqual({ limit: '1 event streams per token' });
      api.openStream(member(5, 'team-c'));
      api.openStream(member(6, 'team-c'));
      expect(api.openStreamCount).toBe(5);
      expect(thrown(() => api.openStream(member(7, 'team-b'))).details).toEqual({ limit: '5 event streams in all' });
      // Admins are not counted in the total: the tenants' streams never shut them out.
      for (let i = 0; i < 3; i++) api.openStream(admin);
      expect(thrown(() => api.openStream(admin)).details).toEqual({ limit: '3 event streams per admin token' });
      expect(api.openStreamCount).toBe(5);
      a[0]!();
      a[0]!(); // freeing twice frees one slot
      expect(api.openStreamCount).toBe(4);
      api.openStream(member(3));
    },
  );
});

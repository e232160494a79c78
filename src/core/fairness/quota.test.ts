import { describe, expect, it } from 'vitest';
import {
  borrowedGpuEquivalents,
  exceedsQuotaLimit,
  fitsInGuarantee,
  isUnderGuarantee,
  quotaAdmission,
  validateTenantQuota,
  type TenantQuota,
} from './quota.js';
import type { TenantUsage } from './tenant-usage.js';

const quota = (guaranteedGpuEquivalents: number, limitGpuEquivalents: number | null): TenantQuota => ({
  tenant: 'team-a',
  guaranteedGpuEquivalents,
  limitGpuEquivalents,
});
const usage = (gpuEquivalents: number): TenantUsage => ({ gpuEquivalents, cpuMilli: 0 });

describe('quotaAdmission', () => {
  it.each<
    [string, TenantQuota | undefined, number, number, { admitted: boolean; borrowing?: boolean; neverFits?: boolean }]
  >([
    [
      'guarantee 1 limit 1, request 1.2 on no usage: never fits',
      quota(1, 1),
      0,
      1.2,
      { admitted: false, neverFits: true },
    ],
    [
      'guarantee 1 limit 1, 0.5 + 0.5: admitted, not borrowing',
      quota(1, 1),
      0.5,
      0.5,
      { admitted: true, borrowing: false },
    ],
    [
      'guarantee 1 limit 1, 0.5 + 0.6: waits (fits once usage drops)',
      quota(1, 1),
      0.5,
      0.6,
      { admitted: false, neverFits: false },
    ],
    ['guarantee 1 limit 2, 1 + 0.5: borrowing', quota(1, 2), 1, 0.5, { admitted: true, borrowing: true }],
    ['guarantee 1 limit 2, 1.5 + 0.5: up to the limit', quota(1, 2), 1.5, 0.5, { admitted: true, borrowing: true }],
    ['guarantee 1 limit 2, 1.5 + 0.6: over the limit', quota(1, 2), 1.5, 0.6, { admitted: false, neverFits: false }],
    ['guarantee 1 no limit, 100 + 50: borrowing', quota(1, null), 100, 50, { admitted: true, borrowing: true }],
    ['guarantee 2 no limit, 0.5 + 1: within guarantee', quota(2, null), 0.5, 1, { admitted: true, borrowing: false }],
    ['guarantee 0 limit 0, a CPU-only job (0) still runs', quota(0, 0), 0, 0, { admitted: true, borrowing: false }],
    ['guarantee 0 limit 0, any GPU never fits', quota(0, 0), 0, 0.1, { admitted: false, neverFits: true }],
    ['no quota: no limit, everything with a GPU borrows', undefined, 7, 3, { admitted: true, borrowing: true }],
    ['no quota, CPU-only: not borrowing', undefined, 0, 0, { admitted: true, borrowing: false }],
    [
      'float sums within epsilon: 0.1 + 0.2 fits limit 0.3',
      quota(0.3, 0.3),
      0.1,
      0.2,
      { admitted: true, borrowing: false },
    ],
    ['limit exceeded by just over epsilon', quota(0, 1), 1, 2e-9, { admitted: false, neverFits: false }],
  ])('%s', (_name, q, used, request, expected) => {
    const result = quotaAdmission(q, usage(used), request);
    expect(result).toMatchObject(expected);
    if (!result.admitted) {
      expect(result.reason).toBe('quota');
      expect(result.message).toContain('team-a');
    }
  });

  it('names the tenant, the request, the usage and the limit', () => {
    const waits = quotaAdmission(quota(1, 2), usage(1.5), 0.6);
    expect(!waits.admitted && waits.message).toBe(
      "tenant team-a: 1.5 GPU-equivalents in use + 0.6 requested exceeds the tenant's limit of 2",
    );
    const never = quotaAdmission(quota(1, 1), usage(0), 1.2);
    expect(!never.admitted && never.message).toBe(
      "tenant team-a: the request of 1.2 GPU-equivalents exceeds the tenant's limit of 1",
    );
    const rounded = quotaAdmission(quota(0, 0.5), usage(0), 3 / 7);
    expect(rounded.admitted).toBe(true);
    const roundedOut = quotaAdmission(quota(0, 0.5), usage(0.2), 3 / 7);
    expect(!roundedOut.admitted && roundedOut.message).toContain('0.429 requested');
  });

  it.each([
    [-1, 0],
    [Number.NaN, 0],
    [0, -0.5],
    [0, Number.POSITIVE_INFINITY],
  ])('rejects request %d on usage %d', (request, used) => {
    expect(() => quotaAdmission(quota(1, 2), usage(used), request)).toThrow(RangeError);
  });
});

describe('exceedsQuotaLimit', () => {
  it.each<[TenantQuota | undefined, number, boolean]>([
    [quota(1, 1), 1.2, true],
    [quota(1, 1), 1, false],
    [quota(1, 1), 1 + 1e-12, false],
    [quota(1, null), 1000, false],
    [undefined, 1000, false],
  ])('%o, request %d → %s', (q, request, expected) => {
    expect(exceedsQuotaLimit(q, request)).toBe(expected);
  });
});

describe('borrowedGpuEquivalents, isUnderGuarantee, fitsInGuarantee', () => {
  it.each<[TenantQuota | undefined, number, number, boolean]>([
    [quota(1, 2), 0.5, 0, true],
    [quota(1, 2), 1, 0, false],
    [quota(1, 2), 1.5, 0.5, false],
    [quota(1, 2), 0.1 + 0.2 + 0.7, 0, false],
    [quota(0, null), 0, 0, false],
    [quota(0, null), 2, 2, false],
    [undefined, 3, 3, false],
  ])('%o with usage %d: borrowed %d, under guarantee %s', (q, used, borrowed, under) => {
    expect(borrowedGpuEquivalents(q, usage(used))).toBeCloseTo(borrowed, 12);
    expect(isUnderGuarantee(q, usage(used))).toBe(under);
  });

  it('tells whether a request is covered by the guarantee (may reclaim for it)', () => {
    expect(fitsInGuarantee(quota(2, 4), usage(1), 1)).toBe(true);
    expect(fitsInGuarantee(quota(2, 4), usage(1), 1.5)).toBe(false);
    expect(fitsInGuarantee(quota(0.3, 4), usage(0.1), 0.2)).toBe(true);
    expect(fitsInGuarantee(undefined, usage(0), 0.1)).toBe(false);
  });
});

describe('validateTenantQuota', () => {
  it('accepts valid quotas', () => {
    expect(validateTenantQuota(quota(0, null))).toEqual([]);
    expect(validateTenantQuota(quota(1, 1))).toEqual([]);
    expect(validateTenantQuota(quota(1.5, 4))).toEqual([]);
  });

  it.each<[TenantQuota, RegExp[]]>([
    [quota(-1, 2), [/^guaranteedGpuEquivalents must be a number ≥ 0, got -1$/]],
    [quota(Number.NaN, 2), [/^guaranteedGpuEquivalents/]],
    [quota(2, 1), [/^limitGpuEquivalents must be at least guaranteedGpuEquivalents \(2\), got 1$/]],
    [quota(0, -1), [/^limitGpuEquivalents must be null \(no limit\) or a number ≥ 0, got -1$/]],
    [quota(0, Number.POSITIVE_INFINITY), [/^limitGpuEquivalents/]],
    [
      { tenant: '', guaranteedGpuEquivalents: -1, limitGpuEquivalents: -2 },
      [/^tenant/, /^guaranteedGpuEquivalents/, /^limitGpuEquivalents/],
    ],
  ])('%o → problems naming the field', (q, expected) => {
    const problems = validateTenantQuota(q);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((pattern, i) => expect(problems[i]).toMatch(pattern));
  });
});

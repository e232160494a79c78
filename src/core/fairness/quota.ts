/**
 * Tenant quotas in GPU-equivalents: a guarantee (capacity the tenant can always get back, by
 * preempting jobs of tenants that borrow) and a limit (the most it may hold at once). Between the
 * two the tenant is borrowing: it uses capacity that is idle now but guaranteed to someone else,
 * and those jobs are the ones reclaimed first. Pure rules; the server keeps quotas and usage.
 *
 * All comparisons allow {@link GPU_EQUIVALENT_EPSILON} (absolute), so float sums such as
 * 0.1 + 0.2 still fit a limit of 0.3.
 */
import { GPU_EQUIVALENT_EPSILON } from './gpu-equivalents.js';
import type { TenantUsage } from './tenant-usage.js';

/** A tenant's quota, in GPU-equivalents. */
export interface TenantQuota {
  /** Tenant name. */
  readonly tenant: string;
  /** GPU-equivalents the tenant is guaranteed (may reclaim by preemption), ≥ 0. */
  readonly guaranteedGpuEquivalents: number;
  /** Most GPU-equivalents the tenant may hold at once, ≥ the guarantee; null = no limit. */
  readonly limitGpuEquivalents: number | null;
}

/** Outcome of {@link quotaAdmission}. */
export type QuotaAdmission =
  | {
      readonly admitted: true;
      /** True when the tenant's usage with the request exceeds its guarantee (the job is reclaimable). */
      readonly borrowing: boolean;
    }
  | {
      readonly admitted: false;
      readonly reason: 'quota';
      /** True when the request exceeds the limit even with zero usage: reject it at submit, it can never run. */
      readonly neverFits: boolean;
      /** Names the tenant, the request, the usage and the limit. */
      readonly message: string;
      /** The tenant's GPU-equivalents in use. */
      readonly usedGpuEquivalents: number;
      /** The tenant's limit in GPU-equivalents. */
      readonly limitGpuEquivalents: number;
    };

/**
 * Whether a tenant holding `usage` may start a job of `requestGpuEquivalents` now: admitted while
 * usage + request ≤ limit (+ epsilon); `borrowing` when usage + request > guarantee (+ epsilon).
 * A tenant without a quota (`undefined`) has no limit and no guarantee, so anything it runs with a
 * GPU is borrowing. Only GPU-equivalents are limited; `usage.cpuMilli` is not read.
 *
 * @throws RangeError when `requestGpuEquivalents` or `usage.gpuEquivalents` is negative or not finite
 */
export function quotaAdmission(
  quota: TenantQuota | undefined,
  usage: TenantUsage,
  requestGpuEquivalents: number,
): QuotaAdmission {
  checkAmount('requestGpuEquivalents', requestGpuEquivalents);
  checkAmount('usage.gpuEquivalents', usage.gpuEquivalents);
  const after = usage.gpuEquivalents + requestGpuEquivalents;
  const limit = quota?.limitGpuEquivalents ?? null;
  if (quota !== undefined && limit !== null && after > limit + GPU_EQUIVALENT_EPSILON) {
    const { tenant } = quota;
    if (requestGpuEquivalents > limit + GPU_EQUIVALENT_EPSILON) {
      return {
        admitted: false,
        reason: 'quota',
        neverFits: true,
        usedGpuEquivalents: usage.gpuEquivalents,
        limitGpuEquivalents: limit,
        message:
          `tenant ${tenant}: the request of ${fmt(requestGpuEquivalents)} GPU-equivalents exceeds the ` +
          `tenant's limit of ${fmt(limit)}`,
      };
    }
    return {
      admitted: false,
      reason: 'quota',
      neverFits: false,
      usedGpuEquivalents: usage.gpuEquivalents,
      limitGpuEquivalents: limit,
      message:
        `tenant ${tenant}: ${fmt(usage.gpuEquivalents)} GPU-equivalents in use + ` +
        `${fmt(requestGpuEquivalents)} requested exceeds the tenant's limit of ${fmt(limit)}`,
    };
  }
  const guaranteed = quota?.guaranteedGpuEquivalents ?? 0;
  return { admitted: true, borrowing: after > guaranteed + GPU_EQUIVALENT_EPSILON };
}

/**
 * True when a request of `requestGpuEquivalents` could never be admitted, whatever runs: it exceeds
 * the tenant's limit on its own (the server rejects it at submit). False without a quota or limit.
 *
 * @throws RangeError when `requestGpuEquivalents` is negative or not finite
 */
export function exceedsQuotaLimit(quota: TenantQuota | undefined, requestGpuEquivalents: number): boolean {
  checkAmount('requestGpuEquivalents', requestGpuEquivalents);
  const limit = quota?.limitGpuEquivalents ?? null;
  return limit !== null && requestGpuEquivalents > limit + GPU_EQUIVALENT_EPSILON;
}

/**
 * GPU-equivalents the tenant holds beyond its guarantee (0 when within it, or within epsilon of
 * it); all of its usage without a quota.
 */
export function borrowedGpuEquivalents(quota: TenantQuota | undefined, usage: TenantUsage): number {
  const borrowed = usage.gpuEquivalents - (quota?.guaranteedGpuEquivalents ?? 0);
  return borrowed > GPU_EQUIVALENT_EPSILON ? borrowed : 0;
}

/**
 * True when the tenant holds less than its guarantee (by more than epsilon): it has guaranteed
 * capacity unused, which it may reclaim from borrowers. False without a quota.
 */
export function isUnderGuarantee(quota: TenantQuota | undefined, usage: TenantUsage): boolean {
  return quota !== undefined && usage.gpuEquivalents < quota.guaranteedGpuEquivalents - GPU_EQUIVALENT_EPSILON;
}

/**
 * True when usage + `requestGpuEquivalents` stays within the tenant's guarantee (+ epsilon): the
 * request is covered by the guarantee, so borrowed capacity may be reclaimed (preempted) for it.
 * Without a quota the guarantee is 0.
 */
export function fitsInGuarantee(
  quota: TenantQuota | undefined,
  usage: TenantUsage,
  requestGpuEquivalents: number,
): boolean {
  return (
    usage.gpuEquivalents + requestGpuEquivalents <= (quota?.guaranteedGpuEquivalents ?? 0) + GPU_EQUIVALENT_EPSILON
  );
}

/**
 * Checks a quota's values. Returns a list of problems, each naming the field and what is allowed;
 * empty when the quota is valid: `tenant` non-empty, `guaranteedGpuEquivalents` a finite number
 * ≥ 0, `limitGpuEquivalents` null or a finite number ≥ `guaranteedGpuEquivalents`.
 */
export function validateTenantQuota(quota: TenantQuota): string[] {
  const problems: string[] = [];
  if (quota.tenant.length === 0) problems.push('tenant must be a non-empty name');
  const { guaranteedGpuEquivalents: guaranteed, limitGpuEquivalents: limit } = quota;
  const guaranteeValid = Number.isFinite(guaranteed) && guaranteed >= 0;
  if (!guaranteeValid) problems.push(`guaranteedGpuEquivalents must be a number ≥ 0, got ${guaranteed}`);
  if (limit !== null) {
    if (!Number.isFinite(limit) || limit < 0) {
      problems.push(`limitGpuEquivalents must be null (no limit) or a number ≥ 0, got ${limit}`);
    } else if (guaranteeValid && limit < guaranteed) {
      problems.push(`limitGpuEquivalents must be at least guaranteedGpuEquivalents (${guaranteed}), got ${limit}`);
    }
  }
  return problems;
}

function checkAmount(field: string, value: number): void {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${field} must be a non-negative number, got ${value}`);
}

/** Up to 3 decimals, without trailing zeros, for messages. */
function fmt(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

/**
 * Why the jobs a pass did not visit wait, as plain data (run-pass.ts stops visiting jobs without a
 * time limit once every GPU is one the blocked job may use). An unvisited job waits for its
 * tenant's quota, checked with the usage it would have met at its place in the queue (the usage
 * when the pass stopped, plus the placements the pass made ahead of it after that), or else behind
 * the blocked job. {@link unvisitedWait} works one job's reason out on demand, from the data alone.
 */
import { queuedGpuEquivalents, type GpuKind } from '../fairness/job-size.js';
import { quotaAdmission, type TenantQuota } from '../fairness/quota.js';
import type { TenantUsage } from '../fairness/tenant-usage.js';
import type { JobRequest } from '../model/request.js';
import { waitReason, WAIT_CODES, type WaitReason } from '../model/status.js';
import {
  compareSortKeys,
  queueSortKey,
  type AgingSettings,
  type QueueEntry,
  type QueueOrderContext,
} from '../queue/queue-order.js';

/** A tenant's usage from a point of the queue on. */
export interface UsageStep {
  readonly tenant: string;
  readonly usage: TenantUsage;
  /**
   * The job placed after the stop that brought the tenant to `usage` (its queue entry); null for
   * the usage when the pass stopped.
   */
  readonly after: QueueEntry | null;
}

/** The data of the unvisited jobs' reasons. */
export interface UnvisitedWaits {
  /** The blocked job they wait behind (EASY backfill). */
  readonly blockedJobId: number;
  /** Its reserved start, ms since the epoch; null when unknown. */
  readonly reservedStartMs: number | null;
  /** The pass's queue order: now (ms since the epoch), aging (null: the default), each tenant's dominant share. */
  readonly order: {
    readonly nowMs: number;
    readonly aging: AgingSettings | null;
    readonly dominantShares: readonly { readonly tenant: string; readonly share: number }[];
  };
  /** Tenants' quotas; empty for a pass without rules. */
  readonly quotas: readonly TenantQuota[];
  /** Usage steps, per tenant in the queue order of their `after` (the stop's first). */
  readonly usage: readonly UsageStep[];
  /** The kinds of GPU of the cluster (a queued job's size in GPU-equivalents depends on them alone). */
  readonly gpuKinds: readonly GpuKind[];
}

/** The queue order context of the data. */
function orderOf(unvisited: UnvisitedWaits): QueueOrderContext {
  return {
    nowMs: unvisited.order.nowMs,
    dominantShareByTenant: new Map(unvisited.order.dominantShares.map((s) => [s.tenant, s.share])),
    ...(unvisited.order.aging === null ? {} : { aging: unvisited.order.aging }),
  };
}

/**
 * Why `job`, a job the pass did not visit, waits: its quota, with the usage at its place in the
 * queue, or the blocked job ahead of it (a `backfill` reason).
 */
export function unvisitedWait(unvisited: UnvisitedWaits, job: JobRequest): WaitReason {
  const quota = unvisited.quotas.find((q) => q.tenant === job.tenant);
  if (quota !== undefined) {
    const ctx = orderOf(unvisited);
    const key = queueSortKey(job, ctx);
    let usage: TenantUsage = { gpuEquivalents: 0, cpuMilli: 0 };
    for (const step of unvisited.usage) {
      if (step.tenant !== job.tenant) continue;
      if (step.after !== null && compareSortKeys(queueSortKey(step.after, ctx), key) >= 0) break;
      usage = step.usage;
    }
    const size = queuedGpuEquivalents(job.gpu, unvisited.gpuKinds);
    const verdict = quotaAdmission(quota, usage, size);
    if (!verdict.admitted)
      return waitReason(WAIT_CODES.quota, {
        tenant: job.tenant,
        usedGpuEquivalents: verdict.usedGpuEquivalents,
        sizeGpuEquivalents: size,
        limitGpuEquivalents: verdict.limitGpuEquivalents,
      });
  }
  return waitReason(WAIT_CODES.backfill, {
    blockedJobId: unvisited.blockedJobId,
    timeLimitSeconds: job.timeLimitSeconds ?? null,
    reservedStartMs: unvisited.reservedStartMs,
  });
}

/** A queue entry with only what the order reads (no command, no request). */
export function entryOf(job: QueueEntry): QueueEntry {
  return { id: job.id, tenant: job.tenant, priority: job.priority, submittedAtMs: job.submittedAtMs };
}

/**
 * The rules a scheduling pass of the server applies around placement (docs/fair-share.md): queue
 * order by priority with aging, then the tenant's weighted dominant share, then submit time; tenant
 * quotas (a job waits with reason `quota` while it would take its tenant over its limit); and EASY
 * backfill against the first blocked job's reserved start. Built fresh for every pass from what
 * runs now.
 */
import {
  createQueueComparator, dominantSharesByTenant, quotaAdmission, type GpuDevice, type PassOptions,
  type JobRequest, type TenantQuota, type TenantUsage,
} from '../../core/index.js';
import type { JobRecord, TenantRecord } from '../ports/state-store.js';
import { placedGpuEquivalents, queuedGpuEquivalents } from './job-size.js';

/** What the pass rules are built from. */
export interface PassPolicyInput {
  /** Jobs that hold resources now (scheduled or running). */
  readonly active: readonly JobRecord[];
  readonly tenants: readonly TenantRecord[];
  readonly devices: readonly GpuDevice[];
  readonly hostCpuMilli: number;
  readonly nowMs: number;
  /** Time limit of each queued job, seconds (null: none). */
  readonly timeLimitSecondsOf: (jobId: number) => number | null;
  /**
   * Sizes of queued jobs kept across passes, by job id (a job's size depends only on its request and
   * the GPU list): the caller clears it when the GPUs change and drops jobs that leave the queue.
   */
  readonly sizeCache: Map<number, number>;
  /**
   * Running jobs violating a QoS target (docs/qos.md): their GPUs take no newly placed job of lower
   * priority. Absent or empty: no GPU is protected.
   */
  readonly qosViolators?: readonly { readonly jobId: number; readonly priority: number; readonly gpuIndices: readonly number[] }[];
}

/** The pass options plus the tenant bookkeeping preemption needs afterwards. */
export interface PassPolicy {
  readonly options: PassOptions;
  readonly quotas: ReadonlyMap<string, TenantQuota>;
  /** GPU-equivalents and CPU in use per tenant, including placements of this pass. */
  readonly usage: Map<string, TenantUsage>;
  /** Jobs the pass kept waiting because of their tenant's quota. */
  readonly quotaRefused: Set<number>;
  /** Size of a queued job in GPU-equivalents. */
  readonly sizeOf: (job: JobRequest) => number;
}

/**
 * GPUs a pending job must keep off: each GPU of a violating job of higher priority than the pending
 * one, with `job N misses its QoS target` (the lowest such job id names the GPU).
 */
function protectedGpusOf(violators: NonNullable<PassPolicyInput['qosViolators']>): PassOptions['protectedGpus'] {
  if (violators.length === 0) return undefined;
  const sorted = [...violators].sort((a, b) => a.jobId - b.jobId);
  return (job) => {
    let guarded: Map<number, string> | null = null;
    for (const v of sorted) {
      if (v.priority <= job.priority) continue;
      guarded ??= new Map();
      for (const index of v.gpuIndices) if (!guarded.has(index)) guarded.set(index, `job ${v.jobId} misses its QoS target`);
    }
    return guarded;
  };
}

/** Builds the rules of one pass. */
export function buildPassPolicy(input: PassPolicyInput): PassPolicy {
  const devices = new Map(input.devices.map((d) => [d.index, d]));
  const quotas = new Map(input.tenants.map((t) => [t.name, { tenant: t.name, guaranteedGpuEquivalents: t.guaranteedGpuEquivalents, limitGpuEquivalents: t.limitGpuEquivalents }]));
  const usage = new Map<string, TenantUsage>();
  const add = (tenant: string, gpuEquivalents: number, cpuMilli: number) => {
    const u = usage.get(tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 };
    usage.set(tenant, { gpuEquivalents: u.gpuEquivalents + gpuEquivalents, cpuMilli: u.cpuMilli + cpuMilli });
  };
  for (const job of input.active) if (job.placement) add(job.tenant, placedGpuEquivalents(job.gpu, job.placement, devices), job.cpuMilli);
  const sizes = input.sizeCache;
  const sizeOf = (job: JobRequest): number => {
    let size = sizes.get(job.id);
    if (size === undefined) sizes.set(job.id, (size = queuedGpuEquivalents(job.gpu, input.devices)));
    return size;
  };
  // Weighted DRF: a tenant's weight is its guarantee (1 when it has none), as quota-weighted fair share does.
  const capacity = { gpuEquivalents: Math.max(1, input.devices.length), cpuMilli: Math.max(1, input.hostCpuMilli) };
  const shares = dominantSharesByTenant(usage, capacity, (tenant) => Math.max(1, quotas.get(tenant)?.guaranteedGpuEquivalents ?? 0));
  const ctx = { nowMs: input.nowMs, dominantShareByTenant: shares };
  const quotaRefused = new Set<number>();
  const options: PassOptions = {
    compare: createQueueComparator<JobRequest>(ctx),
    admit: (job) => {
      const admission = quotaAdmission(quotas.get(job.tenant), usage.get(job.tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 }, sizeOf(job));
      if (admission.admitted) return null;
      quotaRefused.add(job.id);
      return `quota: ${admission.message}`;
    },
    onPlaced: (job, placement) => add(job.tenant, placedGpuEquivalents(job.gpu, placement, devices), job.cpuMilli),
    protectedGpus: protectedGpusOf(input.qosViolators ?? []),
    backfill: {
      nowMs: input.nowMs,
      running: input.active.map((j) => ({ jobId: j.id, expectedEndMs: j.timeLimitSeconds !== null && j.startedAtMs !== null ? j.startedAtMs + j.timeLimitSeconds * 1000 : null })),
      timeLimitSecondsOf: (job) => input.timeLimitSecondsOf(job.id),
    },
  };
  return { options, quotas, usage, quotaRefused, sizeOf };
}

/**
 * The rules a scheduling pass applies around placement (docs/fair-share.md): queue order by
 * priority with aging, then the tenant's weighted dominant share, then submit time; tenant quotas
 * (a job waits with reason `quota` while it would take its tenant over its limit); EASY backfill
 * against the first blocked job's reserved start; and QoS protection (the GPUs of a job that
 * misses its QoS target take no newly placed job of lower priority). Built fresh for every pass
 * from what runs now.
 */
import type { ActiveJob } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { JobRequest } from '../model/request.js';
import { dominantSharesByTenant } from '../fairness/dominant-share.js';
import { gpuKindsOf, placedGpuEquivalents, queuedGpuEquivalents, type GpuKind } from '../fairness/job-size.js';
import { quotaAdmission, type TenantQuota } from '../fairness/quota.js';
import type { TenantUsage } from '../fairness/tenant-usage.js';
import type { RunningJobEnd } from '../queue/backfill.js';
import { createQueueComparator, type QueueOrderContext } from '../queue/queue-order.js';
import { waitReason, WAIT_CODES, type WaitReason } from '../model/status.js';

/** A running job that misses a QoS target (docs/qos.md). */
export interface QosViolator {
  readonly jobId: number;
  readonly priority: number;
  /** Its node and GPUs. */
  readonly node: string;
  readonly gpuIndices: readonly number[];
}

/** What the pass rules are built from. */
export interface PassRulesInput {
  /** Jobs that hold resources now. */
  readonly active: readonly ActiveJob[];
  readonly tenants: readonly TenantQuota[];
  /** Every GPU of the cluster, with the node it is on. */
  readonly gpus: readonly { readonly node: string; readonly device: GpuDevice }[];
  /** Host CPU of the whole cluster, milli-cores (fair share's second resource). */
  readonly hostCpuMilli: number;
  readonly nowMs: number;
  /**
   * Sizes of queued jobs kept across passes, by job id (a size depends only on the request and the
   * GPU list): the caller clears it when the GPUs change and drops jobs that leave the queue.
   */
  readonly sizeCache?: Map<number, number>;
  /** Running jobs violating a QoS target; absent or empty: no GPU is protected. */
  readonly qosViolators?: readonly QosViolator[];
  /** `gpuLookupOf(gpus)`, when the caller keeps it across passes (the GPUs did not change). */
  readonly gpuLookup?: GpuLookup;
}

/** The cluster's GPUs as the rules look them up: by `node/index`, and as one list. */
export interface GpuLookup {
  readonly deviceOf: ReadonlyMap<string, GpuDevice>;
  readonly devices: readonly GpuDevice[];
}

/** The lookup of `gpus` (every GPU of the cluster, with its node) that `buildPassRules` uses. */
export function gpuLookupOf(gpus: PassRulesInput['gpus']): GpuLookup {
  return {
    deviceOf: new Map(gpus.map(({ node, device }) => [`${node}/${device.index}`, device])),
    devices: gpus.map((g) => g.device),
  };
}

/** The rules of one pass, and the tenant bookkeeping preemption needs afterwards. */
export interface PassRules {
  /** Queue order comparator (a total order). */
  readonly compare: (a: JobRequest, b: JobRequest) => number;
  /** What the queue order of this pass depends on (for a QueueIndex's lazy order). */
  readonly orderContext: QueueOrderContext;
  /**
   * Checked before a job is tried: a reason keeps it waiting (it reserves nothing), null lets it be placed. Records the
   * refusal in `quotaRefused`.
   */
  readonly admit: (job: JobRequest) => WaitReason | null;
  /**
   * `admit` without recording anything: why `job` would be refused with its tenant's `usage` (default: now), or null.
   */
  readonly admission: (job: JobRequest, usage?: TenantUsage) => WaitReason | null;
  /** Told about each placement as it is made (the tenant's usage grows). */
  readonly onPlaced: (job: JobRequest, node: string, placement: ActiveJob['assignment']['placement']) => void;
  /**
   * GPUs `job` must keep off in this pass (by node name, then GPU index), each with the id of the
   * job that misses its QoS target there; null for none. A job that fits only on protected GPUs
   * waits, reserving nothing.
   */
  readonly protectedGpus: (job: JobRequest) => ReadonlyMap<string, ReadonlyMap<number, number>> | null;
  /** Backfill: now, and when each running job ends at the latest. */
  readonly backfill: { readonly nowMs: number; readonly running: readonly RunningJobEnd[] };
  readonly quotas: ReadonlyMap<string, TenantQuota>;
  /** GPU-equivalents and CPU in use per tenant, including placements of this pass. */
  readonly usage: Map<string, TenantUsage>;
  /** Jobs the pass kept waiting because of their tenant's quota. */
  readonly quotaRefused: Set<number>;
  /** Size of a queued job in GPU-equivalents. */
  readonly sizeOf: (job: JobRequest) => number;
  /** The kinds of GPU of the cluster (what a queued job's size depends on). */
  readonly gpuKinds: readonly GpuKind[];
}

/** Builds the rules of one pass. */
export function buildPassRules(input: PassRulesInput): PassRules {
  const { deviceOf, devices } = input.gpuLookup ?? gpuLookupOf(input.gpus);
  const quotas = new Map(input.tenants.map((t) => [t.tenant, t]));
  const usage = new Map<string, TenantUsage>();
  const add = (tenant: string, gpuEquivalents: number, cpuMilli: number): void => {
    const u = usage.get(tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 };
    usage.set(tenant, { gpuEquivalents: u.gpuEquivalents + gpuEquivalents, cpuMilli: u.cpuMilli + cpuMilli });
  };
  const placedSize = (job: JobRequest, node: string, placement: ActiveJob['assignment']['placement']): number =>
    placedGpuEquivalents(job.gpu, placement, deviceOf.get(`${node}/${placement.gpus[0]?.index}`));
  for (const { request, assignment } of input.active)
    add(request.tenant, placedSize(request, assignment.node, assignment.placement), request.cpuMilli);
  const sizes = input.sizeCache ?? new Map<number, number>();
  const sizeOf = (job: JobRequest): number => {
    let size = sizes.get(job.id);
    if (size === undefined) sizes.set(job.id, (size = queuedGpuEquivalents(job.gpu, devices)));
    return size;
  };
  // Weighted DRF: a tenant's weight is its guarantee (1 when it has none), as quota-weighted fair share does.
  const capacity = { gpuEquivalents: Math.max(1, devices.length), cpuMilli: Math.max(1, input.hostCpuMilli) };
  const shares = dominantSharesByTenant(usage, capacity, (tenant) =>
    Math.max(1, quotas.get(tenant)?.guaranteedGpuEquivalents ?? 0),
  );
  const quotaRefused = new Set<number>();
  const orderContext: QueueOrderContext = { nowMs: input.nowMs, dominantShareByTenant: shares };
  const admission = (job: JobRequest, tenantUsage?: TenantUsage): WaitReason | null => {
    const verdict = quotaAdmission(
      quotas.get(job.tenant),
      tenantUsage ?? usage.get(job.tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 },
      sizeOf(job),
    );
    return verdict.admitted
      ? null
      : waitReason(WAIT_CODES.quota, {
          tenant: job.tenant,
          usedGpuEquivalents: verdict.usedGpuEquivalents,
          sizeGpuEquivalents: sizeOf(job),
          limitGpuEquivalents: verdict.limitGpuEquivalents,
        });
  };
  return {
    compare: createQueueComparator<JobRequest>(orderContext),
    orderContext,
    admit: (job) => {
      const refused = admission(job);
      if (refused !== null) quotaRefused.add(job.id);
      return refused;
    },
    admission,
    onPlaced: (job, node, placement) => add(job.tenant, placedSize(job, node, placement), job.cpuMilli),
    protectedGpus: protectedGpusOf(input.qosViolators ?? []),
    backfill: {
      nowMs: input.nowMs,
      running: input.active.map(({ request, assignment, startedAtMs }) => ({
        jobId: assignment.jobId,
        expectedEndMs:
          request.timeLimitSeconds != null && startedAtMs !== null
            ? startedAtMs + request.timeLimitSeconds * 1000
            : null,
      })),
    },
    quotas,
    usage,
    quotaRefused,
    sizeOf,
    gpuKinds: gpuKindsOf(devices),
  };
}

/**
 * GPUs a pending job must keep off: each GPU of a violating job of higher priority than the pending
 * one, with the job that misses its QoS target there (the lowest such job id names the GPU).
 */
function protectedGpusOf(violators: readonly QosViolator[]): PassRules['protectedGpus'] {
  if (violators.length === 0) return () => null;
  const sorted = [...violators].sort((a, b) => a.jobId - b.jobId);
  return (job) => {
    let guarded: Map<string, Map<number, number>> | null = null;
    for (const v of sorted) {
      if (v.priority <= job.priority) continue;
      guarded ??= new Map();
      const onNode = guarded.get(v.node) ?? new Map<number, number>();
      guarded.set(v.node, onNode);
      for (const index of v.gpuIndices) if (!onNode.has(index)) onNode.set(index, v.jobId);
    }
    return guarded;
  };
}

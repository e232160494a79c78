/**
 * Tenants' use against their quotas (`GET /api/v1/quotas`, `gpushare quota`): GPU-equivalents held
 * by their scheduled and running jobs, the part above the guarantee (borrowed, reclaimable), and
 * what their queued jobs ask for.
 */
import { borrowedGpuEquivalents, type GpuDevice, type GpuRequest } from '../../core/index.js';
import type { JobRecord, TenantRecord } from '../ports/state-store.js';
import { placedGpuEquivalents, queuedGpuEquivalents } from '../../core/index.js';

/** One tenant's use; GPU-equivalents rounded to 3 decimals. */
export interface QuotaUse {
  readonly tenant: string;
  readonly guaranteedGpuEquivalents: number;
  readonly limitGpuEquivalents: number | null;
  readonly usedGpuEquivalents: number;
  readonly borrowedGpuEquivalents: number;
  readonly queuedGpuEquivalents: number;
  readonly runningJobs: number;
  readonly queuedJobs: number;
}

/** Use of each tenant in `tenants`, by name. */
export function quotaUse(
  tenants: readonly TenantRecord[],
  active: readonly JobRecord[],
  queued: readonly JobRecord[],
  devices: readonly GpuDevice[],
): QuotaUse[] {
  const byIndex = new Map(devices.map((d) => [d.index, d]));
  const round = (x: number) => Math.round(x * 1000) / 1000;
  // A deep queue holds few request shapes: each shape's size is worked out once per call.
  const sizes = new Map<string, number>();
  const queuedSize = (gpu: GpuRequest): number => {
    const key =
      `${gpu.gpuCount}|${gpu.gpuMilli}|${gpu.gpuMemoryMiB}|${gpu.mode}|${gpu.isolation ?? ''}|` +
      `${gpu.allowedGpuModels?.join(',') ?? ''}`;
    let size = sizes.get(key);
    if (size === undefined) {
      size = queuedGpuEquivalents(gpu, devices);
      sizes.set(key, size);
    }
    return size;
  };
  return tenants.map((t) => {
    const mine = active.filter((j) => j.tenant === t.name && j.placement);
    const waiting = queued.filter((j) => j.tenant === t.name);
    const used = mine.reduce(
      (sum, j) => sum + placedGpuEquivalents(j.gpu, j.placement!, byIndex.get(j.placement!.gpus[0]?.index ?? -1)),
      0,
    );
    const quota = {
      tenant: t.name,
      guaranteedGpuEquivalents: t.guaranteedGpuEquivalents,
      limitGpuEquivalents: t.limitGpuEquivalents,
    };
    return {
      tenant: t.name,
      guaranteedGpuEquivalents: t.guaranteedGpuEquivalents,
      limitGpuEquivalents: t.limitGpuEquivalents,
      usedGpuEquivalents: round(used),
      borrowedGpuEquivalents: round(borrowedGpuEquivalents(quota, { gpuEquivalents: used, cpuMilli: 0 })),
      queuedGpuEquivalents: round(waiting.reduce((sum, j) => sum + queuedSize(j.gpu), 0)),
      runningJobs: mine.length,
      queuedJobs: waiting.length,
    };
  });
}

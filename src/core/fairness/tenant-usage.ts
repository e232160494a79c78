/**
 * What a tenant (or a cluster) holds, in the two resources fair share and quotas count: GPU in
 * GPU-equivalents (src/core/fairness/gpu-equivalents.ts) and host CPU in milli-cores.
 */

/** Resources held by a tenant's running jobs, or a cluster's capacity in the same units. */
export interface TenantUsage {
  /** GPU held, in GPU-equivalents (1 = one whole GPU), ≥ 0. */
  readonly gpuEquivalents: number;
  /** Host CPU held, in milli-cores (1000 = one vCPU), ≥ 0. */
  readonly cpuMilli: number;
}

/** Capacity shared by the tenants, in the units of {@link TenantUsage} (e.g. a server's GPUs and CPUs). */
export type ClusterCapacity = TenantUsage;

/** The sum of two usages (e.g. a tenant's usage plus one job's request). */
export function addUsage(a: TenantUsage, b: TenantUsage): TenantUsage {
  return { gpuEquivalents: a.gpuEquivalents + b.gpuEquivalents, cpuMilli: a.cpuMilli + b.cpuMilli };
}

/**
 * Weighted dominant-resource fairness (DRF; Ghodsi et al., NSDI 2011) over two resources: GPU in
 * GPU-equivalents and host CPU in milli-cores. A tenant's dominant share is the larger of its shares
 * of the two capacities, divided by its weight; the queue serves the tenant with the least first.
 */
import type { ClusterCapacity, TenantUsage } from './tenant-usage.js';

/**
 * A tenant's weighted dominant share: max(usage GPU-equivalents / capacity GPU-equivalents,
 * usage cpuMilli / capacity cpuMilli) / weight. A resource whose capacity is 0 is left out (a
 * server reserving no CPU is shared by GPU alone); 0 when both are. Dimensionless, ≥ 0; it may
 * exceed 1 / weight if usage exceeds capacity (e.g. while capacity shrinks).
 * Monotone: more usage never gives a smaller share; a larger weight never a larger one.
 *
 * @throws RangeError naming the field when a usage or capacity figure is negative or not finite,
 * or `weight` is not a positive finite number
 */
export function dominantShare(usage: TenantUsage, capacity: ClusterCapacity, weight = 1): number {
  check('usage.gpuEquivalents', usage.gpuEquivalents);
  check('usage.cpuMilli', usage.cpuMilli);
  check('capacity.gpuEquivalents', capacity.gpuEquivalents);
  check('capacity.cpuMilli', capacity.cpuMilli);
  if (!Number.isFinite(weight) || weight <= 0) throw new RangeError(`weight must be a positive number, got ${weight}`);
  const gpuShare = capacity.gpuEquivalents > 0 ? usage.gpuEquivalents / capacity.gpuEquivalents : 0;
  const cpuShare = capacity.cpuMilli > 0 ? usage.cpuMilli / capacity.cpuMilli : 0;
  return Math.max(gpuShare, cpuShare) / weight;
}

/**
 * The weighted dominant share of every tenant in `usageByTenant`, as the map the queue order takes
 * (src/core/queue/queue-order.ts). `weightOf` gives each tenant's weight (default 1 for all).
 *
 * @throws RangeError as {@link dominantShare}
 */
export function dominantSharesByTenant(
  usageByTenant: ReadonlyMap<string, TenantUsage>,
  capacity: ClusterCapacity,
  weightOf: (tenant: string) => number = () => 1,
): Map<string, number> {
  const shares = new Map<string, number>();
  for (const [tenant, usage] of usageByTenant) shares.set(tenant, dominantShare(usage, capacity, weightOf(tenant)));
  return shares;
}

function check(field: string, value: number): void {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${field} must be a non-negative number, got ${value}`);
}

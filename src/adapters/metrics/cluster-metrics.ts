/**
 * Cluster gauges (docs/metrics.md "Cluster"): schedulable capacity, allocation and its ratio, and
 * the FGD fragmentation measure (src/app/scheduling/cluster-usage.ts). The target workload M is
 * the scheduler's own: the shapes of the last RECENT_SHAPES_KEPT submitted jobs (recent-shapes.ts).
 */
import type { Registry } from 'prom-client';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import { clusterUsage } from '../../app/scheduling/cluster-usage.js';
import { collectedGauge } from './collected-gauge.js';
import type { ScrapeSnapshot } from './scrape-snapshot.js';

/** Registers the cluster gauges. */
export function registerClusterMetrics(registry: Registry, plane: ControlPlane, snapshot: () => ScrapeSnapshot): void {
  const usage = () =>
    clusterUsage(
      snapshot().gpus.map((g) => ({
        model: g.view.model,
        migEnabled: g.view.migEnabled,
        schedulable: g.view.schedulable,
        allocatedGpuMilli: g.view.allocatedGpuMilli,
      })),
      plane.recentShapes.targetWorkload(),
    );
  const single = (name: string, help: string, value: (u: ReturnType<typeof usage>) => number): void => {
    collectedGauge(registry, { name, help, labelNames: [], fill: (set) => set({}, value(usage())) });
  };
  single(
    'gpushare_cluster_capacity_milli',
    'Schedulable capacity, milli-GPU: 1000 × schedulable GPUs.',
    (u) => u.gpuMilliTotal,
  );
  single(
    'gpushare_cluster_allocated_milli',
    "Compute allocated on schedulable GPUs, milli-GPU (MIG: instances' compute slices in milli-GPU).",
    (u) => u.allocatedMilli,
  );
  single(
    'gpushare_cluster_allocation_ratio',
    'gpushare_cluster_allocated_milli / gpushare_cluster_capacity_milli, 0..1 (0 when no GPU is schedulable).',
    (u) => u.allocationRatio,
  );
  single(
    'gpushare_cluster_fragmentation_milli',
    "FGD fragmentation (Weng et al., ATC'23) of the schedulable non-MIG GPUs, milli-GPU: idle compute " +
      'that the recent job shapes could not use.',
    (u) => u.fragmentationMilli,
  );
  single(
    'gpushare_cluster_fragmentation_ratio',
    'gpushare_cluster_fragmentation_milli / idle milli-GPU of those GPUs (weighted by the target workload), 0..1.',
    (u) => u.fragmentationRatio,
  );
}

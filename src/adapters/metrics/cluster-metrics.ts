/**
 * Cluster gauges (docs/metrics.md "Cluster"): schedulable capacity, allocation and its ratio, and
 * the FGD fragmentation measure (src/app/control-plane/cluster-usage.ts). The target workload M is
 * built from the shapes of the last RECENT_SHAPES_KEPT submitted jobs: read from the store when
 * the metrics are created, then kept up to date from the plane's submit events (and rebuilt at the
 * first scrape after them).
 */
import type { Registry } from 'prom-client';
import type { TaskShape } from '../../core/index.js';
import type { ControlPlane } from '../../app/control-plane/control-plane.js';
import { RECENT_SHAPES_KEPT, clusterUsage, shapeOfJob, targetWorkloadOf } from '../../app/control-plane/cluster-usage.js';
import { collectedGauge } from './collected-gauge.js';
import type { ScrapeSnapshot } from './scrape-snapshot.js';

/** Registers the cluster gauges; returns the function that stops following submits. */
export function registerClusterMetrics(registry: Registry, plane: ControlPlane, snapshot: () => ScrapeSnapshot): () => void {
  const store = plane.deps.store;
  const recent: TaskShape[] = store.listJobs({ newest: RECENT_SHAPES_KEPT }).flatMap((j) => shapeOfJob(j.gpu) ?? []);
  // Rebuilt at the next scrape after submits, not on every submit (submits are the hot path).
  let workload: ReturnType<typeof targetWorkloadOf> | null = null;
  const off = plane.events.on((event) => {
    if (event.type !== 'job' || event.from !== null) return;
    const job = store.getJob(event.jobId);
    const shape = job ? shapeOfJob(job.gpu) : null;
    if (!shape) return;
    recent.push(shape);
    if (recent.length > RECENT_SHAPES_KEPT) recent.shift();
    workload = null;
  });
  const usage = () => clusterUsage(snapshot().gpus.map((g) => ({ model: g.view.model, migEnabled: g.view.migEnabled, schedulable: g.view.schedulable, allocatedGpuMilli: g.view.allocatedGpuMilli })), (workload ??= targetWorkloadOf(recent)));
  const single = (name: string, help: string, value: (u: ReturnType<typeof usage>) => number): void => {
    collectedGauge(registry, { name, help, labelNames: [], fill: (set) => set({}, value(usage())) });
  };
  single('gpushare_cluster_capacity_milli', 'Schedulable capacity, milli-GPU: 1000 × schedulable GPUs.', (u) => u.gpuMilliTotal);
  single('gpushare_cluster_allocated_milli', 'Compute allocated on schedulable GPUs, milli-GPU (MIG: instances\' compute slices in milli-GPU).', (u) => u.allocatedMilli);
  single('gpushare_cluster_allocation_ratio', 'gpushare_cluster_allocated_milli / gpushare_cluster_capacity_milli, 0..1 (0 when no GPU is schedulable).', (u) => u.allocationRatio);
  single('gpushare_cluster_fragmentation_milli', 'FGD fragmentation (Weng et al., ATC\'23) of the schedulable non-MIG GPUs, milli-GPU: idle compute that the recent job shapes could not use.', (u) => u.fragmentationMilli);
  single('gpushare_cluster_fragmentation_ratio', 'gpushare_cluster_fragmentation_milli / idle milli-GPU of those GPUs (weighted by the target workload), 0..1.', (u) => u.fragmentationRatio);
  return off;
}

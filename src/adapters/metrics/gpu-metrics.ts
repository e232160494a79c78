/**
 * Per-GPU gauges (docs/metrics.md "GPUs"): identity, allocation, measured usage, health and MIG
 * instances. Every series carries the GPU labels node, gpu, uuid, model, mode.
 */
import type { Registry } from 'prom-client';
import { collectedGauge } from './collected-gauge.js';
import { GPU_LABELS, type ScrapeSnapshot } from './scrape-snapshot.js';

const MIB = 1024 * 1024;

/** Registers the per-GPU gauges; `snapshot` gives the current scrape's data. */
export function registerGpuMetrics(registry: Registry, snapshot: () => ScrapeSnapshot): void {
  collectedGauge(registry, {
    name: 'gpushare_gpu_info',
    help: 'GPU identity (always 1): name as reported, simulated or real, MIG mode enabled.',
    labelNames: [...GPU_LABELS, 'name', 'simulated', 'mig_enabled'],
    fill: (set) => {
      for (const g of snapshot().gpus)
        set(
          {
            ...g.labels,
            name: g.view.name,
            simulated: String(g.view.simulated),
            mig_enabled: String(g.view.migEnabled),
          },
          1,
        );
    },
  });
  const perGpu = (name: string, help: string, value: (g: ScrapeSnapshot['gpus'][number]) => number): void => {
    collectedGauge(registry, {
      name,
      help,
      labelNames: GPU_LABELS,
      fill: (set) => {
        for (const g of snapshot().gpus) set(g.labels, value(g));
      },
    });
  };
  perGpu(
    'gpushare_gpu_allocated_milli',
    "Compute allocated to jobs on the GPU, milli-GPU (1000 = whole GPU; MIG: instances' compute slices in milli-GPU).",
    (g) => g.view.allocatedGpuMilli,
  );
  perGpu(
    'gpushare_gpu_allocated_memory_bytes',
    'Device memory allocated to jobs on the GPU, bytes.',
    (g) => g.view.allocatedGpuMemoryMiB * MIB,
  );
  perGpu('gpushare_gpu_memory_total_bytes', 'Device memory of the GPU, bytes.', (g) => g.view.gpuMemoryMiB * MIB);
  perGpu('gpushare_gpu_healthy', '1 when the GPU is healthy, 0 when unhealthy or vanished.', (g) =>
    g.view.healthy ? 1 : 0,
  );
  perGpu('gpushare_gpu_schedulable', '1 when the GPU may get new jobs (healthy and not cordoned), else 0.', (g) =>
    g.view.schedulable ? 1 : 0,
  );
  perGpu('gpushare_gpu_jobs', 'Jobs holding a share of the GPU (scheduled or running).', (g) => g.view.jobs.length);
  collectedGauge(registry, {
    name: 'gpushare_gpu_utilization_ratio',
    help:
      'Measured GPU utilization, 0..1 (source nvidia-smi: utilization.gpu; source simulated: min(1, ' +
      'allocated milli-GPU / 1000)). Absent when not available (nvidia-smi reports none with MIG enabled).',
    labelNames: [...GPU_LABELS, 'source'],
    fill: (set) => {
      for (const g of snapshot().gpus)
        if (g.measured.utilizationRatio !== null && g.measured.source)
          set({ ...g.labels, source: g.measured.source }, g.measured.utilizationRatio);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_gpu_memory_used_bytes',
    help:
      'Measured device memory used on the GPU, bytes (source nvidia-smi: memory.used; source simulated: ' +
      'the memory allocated to its jobs). Absent when not available.',
    labelNames: [...GPU_LABELS, 'source'],
    fill: (set) => {
      for (const g of snapshot().gpus)
        if (g.measured.memoryUsedMiB !== null && g.measured.source)
          set({ ...g.labels, source: g.measured.source }, g.measured.memoryUsedMiB * MIB);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_gpu_mig_instances',
    help: 'MIG GPU instances on the GPU by profile: in_use (held by a job) or idle (kept for reuse). MIG GPUs only.',
    labelNames: [...GPU_LABELS, 'mig_profile', 'state'],
    fill: (set) => {
      for (const g of snapshot().gpus) {
        if (!g.view.migEnabled) continue;
        const counts = new Map<string, number>();
        const bump = (profile: string, state: string) =>
          counts.set(`${profile}\u0000${state}`, (counts.get(`${profile}\u0000${state}`) ?? 0) + 1);
        for (const job of g.view.jobs) if (job.migProfile) bump(job.migProfile, 'in_use');
        for (const idle of g.view.migIdleInstances) bump(idle.profileName, 'idle');
        for (const [key, n] of counts) {
          const [profile, state] = key.split('\u0000') as [string, string];
          set({ ...g.labels, mig_profile: profile, state }, n);
        }
      }
    },
  });
}

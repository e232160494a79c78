/**
 * Per-job gauges (docs/metrics.md "Jobs"): each job's allocation on each GPU it holds, its measured
 * memory on each GPU (from per-process data, never a copy of the GPU's value), and the number of
 * jobs per tenant and active state.
 */
import type { Registry } from 'prom-client';
import { apportion, priorityClassOf } from '../../core/index.js';
import type { JobRecord } from '../../app/ports/state-store.js';
import { collectedGauge } from './collected-gauge.js';
import { GPU_LABELS, type ScrapeSnapshot } from './scrape-snapshot.js';

const MIB = 1024 * 1024;
/** States `gpushare_jobs` reports (the active ones). */
export const ACTIVE_JOB_STATES = ['pending', 'preempted', 'scheduled', 'running'] as const;
const JOB_LABELS = [...GPU_LABELS, 'mig_profile', 'job_id', 'job_name', 'tenant', 'priority_class'] as const;

/** Registers the per-job gauges. */
export function registerJobMetrics(registry: Registry, snapshot: () => ScrapeSnapshot): void {
  /** One entry per (job, GPU) held: labels, milli-GPU and memory. */
  const shares = (s: ScrapeSnapshot) =>
    s.gpus.flatMap((g) => {
      const held = g.view.jobs.flatMap((j) => {
        const job = s.placedJobs.get(j.id);
        const placed = job?.placement?.gpus.find((p) => p.index === g.view.index);
        return job && placed ? [{ job, placed }] : [];
      });
      const milli = g.view.migEnabled
        ? apportion(
            g.view.allocatedGpuMilli,
            held.map((h) => h.placed.mig?.computeSlices ?? 0),
          )
        : held.map((h) => h.placed.accountedGpuMilli);
      return held.map(({ job, placed }, k) => ({
        labels: {
          ...g.labels,
          mig_profile: placed.mig?.profileName ?? '',
          job_id: String(job.id),
          job_name: job.name,
          tenant: job.tenant,
          priority_class: priorityClassOf(job.priority),
        },
        milli: milli[k]!,
        memoryMiB: placed.gpuMemoryMiB,
      }));
    });
  collectedGauge(registry, {
    name: 'gpushare_job_allocated_milli',
    help: 'Compute allocated to the job on the GPU, milli-GPU; the jobs of a GPU sum to gpushare_gpu_allocated_milli.',
    labelNames: JOB_LABELS,
    fill: (set) => {
      for (const s of shares(snapshot())) set(s.labels, s.milli);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_job_allocated_memory_bytes',
    help:
      'Device memory allocated to the job on the GPU, bytes; the jobs of a GPU sum to ' +
      'gpushare_gpu_allocated_memory_bytes.',
    labelNames: JOB_LABELS,
    fill: (set) => {
      for (const s of shares(snapshot())) set(s.labels, s.memoryMiB * MIB);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_job_memory_used_bytes',
    help:
      "Measured device memory used by the job's processes on the GPU, bytes (per-process data; the jobs of " +
      'a GPU never sum to more than gpushare_gpu_memory_used_bytes).',
    labelNames: ['node', 'gpu', 'uuid', 'job_id', 'tenant', 'source'],
    fill: (set) => {
      const s = snapshot();
      if (!s.sample) return;
      const jobsById = new Map<number, JobRecord>(s.activeJobs.map((j) => [j.id, j]));
      for (const m of s.sample.jobs) {
        const job = jobsById.get(m.jobId);
        if (job)
          set(
            {
              node: s.nodeName,
              gpu: String(m.index),
              uuid: m.uuid,
              job_id: String(m.jobId),
              tenant: job.tenant,
              source: s.sample.source,
            },
            m.memoryUsedMiB * MIB,
          );
      }
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_jobs',
    help: 'Jobs by tenant and active state (pending, preempted, scheduled, running).',
    labelNames: ['tenant', 'state'],
    fill: (set) => {
      const s = snapshot();
      const counts = new Map<string, Map<string, number>>(s.tenants.map((t) => [t, new Map<string, number>()]));
      for (const job of s.activeJobs) {
        const byState = counts.get(job.tenant) ?? new Map<string, number>();
        byState.set(job.state, (byState.get(job.state) ?? 0) + 1);
        counts.set(job.tenant, byState);
      }
      for (const [tenant, byState] of counts)
        for (const state of ACTIVE_JOB_STATES) set({ tenant, state }, byState.get(state) ?? 0);
    },
  });
}

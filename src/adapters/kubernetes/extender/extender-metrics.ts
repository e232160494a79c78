/**
 * The extender's /metrics: the standalone server's per-GPU and per-job families (docs/metrics.md),
 * with pods as the jobs (job_id the pod UID, job_name the pod name, tenant the namespace,
 * priority_class the pod's PriorityClass), and the extender's own request counters, latencies,
 * activity (Lease) and cache state. Same names and labels, so the Grafana board and alerts of the
 * standalone server read a cluster too.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClusterView } from './cluster-view.js';

const MIB = 1024 * 1024;
/** Per-GPU labels, as the standalone server's (adapters/metrics/scrape-snapshot.ts). */
export const GPU_LABELS = ['node', 'gpu', 'uuid', 'model', 'mode'] as const;
const JOB_LABELS = [...GPU_LABELS, 'mig_profile', 'job_id', 'job_name', 'tenant', 'priority_class'] as const;

/** What the extender counts as it serves. */
export interface ExtenderMetrics {
  readonly registry: Registry;
  /** Records one verb call: its outcome (`ok`, `error`) and duration in seconds. */
  observe(verb: string, outcome: string, durationSeconds: number): void;
}

/** Builds the registry. @param state whether this replica is active and its cache synced, read at scrape time */
export function createExtenderMetrics(view: ClusterView, state: () => { active: boolean; synced: boolean }, version: string): ExtenderMetrics {
  const registry = new Registry();
  // One snapshot per scrape: prom-client calls every collect in the same tick.
  let cached: ReturnType<typeof snapshot> | null = null;
  const gpus = (): ReturnType<typeof snapshot> => {
    if (cached === null) {
      cached = snapshot();
      setImmediate(() => (cached = null));
    }
    return cached;
  };
  function snapshot() {
    const { gpus: usage, podOf, assignmentOf } = view.usage();
    return usage.map((u) => {
      const info = view.nodeInfo(u.node);
      const healthy = info?.inventory.gpus.find((g) => g.index === u.device.index)?.healthy ?? false;
      const labels = { node: u.node, gpu: String(u.device.index), uuid: u.device.uuid, model: u.device.model, mode: u.mode ?? 'none' };
      return { u, labels, healthy, podOf, assignmentOf };
    });
  }
  const gauge = (name: string, help: string, labelNames: readonly string[], fill: (set: (labels: Record<string, string>, value: number) => void) => void): void => {
    new Gauge({ name, help, labelNames, registers: [registry], collect() { this.reset(); fill((labels, value) => this.set(labels, value)); } });
  };
  new Gauge({ name: 'gpushare_build_info', help: 'gpushare build (always 1).', labelNames: ['version'], registers: [registry] }).set({ version }, 1);
  gauge('gpushare_gpu_info', 'GPU identity (always 1): name as reported, simulated or real, MIG mode enabled.', [...GPU_LABELS, 'name', 'simulated', 'mig_enabled'], (set) => {
    for (const g of gpus()) set({ ...g.labels, name: g.u.device.model, simulated: 'false', mig_enabled: String(g.u.device.migEnabled) }, 1);
  });
  const perGpu = (name: string, help: string, value: (g: ReturnType<typeof gpus>[number]) => number) => gauge(name, help, GPU_LABELS, (set) => { for (const g of gpus()) set(g.labels, value(g)); });
  perGpu('gpushare_gpu_allocated_milli', 'Compute allocated to pods on the GPU, milli-GPU (1000 = whole GPU).', (g) => g.u.allocatedGpuMilli);
  perGpu('gpushare_gpu_allocated_memory_bytes', 'Device memory allocated to pods on the GPU, bytes.', (g) => g.u.allocatedGpuMemoryMiB * MIB);
  perGpu('gpushare_gpu_memory_total_bytes', 'Device memory of the GPU, bytes.', (g) => g.u.device.gpuMemoryMiB * MIB);
  perGpu('gpushare_gpu_healthy', '1 when the node agent reports the GPU healthy, else 0.', (g) => (g.healthy ? 1 : 0));
  perGpu('gpushare_gpu_schedulable', '1 when the GPU may get new pods (healthy, node not cordoned), else 0.', (g) => (g.u.device.schedulable ? 1 : 0));
  perGpu('gpushare_gpu_jobs', 'Pods holding a share of the GPU.', (g) => g.u.jobIds.length);
  const shares = () => gpus().flatMap((g) => g.u.jobIds.flatMap((id) => {
    const pod = g.podOf(id);
    const placed = pod && g.assignmentOf(pod.uid)?.gpus.find((p) => p.index === g.u.device.index);
    if (!pod || !placed) return [];
    return [{ labels: { ...g.labels, mig_profile: placed.mig?.profileName ?? '', job_id: pod.uid, job_name: pod.name, tenant: pod.namespace, priority_class: pod.priorityClassName }, milli: placed.accountedGpuMilli, memoryMiB: placed.gpuMemoryMiB }];
  }));
  gauge('gpushare_job_allocated_milli', 'Compute allocated to the pod on the GPU, milli-GPU; the pods of a GPU sum to gpushare_gpu_allocated_milli.', JOB_LABELS, (set) => { for (const s of shares()) set(s.labels, s.milli); });
  gauge('gpushare_job_allocated_memory_bytes', 'Device memory allocated to the pod on the GPU, bytes.', JOB_LABELS, (set) => { for (const s of shares()) set(s.labels, s.memoryMiB * MIB); });
  gauge('gpushare_extender_active', '1 while this replica holds the extender Lease (answers the scheduler), else 0.', [], (set) => set({}, state().active ? 1 : 0));
  gauge('gpushare_extender_cache_synced', '1 when the view of nodes and pods is synced with the API server, else 0.', [], (set) => set({}, state().synced ? 1 : 0));
  const requests = new Counter({ name: 'gpushare_extender_requests_total', help: 'Extender calls by verb (filter, prioritize, bind) and outcome (ok, error).', labelNames: ['verb', 'outcome'], registers: [registry] });
  const durations = new Histogram({ name: 'gpushare_extender_request_duration_seconds', help: 'Time to answer one extender call, seconds.', labelNames: ['verb'], buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry] });
  return {
    registry,
    observe(verb, outcome, durationSeconds) {
      requests.inc({ verb, outcome });
      durations.observe({ verb }, durationSeconds);
    },
  };
}

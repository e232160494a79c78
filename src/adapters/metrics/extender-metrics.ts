/**
 * The Kubernetes extender's /metrics (docs/kubernetes/extender.md): the standalone server's per-GPU
 * and per-job families (docs/metrics.md), with pods as the jobs (job_id the pod UID, job_name the
 * pod name, tenant the namespace, priority_class the pod's PriorityClass), and the extender's own
 * request counters, latencies, activity (Lease) and cache state. Same names and labels, so the
 * Grafana board and the alerts of the standalone server read a cluster too. Fed by a plain snapshot
 * the composition root reads from the extender's cluster view.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectedGauge } from './collected-gauge.js';
import { GPU_LABELS, perScrape } from './scrape-snapshot.js';

const MIB = 1024 * 1024;
const JOB_LABELS = [...GPU_LABELS, 'mig_profile', 'job_id', 'job_name', 'tenant', 'priority_class'] as const;

/** One pod's share of one GPU. */
export interface ExtenderPodShare {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly priorityClassName: string;
  readonly migProfile: string | null;
  readonly gpuMilli: number;
  readonly gpuMemoryMiB: number;
}

/** One GPU of a gpushare node, as the extender sees it. */
export interface ExtenderGpu {
  readonly node: string;
  readonly index: number;
  readonly uuid: string;
  readonly model: string;
  /** The sharing mode on it; null when it holds nothing. */
  readonly mode: string | null;
  readonly migEnabled: boolean;
  readonly healthy: boolean;
  readonly schedulable: boolean;
  readonly gpuMemoryMiB: number;
  readonly allocatedGpuMilli: number;
  readonly allocatedGpuMemoryMiB: number;
  readonly pods: readonly ExtenderPodShare[];
}

/** What one scrape reads. */
export interface ExtenderScrape {
  readonly gpus: readonly ExtenderGpu[];
  /** This replica holds the Lease. */
  readonly active: boolean;
  /** The view of nodes and pods is synced with the API server. */
  readonly synced: boolean;
}

/** What the extender counts as it serves. */
export interface ExtenderMetrics {
  readonly registry: Registry;
  /** Records one verb call: its outcome (`ok`, `error`) and duration in seconds. */
  observe(verb: string, outcome: string, durationSeconds: number): void;
  /** Counts one assignment the extender refused to account, by the refusal's code (assignment-check.ts). */
  refusedAssignment(code: string): void;
}

/** Builds the registry. @param read the scrape's data, read once per scrape */
export function createExtenderMetrics(read: () => ExtenderScrape, version: string): ExtenderMetrics {
  const registry = new Registry();
  const scrape = perScrape(read);
  const labelsOf = (g: ExtenderGpu) => ({
    node: g.node,
    gpu: String(g.index),
    uuid: g.uuid,
    model: g.model,
    mode: g.mode ?? 'none',
  });
  new Gauge({
    name: 'gpushare_build_info',
    help: 'gpushare build (always 1).',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
  collectedGauge(registry, {
    name: 'gpushare_gpu_info',
    help: 'GPU identity (always 1): name as reported, simulated or real, MIG mode enabled.',
    labelNames: [...GPU_LABELS, 'name', 'simulated', 'mig_enabled'],
    fill: (set) => {
      for (const g of scrape().gpus)
        set({ ...labelsOf(g), name: g.model, simulated: 'false', mig_enabled: String(g.migEnabled) }, 1);
    },
  });
  const perGpu = (name: string, help: string, value: (g: ExtenderGpu) => number): void => {
    collectedGauge(registry, {
      name,
      help,
      labelNames: GPU_LABELS,
      fill: (set) => {
        for (const g of scrape().gpus) set(labelsOf(g), value(g));
      },
    });
  };
  perGpu(
    'gpushare_gpu_allocated_milli',
    'Compute allocated to pods on the GPU, milli-GPU (1000 = whole GPU).',
    (g) => g.allocatedGpuMilli,
  );
  perGpu(
    'gpushare_gpu_allocated_memory_bytes',
    'Device memory allocated to pods on the GPU, bytes.',
    (g) => g.allocatedGpuMemoryMiB * MIB,
  );
  perGpu('gpushare_gpu_memory_total_bytes', 'Device memory of the GPU, bytes.', (g) => g.gpuMemoryMiB * MIB);
  perGpu('gpushare_gpu_healthy', '1 when the node agent reports the GPU healthy, else 0.', (g) => (g.healthy ? 1 : 0));
  perGpu('gpushare_gpu_schedulable', '1 when the GPU may get new pods (healthy, node not cordoned), else 0.', (g) =>
    g.schedulable ? 1 : 0,
  );
  perGpu('gpushare_gpu_jobs', 'Pods holding a share of the GPU.', (g) => g.pods.length);
  const perPod = (name: string, help: string, value: (p: ExtenderPodShare) => number): void => {
    collectedGauge(registry, {
      name,
      help,
      labelNames: JOB_LABELS,
      fill: (set) => {
        for (const g of scrape().gpus) {
          for (const p of g.pods)
            set(
              {
                ...labelsOf(g),
                mig_profile: p.migProfile ?? '',
                job_id: p.uid,
                job_name: p.name,
                tenant: p.namespace,
                priority_class: p.priorityClassName,
              },
              value(p),
            );
        }
      },
    });
  };
  perPod(
    'gpushare_job_allocated_milli',
    'Compute allocated to the pod on the GPU, milli-GPU; the pods of a GPU sum to gpushare_gpu_allocated_milli.',
    (p) => p.gpuMilli,
  );
  perPod(
    'gpushare_job_allocated_memory_bytes',
    'Device memory allocated to the pod on the GPU, bytes.',
    (p) => p.gpuMemoryMiB * MIB,
  );
  collectedGauge(registry, {
    name: 'gpushare_extender_active',
    help: '1 while this replica holds the extender Lease (answers the scheduler), else 0.',
    labelNames: [],
    fill: (set) => set({}, scrape().active ? 1 : 0),
  });
  collectedGauge(registry, {
    name: 'gpushare_extender_cache_synced',
    help: '1 when the view of nodes and pods is synced with the API server, else 0.',
    labelNames: [],
    fill: (set) => set({}, scrape().synced ? 1 : 0),
  });
  const requests = new Counter({
    name: 'gpushare_extender_requests_total',
    help: 'Extender calls by verb (filter, prioritize, bind) and outcome (ok, error).',
    labelNames: ['verb', 'outcome'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'gpushare_extender_request_duration_seconds',
    help: 'Time to answer one extender call, seconds.',
    labelNames: ['verb'],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'gpushare_extender_assignments_refused_total',
    help:
      'Assignments read from pods that the extender refused to account (their GPUs blocked), by code: ' +
      'assignment-unknown-gpu, assignment-over-capacity, assignment-request-mismatch, assignment-unsigned, ' +
      'assignment-bad-signature.',
    labelNames: ['code'],
    registers: [registry],
  });
  return {
    registry,
    observe(verb, outcome, durationSeconds) {
      requests.inc({ verb, outcome });
      durations.observe({ verb }, durationSeconds);
    },
    refusedAssignment(code) {
      refused.inc({ code });
    },
  };
}

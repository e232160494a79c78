/**
 * What one scrape of `/metrics` reads from the control plane, computed once per scrape and shared
 * by every gauge's collect callback (prom-client calls them all in the same tick, so the snapshot
 * is dropped on the next turn of the event loop). No measurement happens here: GPU usage comes
 * from the usage poller's latest sample (`plane.usage`).
 */
import type { GpuView } from '../../contract/api.js';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import { toGpuViews } from '../../app/services/views.js';
import type { InventoryGpu } from '../../app/ports/gpu-inventory.js';
import type { GpuUsageSample } from '../../app/ports/gpu-usage.js';
import type { JobRecord, StateStore } from '../../app/ports/state-store.js';
import { measuredGpu, type MeasuredGpu } from '../../app/usage/measured-gpu.js';

/** Label names every per-GPU series carries. */
export const GPU_LABELS = ['node', 'gpu', 'uuid', 'model', 'mode'] as const;
/** Values of {@link GPU_LABELS}. */
export type GpuLabels = Record<(typeof GPU_LABELS)[number], string>;

/** One GPU with everything the GPU and job metrics need. */
export interface GpuSnapshot {
  readonly view: GpuView;
  readonly inventory: InventoryGpu;
  /** node, gpu (index), uuid, model, mode (the sharing mode on it now, `none` when idle). */
  readonly labels: GpuLabels;
  /** Measured values: the usage sample first, then the inventory's (see measured-gpu.ts). */
  readonly measured: MeasuredGpu;
}

/** Everything one scrape reads. */
export interface ScrapeSnapshot {
  readonly nowMs: number;
  readonly nodeName: string;
  readonly gpus: readonly GpuSnapshot[];
  /** Jobs holding GPUs (scheduled and running), by id. */
  readonly placedJobs: ReadonlyMap<number, JobRecord>;
  /** Jobs in an active state: pending, preempted, scheduled, running. */
  readonly activeJobs: readonly JobRecord[];
  /** The usage poller's latest sample; null when none is valid. */
  readonly sample: GpuUsageSample | null;
  /** Names of every tenant in the store. */
  readonly tenants: readonly string[];
}

/** Reads the snapshot of `plane` now. */
export function readSnapshot(plane: ControlPlane, store: StateStore, nodeName: string, nowMs: number): ScrapeSnapshot {
  const activeJobs = store.listJobs({ states: ['pending', 'preempted', 'scheduled', 'running'] });
  const placedJobs = new Map(
    activeJobs.filter((j) => j.state === 'scheduled' || j.state === 'running').map((j) => [j.id, j]),
  );
  const jobsById = (id: number): JobRecord | null => placedJobs.get(id) ?? store.getJob(id);
  const inventory = new Map(plane.roster.inventoryGpus().map((g) => [g.index, g]));
  const sample = plane.usage.latest();
  const gpus = toGpuViews(plane, jobsById).flatMap((view) => {
    const gpu = inventory.get(view.index);
    if (!gpu) return [];
    const labels: GpuLabels = {
      node: nodeName,
      gpu: String(view.index),
      uuid: view.uuid,
      model: view.model,
      mode: view.mode ?? 'none',
    };
    return [{ view, inventory: gpu, labels, measured: measuredGpu(gpu, sample, 'sample') }];
  });
  return { nowMs, nodeName, gpus, placedJobs, activeJobs, sample, tenants: store.listTenants().map((t) => t.name) };
}

/**
 * `read` memoised for one scrape: the first call computes, later calls in the same tick reuse
 * the value, and the next turn of the event loop forgets it.
 */
export function perScrape<T>(read: () => T): () => T {
  let cached: { value: T } | null = null;
  return () => {
    if (cached === null) {
      cached = { value: read() };
      setImmediate(() => (cached = null));
    }
    return cached.value;
  };
}

/**
 * Submit-time check: could a job ever run on this server, even with every GPU free and healthy?
 * A job that could not is rejected (reason `unresolvable`) instead of waiting forever.
 */
import { smallestProfileFor } from '../mig/mig-allocator.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { JobRequest } from '../model/request.js';
import { migShareOf } from '../framework/mig-layouts.js';
import { fallbackMode, reservedGpuMemoryMiB, resolveMode } from './share-accounting.js';
import type { EffectiveMode } from '../model/request.js';

/** The server's host capacity. */
export interface HostCapacity {
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
}

/**
 * Why `job` can never run on `gpus` of this host, naming the field that is too big and what the
 * server has; null when it fits on an empty server.
 */
export function whyUnresolvable(job: JobRequest, gpus: readonly GpuDevice[], host: HostCapacity): string | null {
  if (job.cpuMilli > host.cpuMilli) return `cpuMilli ${job.cpuMilli} exceeds the server's ${host.cpuMilli}`;
  if (job.hostMemoryMiB > host.hostMemoryMiB)
    return `hostMemoryMiB ${job.hostMemoryMiB} exceeds the server's ${host.hostMemoryMiB}`;
  const first = whyNotInMode(job, resolveMode(job.gpu), gpus);
  if (first === null) return null;
  const fallback = fallbackMode(job.gpu);
  if (fallback === null) return first;
  const second = whyNotInMode(job, fallback, gpus);
  return second === null ? null : `strict isolation: neither a MIG instance (${first}) nor whole GPUs (${second})`;
}

function whyNotInMode(job: JobRequest, mode: EffectiveMode, gpus: readonly GpuDevice[]): string | null {
  const { gpuCount } = job.gpu;
  if (mode === 'mig') {
    const migGpus = gpus.filter((g) => g.migEnabled);
    if (migGpus.length === 0) return 'mode mig needs a GPU in MIG mode; this server has none';
    const fitting = migGpus.filter((g) => smallestProfileFor(g.model, migShareOf(job.gpu)) !== undefined);
    if (fitting.length === 0)
      return `gpuMemoryMiB ${job.gpu.gpuMemoryMiB ?? 'requested'} exceeds every MIG profile of this server's MIG GPUs`;
    const perModel = new Map<string, number>();
    for (const g of fitting) perModel.set(g.model, (perModel.get(g.model) ?? 0) + 1);
    const most = Math.max(...perModel.values());
    if (most < gpuCount)
      return (
        `gpuCount ${gpuCount} exceeds the ${most} MIG GPU(s) of one model on this server that can hold the ` +
        `instance (a job's GPUs are distinct GPUs of one model)`
      );
    return null;
  }
  const shared = gpus.filter((g) => !g.migEnabled);
  if (shared.length === 0) return `mode ${mode} needs a GPU not in MIG mode; every GPU of this server is in MIG mode`;
  const byModel = new Map<string, GpuDevice[]>();
  for (const g of shared) byModel.set(g.model, [...(byModel.get(g.model) ?? []), g]);
  const largest = Math.max(...shared.map((g) => g.gpuMemoryMiB));
  const memoryFits = [...byModel.values()].filter(
    (group) =>
      Math.max(reservedGpuMemoryMiB(mode, job.gpu, group[0]!.gpuMemoryMiB), job.gpu.gpuMemoryMiB ?? 0) <=
      Math.min(...group.map((g) => g.gpuMemoryMiB)),
  );
  if (memoryFits.length === 0) {
    const which = gpus.some((g) => g.migEnabled)
      ? 'the largest GPU of this server not in MIG mode'
      : 'the largest GPU of this server';
    return `gpuMemoryMiB ${job.gpu.gpuMemoryMiB} exceeds ${which} (${largest} MiB)`;
  }
  const most = Math.max(...memoryFits.map((group) => group.length));
  if (most < gpuCount) {
    return (
      `gpuCount ${gpuCount} exceeds the ${most} GPU(s) of one model on this server that can hold it (a ` +
      `job's GPUs are distinct GPUs of one model)`
    );
  }
  return null;
}

/**
 * Builders for the preemption tests (excluded from the build): GPUs, jobs, a server scheduler,
 * candidates, and an oracle that counts its calls.
 */
import type { GpuDevice } from '../../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../../model/request.js';
import { OneNodeCluster } from '../../testing/one-node-cluster.js';
import { SeededRng } from '../../random/rng.js';
import { defaultPreemptible, type PreemptionCandidate } from '../eligibility.js';

/** Memory of the models the tests use, MiB. */
export const MEMORY_MIB: Readonly<Record<string, number>> = {
  'A100-80GB': 81920,
  'A100-40GB': 40960,
  'H100-80GB': 81559,
  T4: 16384,
};

/** A healthy GPU (A100-80GB unless given). */
export function gpu(index: number, model = 'A100-80GB', extra: Partial<GpuDevice> = {}): GpuDevice {
  return {
    index,
    uuid: `GPU-${index}`,
    model,
    gpuMemoryMiB: MEMORY_MIB[model] ?? 81920,
    migEnabled: false,
    schedulable: true,
    ...extra,
  };
}

/** A healthy GPU in MIG mode. */
export const migGpu = (index: number, model = 'A100-80GB'): GpuDevice => gpu(index, model, { migEnabled: true });

/** A pending job: one whole GPU, mode auto, priority normal, tenant `a`, no host resources, unless given. */
export function job(id: number, request: Partial<GpuRequest> = {}, extra: Partial<JobRequest> = {}): JobRequest {
  return {
    id,
    tenant: 'a',
    priority: 500,
    submittedAtMs: 1_000 + id,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto', ...request },
    ...extra,
  };
}

/** A server scheduler over `gpus` (64 cores, 256 GiB host, no timeslice overcommit, rng seed 42). */
export function server(gpus: readonly GpuDevice[], seed = 42): OneNodeCluster {
  return new OneNodeCluster(gpus, {
    hostCpuMilli: 64_000,
    hostMemoryMiB: 256 * 1024,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(seed),
  });
}

/** Places `jobs` in order. @throws Error when one does not fit (a broken test setup) */
export function placeAll(s: OneNodeCluster, jobs: readonly JobRequest[]): void {
  for (const j of jobs) {
    const outcome = s.tryPlace(j);
    if (outcome.kind !== 'placed') throw new Error(`setup: job ${j.id} did not fit: ${outcome.reason}`);
  }
}

/**
 * A candidate: priority low, tenant `b`, default preemptible, started at 0, never preempted, no lost work, not
 * borrowing.
 */
export function candidate(jobId: number, extra: Partial<PreemptionCandidate> = {}): PreemptionCandidate {
  const priority = extra.priority ?? 100;
  return {
    jobId,
    priority,
    tenant: 'b',
    preemptible: defaultPreemptible(priority),
    startedAtMs: 0,
    preemptionCount: 0,
    lostWorkGpuSeconds: 0,
    overQuotaBorrower: false,
    ...extra,
  };
}

/** The candidate made from a running job (its priority and tenant), with `extra` on top. */
export function candidateOf(j: JobRequest, extra: Partial<PreemptionCandidate> = {}): PreemptionCandidate {
  return candidate(j.id, {
    priority: j.priority,
    tenant: j.tenant,
    preemptible: defaultPreemptible(j.priority),
    ...extra,
  });
}

/** Wraps an oracle, recording every question (victim ids as asked). */
export function recording(oracle: (ids: readonly number[]) => boolean): {
  oracle: (ids: readonly number[]) => boolean;
  calls: number[][];
} {
  const calls: number[][] = [];
  return {
    calls,
    oracle: (ids) => {
      calls.push([...ids]);
      return oracle(ids);
    },
  };
}

/** What a server holds, comparable with `toEqual`: usage per GPU and the GPU list. */
export function snapshot(s: OneNodeCluster): unknown {
  return { usage: s.usage(), gpus: s.gpus() };
}

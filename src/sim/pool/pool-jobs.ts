/**
 * The trace's jobs as each scenario of the pool report places them (docs/simulator.md "Pool
 * replay"): rounded up to whole GPUs, as the trace gives them (fractional, shared), or each in the
 * sharing mode its isolation gets on a MIG-capable model (hybrid); and the most sharing can save
 * on these requests (the ceiling).
 */
import { PRIORITY_CLASSES, type IsolationLevel, type JobRequest } from '../../core/index.js';
import { decideMode, type ModeDecision, type SharingGpuModel } from '../hybrid/pod-mode.js';
import { timelineJobRequest, type TimelineJob } from '../timeline/timeline-jobs.js';

/** `job` with every GPU request rounded up to whole GPUs (a 0.46-GPU share becomes 1 GPU). */
export function wholeGpuJob(job: TimelineJob): TimelineJob {
  const r = job.request;
  if (r.gpuCount === 0 || r.gpuMilli >= 1000) return job;
  return { ...job, request: { ...r, gpuMilli: 1000 } };
}

/**
 * The isolation a job of `priority` asks for in the hybrid scenario, as the hybrid replay gives it
 * from `qos` (pod-mode.ts: `LS` strict, `Guaranteed` and `Burstable` standard, `BE` none), read back
 * from the priority the timeline gave the same `qos` (qos-priority.ts).
 */
export function isolationOfPriority(priority: number): IsolationLevel {
  if (priority >= PRIORITY_CLASSES.critical) return 'strict';
  if (priority <= PRIORITY_CLASSES.low) return 'none';
  return 'standard';
}

/**
 * The request of a job in the hybrid scenario (the core's `requestOf` for the engine): its mode from
 * `decideMode(…, 'auto', model)` — a strict share gets the smallest MIG profile that covers it, a
 * standard share MPS, a `none` share time-slicing, whole GPUs `exclusive` — with the GPU memory in
 * proportion to its compute. Jobs are GPU jobs: the pool report leaves CPU-only pods out.
 */
export function hybridRequestOf(model: SharingGpuModel): (job: TimelineJob, tenant: string) => JobRequest {
  const decisions = new Map<string, ModeDecision>();
  return (job, tenant) => {
    const { gpuCount, gpuMilli } = job.request;
    const isolation = isolationOfPriority(job.priority);
    const key = `${gpuCount}/${gpuMilli}/${isolation}`;
    let decision = decisions.get(key);
    if (decision === undefined) {
      decision = decideMode({ gpuCount, gpuMilli, isolation }, 'auto', model);
      decisions.set(key, decision);
    }
    return {
      ...timelineJobRequest(job, tenant),
      gpu: { gpuCount, gpuMilli, gpuMemoryMiB: decision.gpuMemoryMiB, mode: decision.mode },
    };
  };
}

/**
 * GPU-hours the jobs ask for, as given and rounded up to whole GPUs, the ceiling of what sharing
 * saves, and the bound that packing the shares of jobs running at the same time sets on it.
 */
export interface SharingCeiling {
  /** Σ GPUs × milli / 1000 × run time, hours. */
  readonly fractionalGpuHours: number;
  /** Σ GPUs × ⌈milli / 1000⌉ × run time, hours. */
  readonly wholeGpuHours: number;
  /** 1 − fractional / whole: what perfect packing of the shares saves against whole GPUs. */
  readonly ceiling: number;
  /**
   * The fewest GPU-hours any placement of the shares can occupy with the jobs running as the trace
   * ran them (each from its arrival for its run time): at each instant the whole-GPU jobs' GPUs plus
   * max(⌈Σ shares⌉, the shares above half a GPU, no two of which fit one GPU), integrated over time,
   * hours. A pool that shares pays at least this (less only where waits shift jobs).
   */
  readonly packedGpuHours: number;
  /** 1 − packed / whole: the most sharing can save on these jobs while they overlap as they do. */
  readonly packingBound: number;
}

/**
 * The ceiling of what sharing can save on `jobs`: 1 − (GPU-hours asked ÷ GPU-hours rounded up to
 * whole GPUs); and the tighter bound of packing the shares of the jobs that run at the same time
 * into whole GPUs (`packingBound`): a share of 0.46 GPU running alone still occupies a GPU.
 */
export function sharingCeiling(jobs: readonly TimelineJob[]): SharingCeiling {
  let fractional = 0;
  let whole = 0;
  /** [time, +1 start / −1 end, job] */
  const events: [number, number, TimelineJob][] = [];
  for (const job of jobs) {
    const { request: r, durationSeconds } = job;
    fractional += ((r.gpuCount * r.gpuMilli) / 1000) * durationSeconds;
    whole += r.gpuCount * Math.ceil(r.gpuMilli / 1000) * durationSeconds;
    if (r.gpuCount === 0 || durationSeconds <= 0) continue;
    events.push([job.arrivalSeconds, 1, job], [job.arrivalSeconds + durationSeconds, -1, job]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let packed = 0;
  let wholeGpus = 0;
  let shareMilli = 0;
  let overHalf = 0;
  let last = 0;
  for (const [t, sign, { request: r }] of events) {
    packed += (wholeGpus + Math.max(overHalf, Math.ceil(shareMilli / 1000))) * (t - last);
    last = t;
    if (r.gpuMilli >= 1000) wholeGpus += sign * r.gpuCount * Math.ceil(r.gpuMilli / 1000);
    else {
      shareMilli += sign * r.gpuCount * r.gpuMilli;
      if (r.gpuMilli > 500) overHalf += sign * r.gpuCount;
    }
  }
  return {
    fractionalGpuHours: fractional / 3600,
    wholeGpuHours: whole / 3600,
    ceiling: whole === 0 ? 0 : 1 - fractional / whole,
    packedGpuHours: packed / 3600,
    packingBound: whole === 0 ? 0 : 1 - packed / whole,
  };
}

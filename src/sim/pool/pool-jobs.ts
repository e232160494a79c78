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

/** GPU-hours the jobs ask for, as given and rounded up to whole GPUs, and the ceiling of what sharing saves. */
export interface SharingCeiling {
  /** Σ GPUs × milli / 1000 × run time, hours. */
  readonly fractionalGpuHours: number;
  /** Σ GPUs × ⌈milli / 1000⌉ × run time, hours. */
  readonly wholeGpuHours: number;
  /** 1 − fractional / whole: what perfect packing of the shares saves against whole GPUs. */
  readonly ceiling: number;
}

/** The ceiling of what sharing can save on `jobs`: 1 − (GPU-hours asked ÷ GPU-hours rounded up to whole GPUs). */
export function sharingCeiling(jobs: readonly TimelineJob[]): SharingCeiling {
  let fractional = 0;
  let whole = 0;
  for (const { request: r, durationSeconds } of jobs) {
    fractional += ((r.gpuCount * r.gpuMilli) / 1000) * durationSeconds;
    whole += r.gpuCount * Math.ceil(r.gpuMilli / 1000) * durationSeconds;
  }
  return {
    fractionalGpuHours: fractional / 3600,
    wholeGpuHours: whole / 3600,
    ceiling: whole === 0 ? 0 : 1 - fractional / whole,
  };
}

/**
 * Trace pods as timed jobs of the timeline replay (docs/simulator.md "Timeline replay"): arrival
 * at the pod's creation time compressed by the arrival speedup, priority from `qos`, and run time
 * `deletion_time − scheduled_time`.
 */
import type { JobRequest, ResourceDemand } from '../../core/index.js';
import { podRequestOf } from '../cluster-from-trace.js';
import type { TracePod } from '../traces/trace-types.js';
import { priorityOfQos } from './qos-priority.js';

/** One pod of the trace as the timeline replay runs it. */
export interface TimelineJob {
  /** Position in arrival order, 0-based (unique). */
  readonly id: number;
  /** Pod name from the trace. */
  readonly name: string;
  readonly request: ResourceDemand;
  /** Priority from `qos` (see qos-priority.ts); higher is more important. */
  readonly priority: number;
  /** Arrival in simulated seconds from the first arrival (0). */
  readonly arrivalSeconds: number;
  /** Run time needed, in seconds (not compressed by the speedup); ≥ 0. */
  readonly durationSeconds: number;
}

/** The replayable jobs of a pod list and what was left out. */
export interface TimelineWorkload {
  /** Jobs in arrival order (ties by pod name). */
  readonly jobs: readonly TimelineJob[];
  /** Pods skipped because `creation_time`, `scheduled_time` or `deletion_time` is missing (e.g. Pending pods). */
  readonly skippedMissingTimes: number;
  /** Pods skipped because `deletion_time` < `scheduled_time`. */
  readonly skippedNegativeDuration: number;
}

/**
 * Builds the jobs. A pod is replayed when it has all three times and `deletion_time` ≥
 * `scheduled_time`; others are skipped and counted. Arrival = (`creation_time` − earliest
 * `creation_time` of the replayed pods) / `arrivalSpeedup`, so gaps between arrivals shrink by
 * the speedup while run times stay as in the trace.
 * @param pods the pod list (any order)
 * @param scheduledTimes `scheduled_time` per pod name, seconds (see readScheduledTimes)
 * @param arrivalSpeedup K > 0
 * @throws RangeError when `arrivalSpeedup` is not a finite number > 0
 */
export function buildTimelineJobs(
  pods: readonly TracePod[],
  scheduledTimes: ReadonlyMap<string, number | null>,
  arrivalSpeedup: number,
): TimelineWorkload {
  if (!(Number.isFinite(arrivalSpeedup) && arrivalSpeedup > 0))
    throw new RangeError(`arrivalSpeedup must be a number > 0, got ${arrivalSpeedup}`);
  let skippedMissingTimes = 0;
  let skippedNegativeDuration = 0;
  const timed: { pod: TracePod; creation: number; duration: number }[] = [];
  for (const pod of pods) {
    const scheduled = scheduledTimes.get(pod.name) ?? null;
    const { creationTimeSeconds: creation, deletionTimeSeconds: deletion } = pod;
    if (creation === null || deletion === null || scheduled === null) skippedMissingTimes++;
    else if (deletion < scheduled) skippedNegativeDuration++;
    else timed.push({ pod, creation, duration: deletion - scheduled });
  }
  timed.sort((a, b) => a.creation - b.creation || (a.pod.name < b.pod.name ? -1 : a.pod.name > b.pod.name ? 1 : 0));
  const start = timed[0]?.creation ?? 0;
  const jobs = timed.map(({ pod, creation, duration }, id): TimelineJob => ({
    id,
    name: pod.name,
    request: podRequestOf(pod),
    priority: priorityOfQos(pod.qos),
    arrivalSeconds: (creation - start) / arrivalSpeedup,
    durationSeconds: duration,
  }));
  return { jobs, skippedMissingTimes, skippedNegativeDuration };
}

/**
 * The request the core places for `job`: its id, priority and demand, submitted at its arrival
 * (ms of simulated time), of `tenant`. Like every trace pod (cluster-from-trace.ts), it shares GPUs
 * by accounting (mode `mps`) and names no GPU memory (0 MiB).
 */
export function timelineJobRequest(job: TimelineJob, tenant: string): JobRequest {
  const { cpuMilli, hostMemoryMiB, gpuCount, gpuMilli, gpuMemoryMiB, allowedGpuModels } = job.request;
  return {
    id: job.id,
    tenant,
    priority: job.priority,
    submittedAtMs: job.arrivalSeconds * 1000,
    cpuMilli,
    hostMemoryMiB,
    gpu: { gpuCount, gpuMilli, gpuMemoryMiB, mode: 'mps', allowedGpuModels },
  };
}

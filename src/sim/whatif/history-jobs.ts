/**
 * A server's history (the trace `gpushare history export` writes, docs/what-if.md) as the jobs the
 * what-if replays run: each job's request, priority, sharing mode, arrival and run time, the wait it
 * had, and what was measured of its use.
 */
import type { EffectiveMode, TaskShape } from '../../core/index.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import type { TracePod } from '../traces/trace-types.js';

/**
 * One row of a history trace (the pod-list reader's TracePod, with the history's columns where the
 * file has them) that has all three times: submit, first start, and first start plus the run time
 * of all attempts (`deletion_time`), seconds since the epoch.
 */
export type HistoryRecord = TracePod & {
  readonly creationTimeSeconds: number;
  readonly scheduledTimeSeconds: number;
  readonly deletionTimeSeconds: number;
};

/** A job of the history as the what-if replays it. */
export interface HistoryJob {
  readonly job: TimelineJob;
  readonly tenant: string;
  /** The mode it is placed in: as it ran, a `mig` share as an MPS share (MIG layouts are not replayed). */
  readonly mode: EffectiveMode;
  /** The wait it had on the server: first start − submit, s (≥ 0). */
  readonly observedWaitSeconds: number;
  readonly measuredGpuMemoryMiB: number | null;
  readonly measuredGpuUtilPct: number | null;
  /**
   * The workload it belongs to, for right-sizing advice: `<tenant>/<name>` with a trailing
   * `-<digits>` (the job id the export appends) removed, so that repeated runs of one job and the
   * replicas of one service share their advice.
   */
  readonly workload: string;
}

/** What the history holds. */
export interface History {
  /** Jobs in arrival order (ties by name), ids 0.. in that order. */
  readonly jobs: readonly HistoryJob[];
  /** Rows left out: run time below 0 (an end before the start). */
  readonly skippedNegativeRunTime: number;
  /** Task shapes of the jobs (the `default` and `fgd` policies' target workload). */
  readonly taskShapes: readonly TaskShape[];
}

/** Priority of a job without one in the file: what the timeline replay gives its `qos` (qos-priority.ts). */
export type PriorityOfQos = (qos: string | null) => number;

/**
 * The replayable jobs of `records` (any order): arrival relative to the first submit, run time =
 * deletion − scheduled, the wait each had. CPU-only rows are kept (the fixed pools place them on
 * their nodes' CPUs).
 */
export function historyJobs(records: readonly HistoryRecord[], priorityOfQos: PriorityOfQos): History {
  let skippedNegativeRunTime = 0;
  const kept = records.filter((r) => {
    const ok = r.deletionTimeSeconds >= r.scheduledTimeSeconds;
    if (!ok) skippedNegativeRunTime++;
    return ok;
  });
  kept.sort(
    (a, b) => a.creationTimeSeconds - b.creationTimeSeconds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const start = kept[0]?.creationTimeSeconds ?? 0;
  const jobs = kept.map((r, id): HistoryJob => {
    const tenant = r.tenant ?? 'trace';
    const demand = {
      cpuMilli: r.cpuMilli,
      hostMemoryMiB: r.hostMemoryMiB,
      gpuCount: r.gpuCount,
      gpuMilli: r.gpuMilli,
      gpuMemoryMiB: r.gpuMemoryMiB ?? 0,
      allowedGpuModels: r.allowedGpuModels,
    };
    return {
      job: {
        id,
        name: r.name,
        request: demand,
        priority: r.priority ?? priorityOfQos(r.qos),
        arrivalSeconds: r.creationTimeSeconds - start,
        durationSeconds: r.deletionTimeSeconds - r.scheduledTimeSeconds,
      },
      tenant,
      // None named (an Alibaba trace) or MIG (layouts are not replayed): an MPS share, as trace pods are placed.
      mode: r.sharingMode == null || r.sharingMode === 'mig' ? 'mps' : r.sharingMode,
      observedWaitSeconds: Math.max(0, r.scheduledTimeSeconds - r.creationTimeSeconds),
      measuredGpuMemoryMiB: r.measuredGpuMemoryMiB ?? null,
      measuredGpuUtilPct: r.measuredGpuUtilPct ?? null,
      workload: `${tenant}/${r.name.replace(/-\d+$/, '')}`,
    };
  });
  return {
    jobs,
    skippedNegativeRunTime,
    taskShapes: jobs.map((j) => j.job.request),
  };
}

/**
 * The event-driven timeline replay (docs/simulator.md "Timeline replay"): jobs arrive over
 * simulated time, wait in a priority queue when they do not fit, run for their duration, and
 * depart; with preemption, a job that cannot be placed may evict lower-priority jobs of one node,
 * which go back to the queue and later resume from their last checkpoint.
 */
import {
  defaultPreemptible,
  orderQueue,
  totalGpuMilli,
  type PreemptionOptions,
  type QueueOrderContext,
} from '../../core/index.js';
import { AllocationTrace } from './allocation-trace.js';
import { EventHeap } from './event-heap.js';
import { secondsSinceCheckpoint, type JobRun } from './job-run.js';
import { TimelineCluster, type TimelineClusterSpec } from './timeline-cluster.js';
import { timelineJobRequest, type TimelineJob } from './timeline-jobs.js';
import { traceGpuEquivalents } from './trace-gpu-equivalents.js';

/** How a replay runs. */
export interface TimelineOptions {
  /** Whether a job that cannot be placed may preempt lower-priority jobs. */
  readonly preemption: boolean;
  /** Run time between checkpoints, seconds (> 0); preempted work since the last one is lost. */
  readonly checkpointIntervalSeconds: number;
  /** Limits of the core's preemption (minimum run time, preemptions per job). */
  readonly preemptionOptions: PreemptionOptions;
  /** Tenant of every job (the trace has none). @defaultValue 'trace' */
  readonly tenant?: string;
}

/** What happened to one replayed job. Times in simulated seconds. */
export interface JobOutcome {
  readonly job: TimelineJob;
  readonly gpuEquivalents: number;
  readonly firstStartSeconds: number;
  readonly endSeconds: number;
  /** Total time queued: before the first start plus after every preemption. */
  readonly waitSeconds: number;
  readonly preemptions: number;
  readonly lostWorkGpuSeconds: number;
}

/** Result of {@link runTimeline}. */
export interface TimelineOutcome {
  /** Every replayed job, in arrival order (all complete). */
  readonly outcomes: readonly JobOutcome[];
  /** Jobs left out because they fit no node of the cluster even when it is empty. */
  readonly unplaceable: readonly TimelineJob[];
  /** Allocated milli-GPU over time. */
  readonly allocation: AllocationTrace;
  /** Time of the last completion (0 when nothing ran), seconds. */
  readonly makespanSeconds: number;
  /** Scheduling passes run: over the whole queue, and over new arrivals only. */
  readonly passes: { readonly full: number; readonly arrivalsOnly: number };
}

/** Safety net: more follow-up passes than this at one instant means a bug, not a workload. */
const MAX_PASSES_PER_INSTANT = 100_000;

/**
 * Replays `jobs` (in arrival order) on `cluster`, empty at the start, through the core's
 * `SchedulingSession` (timeline-cluster.ts).
 *
 * At each event time: completions first (their resources are released), then arrivals, then one
 * scheduling pass. The pass tries queued jobs in the core's queue order (`orderQueue`: priority
 * aged by the wait so far, then arrival, then id; one tenant, so fair share plays no part), every
 * one, not only the head. When nothing was released it tries only the new arrivals, since the
 * others did not fit before and nothing got freer. A job that cannot be placed, with preemption
 * on, asks the core's preemption for victims, all on one node (`victimsOnOneNode`), costed by the
 * work lost since their last checkpoint (`checkpointIntervalSeconds`); evicted jobs rejoin the
 * queue with their first arrival time, and another full pass follows (they may fit elsewhere). A
 * job placed later in a pass never gives an earlier job that failed to preempt a new chance:
 * evicting it would only restore the state in which that job found no plan.
 * @throws RangeError for a checkpoint interval that is not > 0
 * @throws InvariantViolation as `SchedulingSession` (an unknown policy, a repeated node name or GPU index)
 * @throws Error when the replay breaks an invariant (a bug)
 */
export function runTimeline(
  jobs: readonly TimelineJob[],
  clusterSpec: TimelineClusterSpec,
  options: TimelineOptions,
): TimelineOutcome {
  const checkpoint = options.checkpointIntervalSeconds;
  if (!(Number.isFinite(checkpoint) && checkpoint > 0))
    throw new RangeError(`checkpointIntervalSeconds must be > 0, got ${checkpoint}`);
  const tenant = options.tenant ?? 'trace';
  const cluster = new TimelineCluster(clusterSpec, {
    ...options.preemptionOptions,
    checkpointIntervalSeconds: checkpoint,
    victimsOnOneNode: true,
  });

  // Full request shapes, and whether each fits the empty cluster.
  const shapeIds = new Map<string, number>();
  const fitsEmpty: boolean[] = [];
  const runs: JobRun[] = [];
  const byId: JobRun[] = [];
  const unplaceable: TimelineJob[] = [];
  for (const job of jobs) {
    const r = job.request;
    const key =
      `${r.cpuMilli}/${r.hostMemoryMiB}/${r.gpuCount}/${r.gpuMilli}/${r.gpuMemoryMiB}/` +
      `${r.allowedGpuModels.join('|')}`;
    const request = timelineJobRequest(job, tenant);
    let shapeId = shapeIds.get(key);
    if (shapeId === undefined) {
      shapeId = shapeIds.size;
      shapeIds.set(key, shapeId);
      fitsEmpty.push(cluster.fitsEmpty(request));
    }
    if (!fitsEmpty[shapeId]) {
      unplaceable.push(job);
      continue;
    }
    const run: JobRun = {
      id: job.id,
      priority: job.priority,
      tenant,
      submittedAtMs: request.submittedAtMs,
      job,
      request,
      gpuEquivalents: traceGpuEquivalents(job.request),
      shapeId,
      queuedSinceSeconds: job.arrivalSeconds,
      waitSeconds: 0,
      remainingSeconds: job.durationSeconds,
      runStartSeconds: Number.NaN,
      nodeIndex: -1,
      attempt: 0,
      firstStartSeconds: Number.NaN,
      endSeconds: Number.NaN,
      preemptions: 0,
      lostWorkGpuSeconds: 0,
    };
    runs.push(run);
    byId[job.id] = run;
  }

  const runningPreemptibleByPriority = new Map<number, number>();
  const completions = new EventHeap<{ readonly run: JobRun; readonly attempt: number }>();
  const allocation = new AllocationTrace();
  let allocatedMilli = 0;
  let queue: JobRun[] = [];
  let makespan = 0;
  const passes = { full: 0, arrivalsOnly: 0 };

  // One tenant: every dominant share is 0, so the order is aged priority, then arrival, then id.
  const noShares = new Map<string, number>();
  const queueContext = (now: number): QueueOrderContext => ({ nowMs: now * 1000, dominantShareByTenant: noShares });
  const countRunning = (run: JobRun, delta: number): void => {
    if (defaultPreemptible(run.priority))
      runningPreemptibleByPriority.set(run.priority, (runningPreemptibleByPriority.get(run.priority) ?? 0) + delta);
  };
  /** `run` started on node `nodeIndex` at `now` (the cluster holds it). */
  const started = (run: JobRun, nodeIndex: number, now: number): void => {
    run.nodeIndex = nodeIndex;
    run.runStartSeconds = now;
    run.attempt++;
    run.waitSeconds += now - run.queuedSinceSeconds;
    if (Number.isNaN(run.firstStartSeconds)) run.firstStartSeconds = now;
    countRunning(run, 1);
    allocatedMilli += totalGpuMilli(run.job.request);
    completions.push(now + run.remainingSeconds, { run, attempt: run.attempt });
  };
  const stop = (run: JobRun): void => {
    cluster.release(run.id);
    countRunning(run, -1);
    allocatedMilli -= totalGpuMilli(run.job.request);
    run.nodeIndex = -1;
  };
  const evict = (run: JobRun, now: number): void => {
    const lost = secondsSinceCheckpoint(run, now, checkpoint);
    run.remainingSeconds -= now - run.runStartSeconds - lost;
    run.lostWorkGpuSeconds += run.gpuEquivalents * lost;
    run.preemptions++;
    stop(run);
    run.runStartSeconds = Number.NaN;
    run.queuedSinceSeconds = now;
  };
  const hasPreemptibleBelow = (priority: number): boolean => {
    for (const [p, count] of runningPreemptibleByPriority) if (p < priority && count > 0) return true;
    return false;
  };

  // Per-pass memo: shapes that failed to place since the last time something was freed in this
  // pass. (The cluster keeps its own memo of failed preemption searches: preemption-memo.ts.)
  let stamp = 0;
  const placeFailed: number[] = [];

  /** Tries `ordered` (queued jobs, in queue order). @returns the jobs evicted by preemptions */
  const pass = (ordered: readonly JobRun[], now: number): JobRun[] => {
    stamp++;
    const evicted: JobRun[] = [];
    for (const run of ordered) {
      const placementFails = placeFailed[run.shapeId] === stamp;
      const mayPreempt = options.preemption && hasPreemptibleBelow(run.priority);
      if (placementFails && !mayPreempt) continue;
      const attempt = cluster.attempt(run.request, run.shapeId, now, run.preemptions, { placementFails, mayPreempt });
      if (attempt.kind === 'placed') {
        started(run, attempt.nodeIndex, now);
        continue;
      }
      placeFailed[run.shapeId] = stamp;
      if (attempt.kind === 'waiting') continue;
      const victims = attempt.victimIds.map((id) => byId[id]!);
      const nodeIndex = victims[0]!.nodeIndex;
      if (victims.some((v) => v.nodeIndex !== nodeIndex))
        throw new Error(`timeline replay: the victims of job ${run.job.name} run on several nodes`);
      for (const victim of victims) {
        evict(victim, now);
        evicted.push(victim);
      }
      // The pod can only land where the victims were: that node is the only one that changed.
      if (cluster.place(run.request, now, run.preemptions) !== nodeIndex)
        throw new Error(`timeline replay: job ${run.job.name} did not land on node ${nodeIndex} after preemption`);
      started(run, nodeIndex, now);
      stamp++; // something was freed: earlier failures may fit now
    }
    return evicted;
  };

  const fullPass = (now: number): void => {
    for (let round = 0; ; round++) {
      if (round >= MAX_PASSES_PER_INSTANT)
        throw new Error(`timeline replay: no fixed point after ${round} passes at t=${now}`);
      passes.full++;
      const ordered = orderQueue(queue, queueContext(now));
      const evicted = pass(ordered, now);
      queue = ordered.filter((r) => r.nodeIndex < 0);
      for (const v of evicted) queue.push(v);
      if (evicted.length === 0) return;
    }
  };

  let next = 0;
  while (next < runs.length || completions.size > 0) {
    const now = Math.min(runs[next]?.job.arrivalSeconds ?? Number.POSITIVE_INFINITY, completions.peekTime());
    let freed = false;
    while (completions.peekTime() <= now) {
      const { run, attempt } = completions.pop();
      if (run.attempt !== attempt || run.nodeIndex < 0) continue; // preempted since
      stop(run);
      run.remainingSeconds = 0;
      run.endSeconds = now;
      makespan = now;
      freed = true;
    }
    const arrivals: JobRun[] = [];
    while (next < runs.length && runs[next]!.job.arrivalSeconds <= now) arrivals.push(runs[next++]!);
    if (freed) {
      for (const run of arrivals) queue.push(run);
      fullPass(now);
    } else if (arrivals.length > 0) {
      passes.arrivalsOnly++;
      const ordered = orderQueue(arrivals, queueContext(now));
      const evicted = pass(ordered, now);
      for (const run of ordered) if (run.nodeIndex < 0) queue.push(run);
      for (const v of evicted) queue.push(v);
      if (evicted.length > 0) fullPass(now);
    }
    allocation.record(now, allocatedMilli);
  }
  if (queue.length > 0) throw new Error(`timeline replay: ${queue.length} job(s) never started`);

  const outcomes = runs.map((run): JobOutcome => ({
    job: run.job,
    gpuEquivalents: run.gpuEquivalents,
    firstStartSeconds: run.firstStartSeconds,
    endSeconds: run.endSeconds,
    waitSeconds: run.waitSeconds,
    preemptions: run.preemptions,
    lostWorkGpuSeconds: run.lostWorkGpuSeconds,
  }));
  return { outcomes, unplaceable, allocation, makespanSeconds: makespan, passes };
}

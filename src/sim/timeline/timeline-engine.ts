/**
 * The event-driven timeline replay (docs/simulator.md "Timeline replay"): jobs arrive over
 * simulated time, wait in a priority queue when they do not fit, run for their duration, and
 * depart; with preemption, a job that cannot be placed may evict lower-priority jobs of one node,
 * which go back to the queue and later resume from their last checkpoint.
 */
import {
  defaultPreemptible,
  orderQueue,
  type JobRequest,
  type PreemptionOptions,
  type PreemptionSettings,
  type QueueOrderContext,
} from '../../core/index.js';
import { AllocationTrace } from './allocation-trace.js';
import { EventHeap } from './event-heap.js';
import { secondsSinceCheckpoint, type JobRun } from './job-run.js';
import { TimelineCluster, type Attempt, type TimelineClusterSpec } from './timeline-cluster.js';
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
  /**
   * The request the core places for a job (the pool replay's scenarios round requests up or give
   * each job its sharing mode). @defaultValue timelineJobRequest
   */
  readonly requestOf?: (job: TimelineJob, tenant: string) => JobRequest;
}

/**
 * The cluster the engine places on: a fixed `TimelineCluster`, or the pool replay's cluster whose
 * nodes come and go (src/sim/pool/pool-cluster.ts). Node numbers are stable ids: a node keeps its
 * number while it exists, and no other node takes it.
 */
export interface ReplayCluster {
  /** Whether `request` fits some node when nothing runs (else the job is left out as unplaceable). */
  fitsEmpty(request: JobRequest): boolean;
  /** One try of a queued job: placed, victims to evict (all on one node), or waiting (TimelineCluster.attempt). */
  attempt(
    request: JobRequest,
    shapeId: number,
    nowSeconds: number,
    preemptionCount: number,
    flags: { readonly placementFails: boolean; readonly mayPreempt: boolean },
  ): Attempt;
  /** Places `request` now if it fits. @returns its node's number, or -1 */
  place(request: JobRequest, nowSeconds: number, preemptionCount: number): number;
  /** Frees what job `jobId` holds. */
  release(jobId: number): void;
}

/**
 * A pool whose nodes change while the replay runs (src/sim/pool/pool-driver.ts): nodes that finish
 * booting join the cluster before a pass, and after each pass the pool may decide (an autoscaler
 * call) to add, cordon, drain or remove nodes.
 */
export interface ReplayPool {
  /** Time of the pool's next event (a node up, a decision due), simulated seconds; +∞ for none. */
  nextEventSeconds(): number;
  /** Before the pass at `nowSeconds`: nodes due by then join the cluster. @returns whether any did */
  nodesUp(nowSeconds: number): boolean;
  /**
   * After the pass at `nowSeconds`, with the queued jobs (in no order; `ordered` gives them in queue
   * order): the pool's decision, if one is due, is carried out.
   * @returns ids of running jobs to drain: checkpointed, stopped and re-queued (as a preemption does)
   */
  afterPass(nowSeconds: number, queue: readonly JobRun[], ordered: () => readonly JobRun[]): readonly number[];
  /** Everything at `nowSeconds` is done (drains, passes); `queued` jobs wait. */
  instantDone(nowSeconds: number, queued: number): void;
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
  /** Times it was moved off a node the pool drained (pool replay; 0 otherwise). */
  readonly drains: number;
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

/** milli-GPU a placed request asks for in all: GPUs × share (the request as placed, which `requestOf` may resize). */
function placedGpuMilli(request: JobRequest): number {
  return request.gpu.gpuCount * request.gpu.gpuMilli;
}

/** Safety net: more follow-up passes than this at one instant means a bug, not a workload. */
const MAX_PASSES_PER_INSTANT = 100_000;
/**
 * Safety net: this many pool events in a row with jobs waiting, none running and none arriving means
 * the pool never takes them.
 */
const MAX_IDLE_POOL_EVENTS = 100_000;

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
  return replayTimeline(jobs, new TimelineCluster(clusterSpec, timelinePreemptionSettings(options)), options);
}

/**
 * The core's preemption settings of a replay: its limits, its checkpoint interval, victims on one node.
 * @throws RangeError for a checkpoint interval that is not > 0
 */
export function timelinePreemptionSettings(options: TimelineOptions): PreemptionSettings {
  const checkpoint = options.checkpointIntervalSeconds;
  if (!(Number.isFinite(checkpoint) && checkpoint > 0))
    throw new RangeError(`checkpointIntervalSeconds must be > 0, got ${checkpoint}`);
  return { ...options.preemptionOptions, checkpointIntervalSeconds: checkpoint, victimsOnOneNode: true };
}

/**
 * {@link runTimeline} on a given cluster, and with `pool`, on a pool whose nodes change as the
 * replay runs: at each event time, completions, arrivals, nodes that finished booting (`nodesUp`:
 * a node added counts as something freed, so the pass tries every queued job), the pass, then the
 * pool's decision (`afterPass`), whose drained jobs are checkpointed and re-queued like preempted
 * ones (counted as drains, not preemptions), followed by another full pass. The replay goes on
 * while jobs arrive, run, or wait for a pool event.
 * @throws RangeError for a checkpoint interval that is not > 0
 * @throws Error when the replay breaks an invariant (a bug), or jobs wait with no event left
 */
export function replayTimeline(
  jobs: readonly TimelineJob[],
  cluster: ReplayCluster,
  options: TimelineOptions,
  pool?: ReplayPool,
): TimelineOutcome {
  timelinePreemptionSettings(options); // checks the checkpoint interval
  const checkpoint = options.checkpointIntervalSeconds;
  const tenant = options.tenant ?? 'trace';
  const requestOf = options.requestOf ?? timelineJobRequest;

  // Full request shapes (as placed: with the sharing mode), and whether each fits the empty cluster.
  const shapeIds = new Map<string, number>();
  const fitsEmpty: boolean[] = [];
  const runs: JobRun[] = [];
  const byId: JobRun[] = [];
  const unplaceable: TimelineJob[] = [];
  for (const job of jobs) {
    const request = requestOf(job, tenant);
    const g = request.gpu;
    const key =
      `${request.cpuMilli}/${request.hostMemoryMiB}/${g.gpuCount}/${g.gpuMilli}/${g.gpuMemoryMiB}/${g.mode}/` +
      `${(g.allowedGpuModels ?? []).join('|')}`;
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
      drains: 0,
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
    allocatedMilli += placedGpuMilli(run.request);
    completions.push(now + run.remainingSeconds, { run, attempt: run.attempt });
  };
  const stop = (run: JobRun): void => {
    cluster.release(run.id);
    countRunning(run, -1);
    allocatedMilli -= placedGpuMilli(run.request);
    run.nodeIndex = -1;
  };
  /** `run` stops at `now` and loses its work since the last checkpoint (a preemption, or a drain). */
  const evict = (run: JobRun, now: number, drained = false): void => {
    const lost = secondsSinceCheckpoint(run, now, checkpoint);
    run.remainingSeconds -= now - run.runStartSeconds - lost;
    run.lostWorkGpuSeconds += run.gpuEquivalents * lost;
    if (drained) run.drains++;
    else run.preemptions++;
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
      // A MIG placement may reconfigure a GPU's instances: an equal job's failure says nothing of the next.
      const placementFails = placeFailed[run.shapeId] === stamp && run.request.gpu.mode !== 'mig';
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
  let idlePoolEvents = 0;
  const poolNext = (): number => pool?.nextEventSeconds() ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const poolAt = poolNext();
    if (!(next < runs.length || completions.size > 0 || (queue.length > 0 && poolAt < Number.POSITIVE_INFINITY))) break;
    const now = Math.min(runs[next]?.job.arrivalSeconds ?? Number.POSITIVE_INFINITY, completions.peekTime(), poolAt);
    idlePoolEvents = next < runs.length || completions.size > 0 ? 0 : idlePoolEvents + 1;
    if (idlePoolEvents > MAX_IDLE_POOL_EVENTS)
      throw new Error(`timeline replay: ${queue.length} job(s) wait for a pool that never takes them (t=${now})`);
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
    if (pool?.nodesUp(now) === true) freed = true;
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
    if (pool !== undefined) {
      const drained = pool.afterPass(now, queue, () => orderQueue(queue, queueContext(now)));
      for (const id of drained) {
        const run = byId[id];
        if (run === undefined || run.nodeIndex < 0)
          throw new Error(`timeline replay: the pool drained job ${id}, which does not run`);
        evict(run, now, true);
        queue.push(run);
      }
      if (drained.length > 0) fullPass(now);
      pool.instantDone(now, queue.length);
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
    drains: run.drains,
    lostWorkGpuSeconds: run.lostWorkGpuSeconds,
  }));
  return { outcomes, unplaceable, allocation, makespanSeconds: makespan, passes };
}

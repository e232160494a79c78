/**
 * The event-driven timeline replay (docs/simulator.md "Timeline replay"): jobs arrive over
 * simulated time, wait in a priority queue when they do not fit, run for their duration, and
 * depart; with preemption, a job that cannot be placed may evict lower-priority jobs of one node,
 * which go back to the queue and later resume from their last checkpoint.
 */
import {
  createNodeStates,
  defaultPreemptible,
  orderQueue,
  totalGpuMilli,
  whyNotFit,
  type PreemptionOptions,
  type QueueOrderContext,
  type Scheduler,
} from '../../core/index.js';
import { AllocationTrace } from './allocation-trace.js';
import { EventHeap } from './event-heap.js';
import { secondsSinceCheckpoint, type JobRun } from './job-run.js';
import { choosePreemption, type PreemptionContext } from './node-preemption.js';
import type { TimelineJob } from './timeline-jobs.js';
import { traceGpuEquivalents } from './trace-gpu-equivalents.js';

/** How a replay runs. */
export interface TimelineOptions {
  /** Whether a job that cannot be placed may preempt lower-priority jobs. */
  readonly preemption: boolean;
  /** Run time between checkpoints, seconds (> 0); preempted work since the last one is lost. */
  readonly checkpointIntervalSeconds: number;
  /** Limits passed to the preemption planner. */
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
 * Replays `jobs` (in arrival order) on `scheduler`'s cluster, which must start empty.
 *
 * At each event time: completions first (their resources are released), then arrivals, then one
 * scheduling pass. The pass tries queued jobs in the core's queue order (`orderQueue`: priority
 * aged by the wait so far, then arrival, then id; one tenant, so fair share plays no part), every
 * one, not only the head. When nothing was released it tries only the new arrivals, since the
 * others did not fit before and nothing got freer. A job that cannot be placed, with preemption on, asks for victims
 * (see
 * node-preemption.ts); evicted jobs rejoin the queue with their first arrival time, and another
 * full pass follows (they may fit elsewhere). A job placed later in a pass never gives an earlier
 * job that failed to preempt a new chance: evicting it would only restore the state in which that
 * job found no plan.
 * @throws RangeError for a checkpoint interval that is not > 0
 * @throws Error when the cluster is not empty or the replay breaks an invariant (a bug)
 */
export function runTimeline(
  jobs: readonly TimelineJob[],
  scheduler: Scheduler,
  options: TimelineOptions,
): TimelineOutcome {
  const checkpoint = options.checkpointIntervalSeconds;
  if (!(Number.isFinite(checkpoint) && checkpoint > 0))
    throw new RangeError(`checkpointIntervalSeconds must be > 0, got ${checkpoint}`);
  const nodes = scheduler.cluster.nodes;
  if (nodes.some((n) => n.podCount > 0)) throw new Error('runTimeline needs an empty cluster');
  const tenant = options.tenant ?? 'trace';

  // Full request shapes, and where each fits when its node is empty.
  const shapeIds = new Map<string, number>();
  const emptyFit: Uint8Array[] = [];
  const emptyNodes = createNodeStates(nodes.map((n) => n.spec));
  const shapeOf = (job: TimelineJob): number => {
    const r = job.request;
    const key =
      `${r.cpuMilli}/${r.hostMemoryMiB}/${r.gpuCount}/${r.gpuMilli}/${r.gpuMemoryMiB}/` +
      `${r.allowedGpuModels.join('|')}`;
    let id = shapeIds.get(key);
    if (id === undefined) {
      id = shapeIds.size;
      shapeIds.set(key, id);
      emptyFit.push(Uint8Array.from(emptyNodes, (node) => (whyNotFit(node, r) === null ? 1 : 0)));
    }
    return id;
  };
  const runs: JobRun[] = [];
  const unplaceable: TimelineJob[] = [];
  for (const job of jobs) {
    const shapeId = shapeOf(job);
    if (!emptyFit[shapeId]!.includes(1)) {
      unplaceable.push(job);
      continue;
    }
    runs.push({
      id: job.id,
      priority: job.priority,
      tenant,
      submittedAtMs: job.arrivalSeconds * 1000,
      job,
      gpuEquivalents: traceGpuEquivalents(job.request),
      shapeId,
      queuedSinceSeconds: job.arrivalSeconds,
      waitSeconds: 0,
      remainingSeconds: job.durationSeconds,
      runStartSeconds: Number.NaN,
      nodeIndex: -1,
      gpuIndices: [],
      attempt: 0,
      firstStartSeconds: Number.NaN,
      endSeconds: Number.NaN,
      preemptions: 0,
      lostWorkGpuSeconds: 0,
    });
  }

  const runningByNode = nodes.map(() => new Set<JobRun>());
  const runningPreemptibleByPriority = new Map<number, number>();
  const completions = new EventHeap<{ readonly run: JobRun; readonly attempt: number }>();
  const allocation = new AllocationTrace();
  let allocatedMilli = 0;
  let queue: JobRun[] = [];
  let makespan = 0;
  const passes = { full: 0, arrivalsOnly: 0 };
  const preemptionCtx: PreemptionContext = {
    scheduler,
    runningByNode,
    checkpointIntervalSeconds: checkpoint,
    options: options.preemptionOptions,
    fitsEmptyNode: (shapeId, n) => emptyFit[shapeId]![n] === 1,
  };

  // One tenant: every dominant share is 0, so the order is aged priority, then arrival, then id.
  const noShares = new Map<string, number>();
  const queueContext = (now: number): QueueOrderContext => ({ nowMs: now * 1000, dominantShareByTenant: noShares });
  const countRunning = (run: JobRun, delta: number): void => {
    if (defaultPreemptible(run.priority))
      runningPreemptibleByPriority.set(run.priority, (runningPreemptibleByPriority.get(run.priority) ?? 0) + delta);
  };
  const start = (run: JobRun, nodeIndex: number, gpuIndices: readonly number[], now: number): void => {
    scheduler.commit(run.job.request, nodeIndex, gpuIndices);
    run.nodeIndex = nodeIndex;
    run.gpuIndices = gpuIndices;
    run.runStartSeconds = now;
    run.attempt++;
    run.waitSeconds += now - run.queuedSinceSeconds;
    if (Number.isNaN(run.firstStartSeconds)) run.firstStartSeconds = now;
    runningByNode[nodeIndex]!.add(run);
    countRunning(run, 1);
    allocatedMilli += totalGpuMilli(run.job.request);
    completions.push(now + run.remainingSeconds, { run, attempt: run.attempt });
  };
  const stop = (run: JobRun): void => {
    scheduler.uncommit(run.job.request, run.nodeIndex, run.gpuIndices);
    runningByNode[run.nodeIndex]!.delete(run);
    countRunning(run, -1);
    allocatedMilli -= totalGpuMilli(run.job.request);
    run.nodeIndex = -1;
    run.gpuIndices = [];
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

  // Per-pass memo: shapes that failed to place, and (priority, shape) pairs that failed to preempt,
  // since the last time something was freed in this pass.
  let stamp = 0;
  const placeFailed: number[] = [];
  const preemptFailed = new Map<number, number[]>();

  /** Tries `ordered` (queued jobs, in queue order). @returns the jobs evicted by preemptions */
  const pass = (ordered: readonly JobRun[], now: number): JobRun[] => {
    stamp++;
    const evicted: JobRun[] = [];
    for (const run of ordered) {
      if (placeFailed[run.shapeId] !== stamp) {
        const decision = scheduler.schedule(run.job.request);
        if (decision.kind === 'placed') {
          start(run, decision.nodeIndex, decision.gpuIndices, now);
          continue;
        }
        placeFailed[run.shapeId] = stamp;
      }
      if (!options.preemption || !hasPreemptibleBelow(run.priority)) continue;
      let failed = preemptFailed.get(run.priority);
      if (failed === undefined) preemptFailed.set(run.priority, (failed = []));
      if (failed[run.shapeId] === stamp) continue;
      const choice = choosePreemption(run, now, preemptionCtx);
      if (choice === null) {
        failed[run.shapeId] = stamp;
        continue;
      }
      for (const victim of choice.victims) {
        evict(victim, now);
        evicted.push(victim);
      }
      const decision = scheduler.schedule(run.job.request);
      if (decision.kind !== 'placed' || decision.nodeIndex !== choice.nodeIndex) {
        throw new Error(
          `timeline replay: job ${run.job.name} did not land on node ${choice.nodeIndex} after preemption`,
        );
      }
      start(run, decision.nodeIndex, decision.gpuIndices, now);
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

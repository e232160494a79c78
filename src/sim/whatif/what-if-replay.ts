/**
 * The what-if replays (docs/what-if.md): a server's history replayed through the core on a fixed
 * pool of N GPUs of one model, with the jobs' requests as they were, rounded up to whole GPUs, or
 * right-sized; and the smallest N whose p95 wait meets a target.
 */
import {
  buildTargetWorkload,
  DEFAULT_PREEMPTION_OPTIONS,
  randomPermutation,
  SeededRng,
  templateNode,
  type ClusterNode,
  type JobRequest,
  type NodeTemplate,
} from '../../core/index.js';
import { smallestMeeting } from '../pool/fixed-pool.js';
import { TimelineCluster } from '../timeline/timeline-cluster.js';
import { replayTimeline, timelinePreemptionSettings, type TimelineOptions } from '../timeline/timeline-engine.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import { statsByClass } from '../timeline/timeline-stats.js';
import type { History, HistoryJob } from './history-jobs.js';

/** The machines the what-if sizes: nodes of one GPU model. */
export interface WhatIfNodeShape {
  /** A catalog GPU model (`A100-80GB`, …): its device memory bounds the jobs' memory. */
  readonly gpuModel: string;
  readonly gpusPerNode: number;
  /** Host CPU of a full node, milli-cores; a trimmed last node gets its share. */
  readonly cpuMilli: number;
  /** Host memory of a full node, MiB. */
  readonly hostMemoryMiB: number;
}

/** Per GPU of a job: compute share and device memory (0: none named). */
export interface GpuSize {
  readonly gpuMilli: number;
  readonly gpuMemoryMiB: number;
}

/**
 * How the jobs ask: `shared` as they asked, `whole` rounded up to whole GPUs (exclusive), or
 * `sized` with the sizes of a map by job id (right-sizing; jobs absent from it as they asked).
 */
export type RequestVariant =
  | { readonly kind: 'shared' }
  | { readonly kind: 'whole' }
  | { readonly kind: 'sized'; readonly sizes: ReadonlyMap<number, GpuSize> };

/** The request the core places for `h` under `variant`: whole GPUs exclusive, shares in the mode they ran in. */
export function whatIfRequest(h: HistoryJob, variant: RequestVariant): JobRequest {
  const { job } = h;
  const r = job.request;
  const size: GpuSize =
    variant.kind === 'whole'
      ? { gpuMilli: r.gpuCount === 0 ? 0 : 1000, gpuMemoryMiB: 0 }
      : variant.kind === 'sized'
        ? (variant.sizes.get(job.id) ?? r)
        : r;
  const whole = size.gpuMilli >= 1000;
  return {
    id: job.id,
    tenant: h.tenant,
    priority: job.priority,
    submittedAtMs: job.arrivalSeconds * 1000,
    cpuMilli: r.cpuMilli,
    hostMemoryMiB: r.hostMemoryMiB,
    gpu: {
      gpuCount: r.gpuCount,
      gpuMilli: size.gpuMilli,
      // 0 names no memory: the server's default, a share of the device in proportion to the compute.
      gpuMemoryMiB: whole || size.gpuMemoryMiB === 0 ? null : size.gpuMemoryMiB,
      mode: whole ? 'exclusive' : h.mode === 'exclusive' ? 'mps' : h.mode,
      allowedGpuModels: r.allowedGpuModels,
    },
  };
}

/**
 * `gpus` GPUs of `shape` as nodes: full nodes, and the last one trimmed to the GPUs left (CPU and
 * memory in proportion).
 */
export function fixedNodes(shape: WhatIfNodeShape, gpus: number): ClusterNode[] {
  const nodes: ClusterNode[] = [];
  for (let i = 0, left = gpus; left > 0; i++, left -= shape.gpusPerNode) {
    const count = Math.min(shape.gpusPerNode, left);
    const template: NodeTemplate = {
      name: `${shape.gpuModel}x${count}`,
      gpuModel: shape.gpuModel,
      gpuCount: count,
      migCapable: false,
      hostCpuMilli: Math.floor((shape.cpuMilli * count) / shape.gpusPerNode),
      hostMemoryMiB: Math.floor((shape.hostMemoryMiB * count) / shape.gpusPerNode),
      pricePerHour: 0,
      minCount: 0,
      maxCount: 1,
      bootSeconds: 0,
    };
    nodes.push(templateNode(template, `node-${String(i).padStart(3, '0')}`));
  }
  return nodes;
}

/** One replay of the history on a fixed pool. */
export interface FixedReplay {
  readonly gpus: number;
  readonly policy: string;
  /** Jobs that fit no node even when the pool is empty (left out). */
  readonly unplaceable: number;
  /** p95 and mean wait of the replayed jobs, s (0 for none). */
  readonly waitP95Seconds: number;
  readonly waitMeanSeconds: number;
  /** Mean allocation of the pool's GPUs while it runs (first arrival to last end), %. */
  readonly allocatedPct: number;
}

/** Settings of every replay. */
export interface WhatIfReplaySettings {
  readonly shape: WhatIfNodeShape;
  readonly seed: number;
  /** Whether a job that does not fit may preempt lower-priority ones (checkpointed at the interval below). */
  readonly preemption: boolean;
  readonly checkpointIntervalSeconds: number;
}

/** Replays `history` on `gpus` GPUs with `policy` and the requests of `variant`. */
export function replayFixed(
  history: History,
  gpus: number,
  policy: string,
  variant: RequestVariant,
  settings: WhatIfReplaySettings,
): FixedReplay {
  const nodes = fixedNodes(settings.shape, gpus);
  const rng = new SeededRng(settings.seed);
  const nodeRank = randomPermutation(nodes.length, rng);
  const options: TimelineOptions = {
    preemption: settings.preemption,
    checkpointIntervalSeconds: settings.checkpointIntervalSeconds,
    preemptionOptions: DEFAULT_PREEMPTION_OPTIONS,
    // Job ids are the history's positions (history-jobs.ts).
    requestOf: (job: TimelineJob) => whatIfRequest(history.jobs[job.id]!, variant),
  };
  const shapes = variant.kind === 'whole' ? history.taskShapes.map(wholeShape) : history.taskShapes;
  const cluster = new TimelineCluster(
    { nodes, rng, scheduling: { policy, targetWorkload: buildTargetWorkload(shapes), nodeRank } },
    timelinePreemptionSettings(options),
  );
  const outcome = replayTimeline(
    history.jobs.map((h) => h.job),
    cluster,
    options,
  );
  const waits = statsByClass(outcome.outcomes).all.waitSeconds;
  const first = history.jobs[0]?.job.arrivalSeconds ?? 0;
  const span = outcome.makespanSeconds - first;
  return {
    gpus,
    policy,
    unplaceable: outcome.unplaceable.length,
    waitP95Seconds: waits.p95 ?? 0,
    waitMeanSeconds:
      outcome.outcomes.length === 0
        ? 0
        : outcome.outcomes.reduce((s, o) => s + o.waitSeconds, 0) / outcome.outcomes.length,
    allocatedPct: span > 0 ? outcome.allocation.meanPct(gpus * 1000, first, outcome.makespanSeconds) : 0,
  };
}

function wholeShape<T extends { gpuCount: number; gpuMilli: number }>(s: T): T {
  return s.gpuCount > 0 ? { ...s, gpuMilli: 1000 } : s;
}

/** The smallest pool found, and every size tried. */
export interface SmallestPool {
  /** The replay at the smallest size that meets the target; null when none up to the cap does. */
  readonly found: FixedReplay | null;
  readonly tried: readonly FixedReplay[];
}

/** Pools are searched up to this many GPUs. */
export const MAX_WHAT_IF_GPUS = 4096;

/**
 * The smallest number of GPUs on which the replay's p95 wait is at most `targetSeconds` with every
 * job placeable: from the most GPUs any one job needs, doubling until it meets, then bisection.
 */
export function smallestFixed(
  history: History,
  policy: string,
  variant: RequestVariant,
  targetSeconds: number,
  settings: WhatIfReplaySettings,
): SmallestPool {
  const tried = new Map<number, FixedReplay>();
  const run = (gpus: number): FixedReplay => {
    let r = tried.get(gpus);
    if (r === undefined) {
      r = replayFixed(history, gpus, policy, variant, settings);
      tried.set(gpus, r);
    }
    return r;
  };
  const meets = (gpus: number): boolean => {
    const r = run(gpus);
    return r.unplaceable === 0 && r.waitP95Seconds <= targetSeconds + 1e-9;
  };
  const lo = Math.max(1, ...history.jobs.map((h) => h.job.request.gpuCount));
  let hi = lo;
  while (hi < MAX_WHAT_IF_GPUS && !meets(hi)) hi = Math.min(MAX_WHAT_IF_GPUS, hi * 2);
  const { n } = smallestMeeting(lo, hi, meets);
  return {
    found: n === null ? null : run(n),
    tried: [...tried.values()].sort((a, b) => a.gpus - b.gpus),
  };
}

/** A job that fits no node of the shape even when it is empty, as the report names it. */
export interface UnplaceableJob {
  readonly name: string;
  readonly gpuCount: number;
  readonly gpuMilli: number;
  /** Per GPU, MiB; 0: none named. */
  readonly gpuMemoryMiB: number;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly allowedGpuModels: readonly string[];
}

/**
 * Splits `history` into the jobs that fit an empty full node of `shape` (as asked and as whole
 * GPUs; renumbered 0.. in the same order) and those that fit none: more GPUs than a node has, more
 * memory than its GPUs, more CPU or host memory than it has, or GPU models it is not.
 */
export function placeableHistory(
  history: History,
  shape: WhatIfNodeShape,
): { readonly history: History; readonly unplaceable: readonly UnplaceableJob[] } {
  const cluster = new TimelineCluster(
    { nodes: fixedNodes(shape, shape.gpusPerNode), rng: new SeededRng(0), scheduling: { policy: 'default' } },
    timelinePreemptionSettings({
      preemption: false,
      checkpointIntervalSeconds: 1800,
      preemptionOptions: DEFAULT_PREEMPTION_OPTIONS,
    }),
  );
  const kept: HistoryJob[] = [];
  const unplaceable: UnplaceableJob[] = [];
  for (const h of history.jobs) {
    const fits =
      cluster.fitsEmpty(whatIfRequest(h, { kind: 'shared' })) && cluster.fitsEmpty(whatIfRequest(h, { kind: 'whole' }));
    if (fits) kept.push({ ...h, job: { ...h.job, id: kept.length } });
    else unplaceable.push({ name: h.job.name, ...h.job.request });
  }
  return { history: { ...history, jobs: kept, taskShapes: kept.map((h) => h.job.request) }, unplaceable };
}

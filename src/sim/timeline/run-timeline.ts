/**
 * Runs the timeline replay for every (policy, seed) pair — sequentially, in this thread — and
 * assembles the {@link TimelineReport}.
 */
import { readFile } from 'node:fs/promises';
import {
  buildTargetWorkload,
  DEFAULT_AGING,
  DEFAULT_PREEMPTION_OPTIONS,
  findPolicy,
  randomPermutation,
  SeededRng,
  type PreemptionOptions,
  type TargetWorkload,
} from '../../core/index.js';
import { clusterNodeOf, taskShapeOf } from '../cluster-from-trace.js';
import { UnknownPolicyError, type WorkloadSource } from '../packing-replay.js';
import { parsePodListCsv, readNodeListFile } from '../traces/alibaba-csv.js';
import { TraceFormatError, type TraceNode } from '../traces/trace-types.js';
import { QOS_PRIORITY } from './qos-priority.js';
import { sampleCluster } from './sample-cluster.js';
import { readScheduledTimes } from './scheduled-times.js';
import { runTimeline } from './timeline-engine.js';
import { buildTimelineJobs, type TimelineWorkload } from './timeline-jobs.js';
import { offeredLoadPct, statsByClass } from './timeline-stats.js';
import { summarizeTimelineRuns } from './timeline-summary.js';
import type { TimelineReport, TimelineRunResult } from './timeline-types.js';

/**
 * Preemption limits of the timeline replay: the core's defaults (`DEFAULT_PREEMPTION_OPTIONS`, as
 * the server uses): no minimum run time, at most 5 preemptions per job. docs/simulator.md shows how
 * the cap changes the results.
 */
export const TIMELINE_PREEMPTION_OPTIONS: PreemptionOptions = DEFAULT_PREEMPTION_OPTIONS;
/** Number of equal intervals of the allocation-over-time output. */
export const ALLOCATION_INTERVALS = 200;
/** The offered-load formula, as stated in the outputs. */
export const OFFERED_LOAD_DEFINITION =
  'mean offered load = Σ(GPU-equivalents × duration) / (cluster GPUs × (last arrival − first arrival))';

/** Settings of one timeline run. */
export interface TimelineSettings {
  /** `--gpus N`: sample a cluster of N GPUs per seed; null = the node list as given. */
  readonly gpus: number | null;
  readonly preemption: boolean;
  readonly checkpointIntervalSeconds: number;
  readonly workloadSource: WorkloadSource;
  readonly preemptionOptions?: PreemptionOptions;
}

/** The inputs every run of a grid shares. */
export interface TimelineInput {
  readonly nodes: readonly TraceNode[];
  readonly workload: TimelineWorkload;
  /** The pod list's target workload M (for `fgd` and `default`). */
  readonly targetWorkload: TargetWorkload;
}

/**
 * One run. Draws come from one stream seeded with `seed`: the cluster sample (with `gpus`), then
 * the node tie-break ranks, then the policy's own draws.
 * @throws UnknownPolicyError for an unregistered policy
 */
export function runTimelineOnce(
  input: TimelineInput,
  policyName: string,
  seed: number,
  settings: TimelineSettings,
): TimelineRunResult {
  const started = performance.now();
  if (!findPolicy(policyName)) throw new UnknownPolicyError(policyName);
  const rng = new SeededRng(seed);
  const traceNodes = settings.gpus === null ? input.nodes : sampleCluster(input.nodes, settings.gpus, rng);
  const nodes = traceNodes.map(clusterNodeOf);
  const nodeRank = randomPermutation(nodes.length, rng);
  const scheduling = {
    policy: policyName,
    targetWorkload: input.targetWorkload,
    learnWorkloadOnline: settings.workloadSource === 'online',
    nodeRank,
  };
  const outcome = runTimeline(
    input.workload.jobs,
    { nodes, rng, scheduling },
    {
      preemption: settings.preemption,
      checkpointIntervalSeconds: settings.checkpointIntervalSeconds,
      preemptionOptions: settings.preemptionOptions ?? TIMELINE_PREEMPTION_OPTIONS,
    },
  );
  const gpus = nodes.reduce((s, n) => s + n.gpus.length, 0);
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const o of outcome.outcomes) {
    first = Math.min(first, o.job.arrivalSeconds);
    last = Math.max(last, o.job.arrivalSeconds);
  }
  const span = last >= first ? last - first : 0;
  const end = outcome.makespanSeconds;
  return {
    policy: policyName,
    seed,
    cluster: { nodes: nodes.length, gpus },
    jobs: outcome.outcomes.length,
    unplaceable: outcome.unplaceable.length,
    arrivalSpanSeconds: span,
    offeredLoadPct: offeredLoadPct(outcome.outcomes, gpus),
    makespanSeconds: end,
    meanAllocationPct: outcome.allocation.meanPct(gpus * 1000, 0, end),
    meanAllocationPctDuringArrivals:
      span > 0 ? outcome.allocation.meanPct(gpus * 1000, first, last) : outcome.allocation.meanPct(gpus * 1000, 0, end),
    allocation: {
      intervalSeconds: end / ALLOCATION_INTERVALS,
      pct: outcome.allocation.intervalMeansPct(gpus * 1000, 0, end, ALLOCATION_INTERVALS),
    },
    allocationDuringArrivals: {
      startSeconds: span > 0 ? first : 0,
      intervalSeconds: span / ALLOCATION_INTERVALS,
      pct: outcome.allocation.intervalMeansPct(
        gpus * 1000,
        span > 0 ? first : 0,
        span > 0 ? last : 0,
        ALLOCATION_INTERVALS,
      ),
    },
    ...statsByClass(outcome.outcomes),
    passes: outcome.passes,
    wallSeconds: (performance.now() - started) / 1000,
  };
}

/** What to run. */
export interface TimelineGridOptions extends TimelineSettings {
  readonly nodesFile: string;
  readonly podsFile: string;
  /** Registered policy names, in display order. */
  readonly policies: readonly string[];
  readonly seeds: readonly number[];
  /** K > 0: arrival gaps are divided by K, run times kept. */
  readonly arrivalSpeedup: number;
  /** Called after each run with the count done so far, the total, and that run. */
  readonly onProgress?: (done: number, total: number, last: TimelineRunResult) => void;
}

async function readPodsText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new TraceFormatError(
      path,
      null,
      null,
      `cannot read file: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * Replays every (policy, seed) pair in turn and summarizes the results. Results are ordered by
 * policy, then seed, as given.
 * @throws UnknownPolicyError for an unregistered policy (checked before any file is read)
 * @throws RangeError for empty `policies`/`seeds`, `arrivalSpeedup` or `checkpointIntervalSeconds` not > 0, or `gpus`
 * not a positive integer
 * @throws TraceFormatError when a trace file cannot be read or is malformed, no pod has valid
 *   times, or (with `gpus`) the node list has no GPU node
 */
export async function runTimelineGrid(options: TimelineGridOptions): Promise<TimelineReport> {
  const { nodesFile, podsFile, policies, seeds, arrivalSpeedup, gpus } = options;
  for (const policy of policies) if (!findPolicy(policy)) throw new UnknownPolicyError(policy);
  if (policies.length === 0 || seeds.length === 0)
    throw new RangeError('runTimelineGrid needs at least one policy and one seed');
  if (!(options.checkpointIntervalSeconds > 0 && Number.isFinite(options.checkpointIntervalSeconds))) {
    throw new RangeError(`checkpointIntervalSeconds must be a number > 0, got ${options.checkpointIntervalSeconds}`);
  }
  if (gpus !== null && (!Number.isSafeInteger(gpus) || gpus < 1))
    throw new RangeError(`gpus must be an integer >= 1, got ${gpus}`);

  const nodes = await readNodeListFile(nodesFile);
  const podsText = await readPodsText(podsFile);
  const pods = parsePodListCsv(podsText, podsFile);
  const workload = buildTimelineJobs(pods, readScheduledTimes(podsText), arrivalSpeedup);
  if (workload.jobs.length === 0) {
    throw new TraceFormatError(
      podsFile,
      null,
      null,
      'no pod has creation_time, scheduled_time and deletion_time (with deletion_time >= ' +
        'scheduled_time); --replay timeline needs them',
    );
  }
  if (gpus !== null && !nodes.some((n) => n.gpuCount > 0)) {
    throw new TraceFormatError(nodesFile, null, 'gpu', 'no node with gpu > 0 to sample --gpus from');
  }
  const input: TimelineInput = { nodes, workload, targetWorkload: buildTargetWorkload(pods.map(taskShapeOf)) };
  const preemptionOptions = options.preemptionOptions ?? TIMELINE_PREEMPTION_OPTIONS;

  const runs: TimelineRunResult[] = [];
  const total = policies.length * seeds.length;
  for (const policy of policies) {
    for (const seed of seeds) {
      const run = runTimelineOnce(input, policy, seed, options);
      runs.push(run);
      options.onProgress?.(runs.length, total, run);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return {
    replay: 'timeline',
    cluster:
      gpus === null
        ? { source: 'nodes-file', gpus: nodes.reduce((s, n) => s + n.gpuCount, 0), nodes: nodes.length }
        : { source: 'sampled', gpus, nodes: null },
    inputs: {
      nodesFile,
      podsFile,
      pods: pods.length,
      timedPods: workload.jobs.length,
      skippedMissingTimes: workload.skippedMissingTimes,
      skippedNegativeDuration: workload.skippedNegativeDuration,
    },
    settings: {
      policies,
      seeds,
      arrivalSpeedup,
      preemption: options.preemption,
      checkpointIntervalSeconds: options.checkpointIntervalSeconds,
      minRunSeconds: preemptionOptions.minRunSeconds,
      maxPreemptionsPerJob: Number.isFinite(preemptionOptions.maxPreemptionsPerJob)
        ? preemptionOptions.maxPreemptionsPerJob
        : null,
      workloadSource: options.workloadSource,
      qosPriority: Object.fromEntries(QOS_PRIORITY),
      queueAging: DEFAULT_AGING,
    },
    offeredLoadDefinition: OFFERED_LOAD_DEFINITION,
    runs,
    summary: summarizeTimelineRuns(runs),
    generatedAt: new Date().toISOString(),
  };
}

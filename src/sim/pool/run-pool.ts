/**
 * One run of the pool report (docs/simulator.md "Pool replay"): the timeline replay of the trace's
 * jobs on a fixed pool of whole GPUs (scenario 0) or on a pool the core's autoscaler grows and
 * shrinks (a: whole GPUs, b: shared GPUs, c: hybrid modes), with what it paid.
 */
import {
  buildTargetWorkload,
  DEFAULT_PREEMPTION_OPTIONS,
  randomPermutation,
  SeededRng,
  templateNode,
  type AutoscalePolicy,
  type ClusterNode,
  type JobRequest,
  type NodeTemplate,
  type ScheduleOptions,
  type TaskShape,
} from '../../core/index.js';
import { sharingGpuModel } from '../hybrid/pod-mode.js';
import { TimelineCluster } from '../timeline/timeline-cluster.js';
import {
  replayTimeline,
  timelinePreemptionSettings,
  type JobOutcome,
  type ReplayPool,
  type TimelineOptions,
} from '../timeline/timeline-engine.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import { statsByClass } from '../timeline/timeline-stats.js';
import { fixedPoolNodes } from './fixed-pool.js';
import { PoolCluster } from './pool-cluster.js';
import { AutoscaleDriver } from './pool-driver.js';
import { hybridRequestOf, wholeGpuJob } from './pool-jobs.js';
import { StepSeries } from './pool-ledger.js';
import { poolTemplates, type ModelShape } from './pool-templates.js';
import type { PoolRunResult, PoolScenario, PoolSeries } from './pool-types.js';

/** Intervals of the over-time series. */
export const SERIES_INTERVALS = 400;

/** The inputs every run shares. */
export interface PoolInput {
  /** The replayed jobs (pods with valid times), in arrival order, as the trace gives them. */
  readonly jobs: readonly TimelineJob[];
  /** The trace's node shapes per GPU model (the templates). */
  readonly shapes: readonly ModelShape[];
  /** Task shapes of the pod list (the `default` policy's target workload), as the trace gives them. */
  readonly taskShapes: readonly TaskShape[];
  /**
   * The request the core places for a job of the whole-GPU and sharing scenarios (after rounding
   * up for whole GPUs); absent: `timelineJobRequest`, an MPS share naming no memory, as for trace
   * pods. The what-if replay gives each job of a server's history its own mode and memory.
   */
  readonly requestOf?: (job: TimelineJob, tenant: string) => JobRequest;
}

/** How runs run. */
export interface PoolRunSettings {
  readonly checkpointIntervalSeconds: number;
  readonly preemption: boolean;
  /** Seconds from a node's request until it takes jobs. */
  readonly bootSeconds: number;
  /** Simulated seconds between the autoscaler's turns. */
  readonly autoscaleIntervalSeconds: number;
  /** Queued jobs the autoscaler sees at most per call. */
  readonly maxPendingJobs: number;
  /** The autoscaler's policy per autoscaled scenario (its `maxNodes` also caps each template). */
  readonly policies: Readonly<Record<Exclude<PoolScenario, 'fixed-whole'>, AutoscalePolicy>>;
  /** Catalog model of every GPU in the hybrid scenario (MIG-capable). */
  readonly hybridGpuModel: string;
  /** Which jobs the autoscaler's drains may move (pool-driver.ts). */
  readonly drainable: 'all' | 'preemptible';
  /** Price hosts' vCPUs and memory too (pool-prices.ts). */
  readonly hostPrices: boolean;
}

/** The templates of the trace's models, or with every GPU the hybrid model. */
export function scenarioTemplates(input: PoolInput, settings: PoolRunSettings, hybrid: boolean): NodeTemplate[] {
  const maxCount = Math.max(
    settings.policies['autoscaled-whole'].maxNodes,
    settings.policies['autoscaled-sharing'].maxNodes,
    settings.policies['autoscaled-hybrid'].maxNodes,
  );
  return poolTemplates(input.shapes, {
    bootSeconds: settings.bootSeconds,
    maxCount,
    gpuModel: hybrid ? settings.hybridGpuModel : null,
    hostPrices: settings.hostPrices,
  });
}

/** A pool that only records the queue length (the fixed pool's). */
class QueueRecorder implements ReplayPool {
  readonly queueLength = new StepSeries();
  nextEventSeconds(): number {
    return Number.POSITIVE_INFINITY;
  }
  nodesUp(): boolean {
    return false;
  }
  afterPass(): readonly number[] {
    return [];
  }
  instantDone(nowSeconds: number, queued: number): void {
    this.queueLength.record(nowSeconds, queued);
  }
}

/** GPU-seconds the trace's pods asked for while they ran: their fractional requests × (run time + work redone). */
function requestedGpuSeconds(outcomes: readonly JobOutcome[], fractional: ReadonlyMap<number, number>): number {
  let sum = 0;
  for (const o of outcomes) {
    const frac = fractional.get(o.job.id) ?? 0;
    const lostSeconds = o.gpuEquivalents > 0 ? o.lostWorkGpuSeconds / o.gpuEquivalents : 0;
    sum += frac * (o.job.durationSeconds + lostSeconds);
  }
  return sum;
}

function timelineOptions(settings: PoolRunSettings): TimelineOptions {
  return {
    preemption: settings.preemption,
    checkpointIntervalSeconds: settings.checkpointIntervalSeconds,
    preemptionOptions: DEFAULT_PREEMPTION_OPTIONS,
  };
}

/** The series of a run over [0, end] (`reservedMilli`: milli-GPU reserved by the running jobs). */
function seriesOf(
  paidGpus: StepSeries,
  reservedMilli: (from: number, to: number, count: number) => number[],
  queue: StepSeries,
  costRate: StepSeries,
  end: number,
): PoolSeries {
  const width = end / SERIES_INTERVALS;
  return {
    intervalSeconds: width,
    poolGpus: paidGpus.intervalMeans(0, end, SERIES_INTERVALS),
    allocatedGpus: reservedMilli(0, end, SERIES_INTERVALS).map((m) => m / 1000),
    queueLength: queue.intervalMeans(0, end, SERIES_INTERVALS),
    cumulativeCost: Array.from({ length: SERIES_INTERVALS }, (_, k) => costRate.integralTo((k + 1) * width) / 3600),
  };
}

/**
 * Runs one scenario with one seed. The fixed pool (`fixed-whole`) has `fixedGpus` GPUs
 * (fixed-pool.ts), its nodes ranked by a permutation drawn from the seed as in the timeline replay;
 * an autoscaled pool starts empty.
 * @throws RangeError for a fixed pool without `fixedGpus` or below one node per template
 */
export function runPoolScenario(
  input: PoolInput,
  scenario: PoolScenario,
  seed: number,
  settings: PoolRunSettings,
  fixedGpus: number | null = null,
): PoolRunResult {
  const started = performance.now();
  const hybrid = scenario === 'autoscaled-hybrid';
  const whole = scenario === 'fixed-whole' || scenario === 'autoscaled-whole';
  const jobs = whole ? input.jobs.map(wholeGpuJob) : input.jobs;
  const taskShapes = input.taskShapes.map((s): TaskShape =>
    whole && s.gpuCount > 0 ? { ...s, gpuMilli: 1000 } : hybrid ? { ...s, allowedGpuModels: [] } : s,
  );
  const model = hybrid ? sharingGpuModel(settings.hybridGpuModel) : undefined;
  if (hybrid && model === undefined) throw new RangeError(`hybrid GPU model ${settings.hybridGpuModel} is unknown`);
  const options: TimelineOptions = {
    ...timelineOptions(settings),
    ...(model ? { requestOf: hybridRequestOf(model) } : input.requestOf ? { requestOf: input.requestOf } : {}),
  };
  const scheduling: ScheduleOptions = {
    policy: 'default',
    targetWorkload: buildTargetWorkload(taskShapes),
    ...(hybrid ? { modeViews: true, migModeOnDemand: true } : {}),
  };
  const fractional = new Map(input.jobs.map((j) => [j.id, (j.request.gpuCount * j.request.gpuMilli) / 1000]));
  const templates = scenarioTemplates(input, settings, hybrid);
  const rng = new SeededRng(seed);

  if (scenario === 'fixed-whole') {
    if (fixedGpus === null) throw new RangeError('the fixed pool needs its GPU count');
    const shares = input.shapes.map((s) => s.gpusOfModel);
    const fixed = fixedPoolNodes(templates, shares, fixedGpus, settings.hostPrices);
    const nodes: ClusterNode[] = fixed.map((n, i) =>
      templateNode(
        { ...n.template, gpuCount: n.gpuCount, hostCpuMilli: n.cpuMilli, hostMemoryMiB: n.hostMemoryMiB },
        `fixed-${String(i).padStart(3, '0')}-${n.template.name}`,
      ),
    );
    const nodeRank = randomPermutation(nodes.length, rng);
    const cluster = new TimelineCluster(
      { nodes, rng, scheduling: { ...scheduling, nodeRank } },
      timelinePreemptionSettings(options),
    );
    const recorder = new QueueRecorder();
    const outcome = replayTimeline(jobs, cluster, options, recorder);
    const end = outcome.makespanSeconds;
    const pricePerHour = fixed.reduce((s, n) => s + n.pricePerHour, 0);
    const gpuHours = (fixedGpus * end) / 3600;
    const paid = new StepSeries();
    paid.record(0, fixedGpus);
    const rate = new StepSeries();
    rate.record(0, pricePerHour);
    const byTemplate: Record<string, number> = {};
    for (const n of fixed) byTemplate[n.template.name] = (byTemplate[n.template.name] ?? 0) + (n.gpuCount * end) / 3600;
    return {
      scenario,
      seed,
      fixedGpus,
      jobs: outcome.outcomes.length,
      unplaceable: outcome.unplaceable.length,
      makespanSeconds: end,
      gpuHours,
      cost: (pricePerHour * end) / 3600,
      nodes: fixed.length,
      peakGpus: fixedGpus,
      gpuHoursByTemplate: byTemplate,
      allocatedPct: end > 0 ? outcome.allocation.meanPct(fixedGpus * 1000, 0, end) : 0,
      requestedPct: gpuHours > 0 ? (100 * requestedGpuSeconds(outcome.outcomes, fractional)) / (gpuHours * 3600) : 0,
      ...statsByClass(outcome.outcomes),
      drains: 0,
      autoscale: null,
      gpuHoursUse: null,
      // The allocation trace in % of 100,000 milli-GPU is the reserved milli-GPU / 1000.
      series: seriesOf(
        paid,
        (from, to, count) => outcome.allocation.intervalMeansPct(100_000, from, to, count).map((g) => g * 1000),
        recorder.queueLength,
        rate,
        end,
      ),
      wallSeconds: (performance.now() - started) / 1000,
    };
  }

  const policy = settings.policies[scenario];
  const cluster = new PoolCluster({ templates, rng, scheduling }, timelinePreemptionSettings(options));
  const driver = new AutoscaleDriver(cluster, {
    templates,
    policy,
    intervalSeconds: settings.autoscaleIntervalSeconds,
    maxPendingJobs: settings.maxPendingJobs,
    scheduling,
    seed,
    drainable: settings.drainable,
  });
  const outcome = replayTimeline(jobs, cluster, options, driver);
  const end = outcome.makespanSeconds;
  const totals = driver.ledger.totals(end);
  const paidSeconds = totals.gpuHours * 3600;
  return {
    scenario,
    seed,
    fixedGpus: null,
    jobs: outcome.outcomes.length,
    unplaceable: outcome.unplaceable.length,
    makespanSeconds: end,
    gpuHours: totals.gpuHours,
    cost: totals.cost,
    nodes: totals.nodes,
    peakGpus: totals.peakGpus,
    gpuHoursByTemplate: totals.gpuHoursByTemplate,
    allocatedPct: paidSeconds > 0 ? (100 * driver.reservedMilli.integralTo(end)) / (1000 * paidSeconds) : 0,
    requestedPct: paidSeconds > 0 ? (100 * requestedGpuSeconds(outcome.outcomes, fractional)) / paidSeconds : 0,
    ...statsByClass(outcome.outcomes),
    drains: outcome.outcomes.reduce((s, o) => s + o.drains, 0),
    autoscale: driver.calls,
    gpuHoursUse: driver.gpuHoursUse(end),
    series: seriesOf(
      driver.ledger.paidGpus,
      (from, to, count) => driver.reservedMilli.intervalMeans(from, to, count),
      driver.queueLength,
      driver.ledger.costRate,
      end,
    ),
    wallSeconds: (performance.now() - started) / 1000,
  };
}

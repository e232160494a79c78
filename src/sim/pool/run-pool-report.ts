/**
 * The pool report (docs/simulator.md "Pool replay"): the trace's GPU jobs replayed over time on
 * four pools held to one p95-wait target — (0) the smallest fixed pool of whole GPUs that meets it,
 * (a) an autoscaled pool of whole GPUs, (b) an autoscaled pool sharing GPUs with the `default`
 * policy, (c) an autoscaled pool of MIG-capable GPUs with hybrid sharing modes — with what each paid,
 * and the ceiling of what sharing can save on the trace's requests.
 */
import { meanSd, type MeanSd } from '../../lib/statistics.js';
import { taskShapeOf } from '../cluster-from-trace.js';
import { parsePodListCsv, readNodeListFile, readText } from '../traces/alibaba-csv.js';
import { TraceFormatError } from '../traces/trace-types.js';
import { readScheduledTimes } from '../timeline/scheduled-times.js';
import { buildTimelineJobs } from '../timeline/timeline-jobs.js';
import { meanSdOf } from '../timeline/timeline-summary.js';
import { CLASS_ORDER } from '../timeline/timeline-types.js';
import { fixedPoolNodes, smallestMeeting } from './fixed-pool.js';
import { sharingCeiling } from './pool-jobs.js';
import { ASSUMED_PRICE_MODELS, GPU_PER_HOUR, MEMORY_GIB_PER_HOUR, PRICE_LIST, VCPU_PER_HOUR } from './pool-prices.js';
import { commonShapes } from './pool-templates.js';
import {
  POOL_SCENARIOS,
  type PoolReport,
  type PoolRunResult,
  type PoolScenario,
  type PoolScenarioSummary,
} from './pool-types.js';
import { runPoolScenario, scenarioTemplates, type PoolInput, type PoolRunSettings } from './run-pool.js';

/** What the pool report runs. */
export interface PoolReportOptions extends PoolRunSettings {
  readonly nodesFile: string;
  readonly podsFile: string;
  readonly seeds: readonly number[];
  /** K > 0: arrival gaps divided by K, run times kept. */
  readonly arrivalSpeedup: number;
  /** The p95 wait every scenario is held to, seconds > 0. */
  readonly waitTargetSeconds: number;
  /** Relative tolerance around the target, e.g. 0.1. */
  readonly tolerance: number;
  /** Called as runs finish (a line of progress). */
  readonly onProgress?: (message: string) => void;
}

/** Largest fixed pool the search tries. */
const MAX_FIXED_GPUS = 4096;
/** Sizes below the bisection's result that are checked too (the p95 need not fall with every GPU). */
const FIXED_CHECK_BELOW = 3;

/** Mean of the p95 waits of `runs` (0 for none). */
function meanP95(runs: readonly PoolRunResult[]): number {
  return runs.reduce((s, r) => s + (r.all.waitSeconds.p95 ?? 0), 0) / Math.max(1, runs.length);
}

function summarize(
  scenario: PoolScenario,
  runs: readonly PoolRunResult[],
  options: PoolReportOptions,
): PoolScenarioSummary {
  const of = (f: (r: PoolRunResult) => number): MeanSd => meanSd(runs.map(f));
  const waitP95 = of((r) => r.all.waitSeconds.p95 ?? 0);
  const byClass = Object.fromEntries(
    CLASS_ORDER.map((c) => [c, meanSdOf(runs.map((r) => r.byClass[c].waitSeconds.p95))]),
  ) as PoolScenarioSummary['waitP95ByClass'];
  return {
    scenario,
    seeds: runs.map((r) => r.seed),
    gpuHours: of((r) => r.gpuHours),
    cost: of((r) => r.cost),
    allocatedPct: of((r) => r.allocatedPct),
    requestedPct: of((r) => r.requestedPct),
    peakGpus: of((r) => r.peakGpus),
    waitP95Seconds: waitP95,
    waitP50Seconds: of((r) => r.all.waitSeconds.p50 ?? 0),
    waitP95ByClass: byClass,
    preemptions: of((r) => r.all.preemptions),
    drains: of((r) => r.drains),
    lostWorkGpuHours: of((r) => r.all.lostWorkGpuHours),
    withinTarget: Math.abs(waitP95.mean - options.waitTargetSeconds) <= options.tolerance * options.waitTargetSeconds,
  };
}

/**
 * Runs the report: reads the trace, finds the fixed pool, runs every scenario with every seed, and
 * sums up. CPU-only pods are left out (the pools are of GPU nodes).
 * @throws TraceFormatError when a trace file cannot be read or is malformed, or no GPU pod has valid times
 * @throws RangeError for empty seeds, or a target, tolerance or speedup out of range
 */
export async function runPoolReport(options: PoolReportOptions): Promise<PoolReport> {
  const { seeds, waitTargetSeconds, tolerance } = options;
  if (seeds.length === 0) throw new RangeError('runPoolReport needs at least one seed');
  if (!(waitTargetSeconds > 0 && Number.isFinite(waitTargetSeconds)))
    throw new RangeError(`waitTargetSeconds must be > 0, got ${waitTargetSeconds}`);
  if (!(tolerance >= 0 && tolerance < 1)) throw new RangeError(`tolerance must be in [0, 1), got ${tolerance}`);

  const nodes = await readNodeListFile(options.nodesFile);
  const podsText = await readText(options.podsFile);
  const pods = parsePodListCsv(podsText, options.podsFile);
  const workload = buildTimelineJobs(pods, readScheduledTimes(podsText), options.arrivalSpeedup);
  const jobs = workload.jobs.filter((j) => j.request.gpuCount > 0);
  if (jobs.length === 0)
    throw new TraceFormatError(options.podsFile, null, null, 'no GPU pod has creation, scheduled and deletion times');
  const input: PoolInput = {
    jobs,
    shapes: commonShapes(nodes),
    taskShapes: pods.filter((p) => p.gpuCount > 0).map(taskShapeOf),
  };
  if (input.shapes.length === 0)
    throw new TraceFormatError(options.nodesFile, null, 'model', 'no GPU node of a priced model to make templates of');
  const progress = options.onProgress ?? (() => undefined);

  // (0): the smallest fixed pool whose mean p95 wait over the seeds is within the target's upper bound.
  const limit = waitTargetSeconds * (1 + tolerance);
  const fixedRuns = new Map<number, PoolRunResult[]>();
  const searched: { gpus: number; waitP95Seconds: number; meets: boolean }[] = [];
  const meets = (gpus: number): boolean => {
    let runs = fixedRuns.get(gpus);
    if (runs === undefined) {
      runs = seeds.map((seed) => runPoolScenario(input, 'fixed-whole', seed, options, gpus));
      fixedRuns.set(gpus, runs);
      const p95 = meanP95(runs);
      searched.push({ gpus, waitP95Seconds: p95, meets: p95 <= limit });
      progress(`fixed pool of ${gpus} GPUs: p95 wait ${Math.round(p95)} s`);
    }
    return meanP95(runs) <= limit;
  };
  const templates = scenarioTemplates(input, options, false);
  const lo = templates.reduce((s, t) => s + t.gpuCount, 0);
  let hi = Math.max(lo, 64);
  while (hi < MAX_FIXED_GPUS && !meets(hi)) hi = Math.min(MAX_FIXED_GPUS, hi * 2);
  let fixedGpus = smallestMeeting(lo, hi, meets).n;
  if (fixedGpus !== null)
    for (let k = fixedGpus - 1; k >= Math.max(lo, fixedGpus - FIXED_CHECK_BELOW); k--) if (meets(k)) fixedGpus = k;
  const runs: PoolRunResult[] = fixedGpus === null ? [] : [...fixedRuns.get(fixedGpus)!];

  for (const scenario of POOL_SCENARIOS) {
    if (scenario === 'fixed-whole') continue;
    for (const seed of seeds) {
      const run = runPoolScenario(input, scenario, seed, options);
      runs.push(run);
      progress(
        `${scenario} seed ${seed}: ${Math.round(run.gpuHours)} GPU-h, p95 wait ${run.all.waitSeconds.p95 ?? 0} s`,
      );
    }
  }

  const summary = POOL_SCENARIOS.map((s) => runs.filter((r) => r.scenario === s))
    .filter((list) => list.length > 0)
    .map((list) => summarize(list[0]!.scenario, list, options));
  const hours = (s: PoolScenario): number => summary.find((x) => x.scenario === s)?.gpuHours.mean ?? Number.NaN;
  const ceiling = sharingCeiling(jobs);
  const sharingSaving = (hours('autoscaled-whole') - hours('autoscaled-sharing')) / hours('autoscaled-whole');
  const hybridSaving = (hours('fixed-whole') - hours('autoscaled-hybrid')) / hours('fixed-whole');
  const composition: Record<string, number> = {};
  if (fixedGpus !== null)
    for (const n of fixedPoolNodes(
      templates,
      input.shapes.map((s) => s.gpusOfModel),
      fixedGpus,
      options.hostPrices,
    ))
      composition[n.template.name] = (composition[n.template.name] ?? 0) + 1;

  return {
    replay: 'pool',
    inputs: {
      nodesFile: options.nodesFile,
      podsFile: options.podsFile,
      pods: pods.length,
      timedPods: workload.jobs.length,
      cpuOnlyLeftOut: workload.jobs.length - jobs.length,
    },
    settings: {
      seeds,
      arrivalSpeedup: options.arrivalSpeedup,
      waitTargetSeconds,
      tolerance,
      checkpointIntervalSeconds: options.checkpointIntervalSeconds,
      preemption: options.preemption,
      bootSeconds: options.bootSeconds,
      autoscaleIntervalSeconds: options.autoscaleIntervalSeconds,
      maxPendingJobs: options.maxPendingJobs,
      drainable: options.drainable,
      policies: options.policies,
      hybridGpuModel: options.hybridGpuModel,
      priceList: {
        ...PRICE_LIST,
        vcpuPerHour: VCPU_PER_HOUR,
        memoryGiBPerHour: MEMORY_GIB_PER_HOUR,
        hostPrices: options.hostPrices,
        gpuPerHour: GPU_PER_HOUR,
        assumedPriceModels: ASSUMED_PRICE_MODELS,
      },
      templates: { trace: templates, hybrid: scenarioTemplates(input, options, true) },
      fixedPool: {
        gpus: fixedGpus,
        nodesByTemplate: composition,
        searched: [...searched].sort((a, b) => a.gpus - b.gpus),
      },
    },
    ceiling,
    runs,
    summary,
    goals: {
      sharingVsWhole: {
        description:
          '(b) saves at least 90% of the ceiling against (a): (GPU-h(a) − GPU-h(b)) / GPU-h(a) ≥ 0.9 × ceiling',
        saving: sharingSaving,
        required: 0.9 * ceiling.ceiling,
        met: sharingSaving >= 0.9 * ceiling.ceiling,
        bound: ceiling.packingBound,
      },
      hybridVsFixed: {
        description: '(c) saves at least 40% of the GPU-hours of (0): (GPU-h(0) − GPU-h(c)) / GPU-h(0) ≥ 0.4',
        saving: hybridSaving,
        required: 0.4,
        met: hybridSaving >= 0.4,
      },
    },
    generatedAt: new Date().toISOString(),
  };
}

/**
 * Packing by use on the GenAI pods (docs/pack-by-use.md): each pod placed once from statistics of
 * the first half of the trace, judged on the second half against one pod per GPU and the memory
 * floor, for each GPU model asked for. Pure: the trace comes in parsed (read-genai-trace.ts).
 */
import { chooseHeadroom, type HeadroomChoice } from './choose-headroom.js';
import type { GenaiTrace } from './genai-trace.js';
import { judgePlacement, type Judgement } from './judge-placement.js';
import { DEFAULT_FLOOR_STEPS, memoryFloor, type MemoryFloor } from './memory-floor.js';
import { checkGoals, type GoalCheck } from './pack-goals.js';
import { packRun } from './pack-run.js';
import type { PackGpuModel } from './place-by-use.js';
import { podLoadOf } from './pod-load.js';
import { MIN_FIT_SAMPLES, selectPods, windowStats, type PodSelection } from './pod-stats.js';
import { lookbackSteps, splitByTime, stepSecondsOf, wholeWindow, type TimeWindow } from './time-windows.js';

/** What a run is asked. */
export interface PackByUseOptions {
  readonly models: readonly PackGpuModel[];
  /** Headroom above each pod's first-half peak memory (a fraction), or `auto` (choose-headroom.ts). */
  readonly headroom: number | 'auto';
  /** The interference rule's bound, percent of a GPU's occupied minutes. */
  readonly maxOverloadPct: number;
  /** Step budget of the floor's exact search. @defaultValue DEFAULT_FLOOR_STEPS */
  readonly floorSteps?: number;
}

/** The memory floor without its packing. */
export type FloorSummary = Omit<MemoryFloor, 'packing'>;

/** Everything a run found for one GPU model. */
export interface ModelResult {
  readonly model: PackGpuModel;
  /** The headroom placed with. */
  readonly headroom: number;
  /** How it was chosen under `auto`; null when it was given. */
  readonly headroomChoice: HeadroomChoice | null;
  /** GPUs with 1, 2, 3, … pods (index 0: GPUs with one pod). */
  readonly podsPerGpu: readonly number[];
  /** The packing on the first half, where the rule was kept. */
  readonly packedFirstHalf: Judgement;
  /** The packing on the second half. */
  readonly packed: Judgement;
  /** One pod per GPU on the second half. */
  readonly onePodPerGpu: Judgement;
  /** The fewest GPUs that hold every pod's second-half peak memory. */
  readonly floor: FloorSummary;
  readonly goals: readonly GoalCheck[];
}

/** A window with its length in instants and hours. */
export interface WindowSummary extends TimeWindow {
  readonly instants: number;
  readonly hours: number;
}

/** A run's results. */
export interface PackByUseResult {
  readonly trace: {
    readonly podsInBothFiles: number;
    readonly instants: number;
    readonly stepSeconds: number;
    /** Instants a sample stays current when the next is missing. */
    readonly lookbackSteps: number;
    readonly firstHalf: WindowSummary;
    readonly secondHalf: WindowSummary;
  };
  readonly selection: Omit<PodSelection, 'pods'> & { readonly placed: number; readonly minFitSamples: number };
  readonly settings: {
    readonly headroom: number | 'auto';
    readonly maxOverloadPct: number;
    readonly floorSteps: number;
  };
  readonly models: readonly ModelResult[];
}

/** Counts of GPUs by the number of pods they hold. */
function histogram(gpus: readonly (readonly number[])[]): number[] {
  const counts: number[] = [];
  for (const pods of gpus) counts[pods.length - 1] = (counts[pods.length - 1] ?? 0) + 1;
  return Array.from(counts, (c) => c ?? 0);
}

/**
 * Runs packing by use on `trace` for each model of `options`.
 * @throws RangeError for a trace of fewer than 2 instants or an invalid headroom
 */
export function packByUse(trace: GenaiTrace, options: PackByUseOptions): PackByUseResult {
  const instants = trace.instantsSeconds;
  const [firstHalf, secondHalf] = splitByTime(instants, wholeWindow(instants));
  const stepSeconds = stepSecondsOf(instants);
  const lookback = lookbackSteps(instants);
  const floorSteps = options.floorSteps ?? DEFAULT_FLOOR_STEPS;
  const selection = selectPods(trace, firstHalf, secondHalf);
  const pods = {
    loads: selection.pods.map((p) => podLoadOf(p, lookback)),
    fitStats: selection.pods.map((p) => windowStats(p, firstHalf)),
  };
  const peaks = selection.pods.map((p) => Math.ceil(windowStats(p, secondHalf).peakMemoryMiB));
  const windows = { fit: firstHalf, judged: secondHalf };
  const models = options.models.map((model): ModelResult => {
    const headroomChoice =
      options.headroom === 'auto' ? chooseHeadroom(trace, firstHalf, model, options.maxOverloadPct, lookback) : null;
    const headroom = headroomChoice?.headroom ?? (options.headroom as number);
    const run = packRun(pods, model, windows, headroom, options.maxOverloadPct);
    const alone = pods.loads.map((load) => [load]);
    const onePodPerGpu = judgePlacement(alone, secondHalf, model.gpuMemoryMiB, options.maxOverloadPct);
    const { lowerBound, upperBound, exact, provedBy, searchSteps } = memoryFloor(peaks, model.gpuMemoryMiB, floorSteps);
    const floor = { lowerBound, upperBound, exact, provedBy, searchSteps };
    return {
      model,
      headroom,
      headroomChoice,
      podsPerGpu: histogram(run.placement.gpus),
      packedFirstHalf: run.onFit,
      packed: run.onJudged,
      onePodPerGpu,
      floor,
      goals: checkGoals(run.onJudged, onePodPerGpu, floor, options.maxOverloadPct),
    };
  });
  const summary = (w: TimeWindow): WindowSummary => ({
    ...w,
    instants: w.end - w.start,
    hours: ((w.end - w.start) * stepSeconds) / 3600,
  });
  return {
    trace: {
      podsInBothFiles: trace.pods.length,
      instants: instants.length,
      stepSeconds,
      lookbackSteps: lookback,
      firstHalf: summary(firstHalf),
      secondHalf: summary(secondHalf),
    },
    selection: {
      placed: selection.pods.length,
      inOneFileOnly: selection.inOneFileOnly,
      absentWhenJudged: selection.absentWhenJudged,
      tooFewFitSamples: selection.tooFewFitSamples,
      minFitSamples: MIN_FIT_SAMPLES,
    },
    settings: { headroom: options.headroom, maxOverloadPct: options.maxOverloadPct, floorSteps },
    models,
  };
}

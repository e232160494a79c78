/**
 * `gpushare what-if` (docs/what-if.md): a server's history replayed through the core to say how
 * many GPUs of one model the same work needs with and without sharing, at the p95 wait it had;
 * which placement policy packs it on the fewest; what an autoscaled pool of such nodes would pay;
 * and what right-sized requests would need. Deterministic: the same history and options give the
 * same figures.
 */
import { findGpuModel } from '../../core/index.js';
import { nearestRank } from '../../lib/statistics.js';
import type { History } from './history-jobs.js';
import { autoscaledPools, type AutoscaledFigures } from './what-if-autoscaled.js';
import { rightSize, type RightSizing } from './right-size.js';
import {
  smallestFixed,
  placeableHistory,
  type FixedReplay,
  type UnplaceableJob,
  type RequestVariant,
  type WhatIfNodeShape,
  type WhatIfReplaySettings,
} from './what-if-replay.js';

/** A job's request in words: `name (2 × 500 milli-GPU, 40960 MiB, 2000 milli-CPU, 8192 MiB host)`. */
export function describeJob(job: UnplaceableJob): string {
  const models = job.allowedGpuModels.length > 0 ? `, only ${job.allowedGpuModels.join('|')}` : '';
  const memory = job.gpuMemoryMiB > 0 ? `, ${job.gpuMemoryMiB} MiB a GPU` : '';
  return (
    `${job.name} (${job.gpuCount} × ${job.gpuMilli} milli-GPU${memory}, ${job.cpuMilli} milli-CPU, ` +
    `${job.hostMemoryMiB} MiB host${models})`
  );
}

/** How the what-if runs. */
export interface WhatIfOptions {
  readonly shape: WhatIfNodeShape;
  readonly seed: number;
  /** The p95 wait to hold, s; null: the history's own p95 wait. */
  readonly waitTargetSeconds: number | null;
  /** Policies to compare with sharing (the recommended one is the one needing the fewest GPUs). */
  readonly policies: readonly string[];
  /** Right-sizing headroom above the observed peak, a fraction ≥ 0. */
  readonly headroom: number;
  /** The autoscaled pool: seconds a node takes to boot, seconds between the autoscaler's turns; null: not run. */
  readonly autoscale: { readonly bootSeconds: number; readonly intervalSeconds: number } | null;
  readonly preemption: boolean;
  readonly checkpointIntervalSeconds: number;
  /** Told what is done as each search ends (a progress line); absent: nothing is told. */
  readonly onProgress?: (message: string) => void;
}

/** The smallest fixed pool of one variant, or null when none up to the cap meets the target. */
export interface PoolSize {
  readonly gpus: number | null;
  readonly policy: string;
  readonly waitP95Seconds: number | null;
  readonly allocatedPct: number | null;
  /** Sizes tried: GPUs and p95 wait. */
  readonly tried: readonly { readonly gpus: number; readonly waitP95Seconds: number; readonly unplaceable: number }[];
}

/** Everything `gpushare what-if` reports (its `-o json` document). */
export interface WhatIfReport {
  readonly inputs: {
    readonly jobs: number;
    readonly gpuJobs: number;
    readonly tenants: number;
    /** First submit to last end, s. */
    readonly spanSeconds: number;
    readonly skippedNegativeRunTime: number;
    /** Jobs that fit no node of the shape even when it is empty: left out of every replay. */
    readonly unplaceable: number;
    /** The first few of them. */
    readonly unplaceableExamples: readonly UnplaceableJob[];
  };
  readonly settings: {
    readonly shape: WhatIfNodeShape;
    readonly seed: number;
    readonly headroom: number;
    readonly preemption: boolean;
    readonly autoscale: WhatIfOptions['autoscale'];
  };
  /** What the server's jobs had: p95 and mean wait, GPU-hours asked (shares) and rounded up. */
  readonly observed: {
    readonly waitP95Seconds: number;
    readonly waitMeanSeconds: number;
    readonly requestedGpuHours: number;
    readonly wholeGpuHours: number;
  };
  readonly target: { readonly waitP95Seconds: number; readonly source: 'history' | 'option' };
  /** Without sharing: every GPU request rounded up to whole GPUs, the `default` policy. */
  readonly whole: PoolSize;
  /** With sharing, per policy, in the order given. */
  readonly shared: readonly PoolSize[];
  /**
   * The policy that needs the fewest GPUs with sharing (ties: lower p95 wait in whole seconds, then the
   * order given);
   * null if none fits.
   */
  readonly recommendedPolicy: string | null;
  /** Autoscaled pools of the model's nodes (whole GPUs, sharing); null when not run or the model has no price. */
  readonly autoscaled: { readonly whole: AutoscaledFigures; readonly shared: AutoscaledFigures } | null;
  readonly rightSizing: RightSizing & {
    /** GPUs the history needs with the advised requests (recommended policy). */
    readonly pool: PoolSize | null;
  };
}

function poolSize(policy: string, found: ReturnType<typeof smallestFixed>): PoolSize {
  return {
    gpus: found.found?.gpus ?? null,
    policy,
    waitP95Seconds: found.found?.waitP95Seconds ?? null,
    allocatedPct: found.found?.allocatedPct ?? null,
    tried: found.tried.map((t: FixedReplay) => ({
      gpus: t.gpus,
      waitP95Seconds: t.waitP95Seconds,
      unplaceable: t.unplaceable,
    })),
  };
}

function better(a: PoolSize, b: PoolSize): boolean {
  if (a.gpus === null) return false;
  if (b.gpus === null) return true;
  // p95 waits are compared in whole seconds: a fraction of a second is no reason to leave the order given.
  return (
    a.gpus < b.gpus || (a.gpus === b.gpus && Math.round(a.waitP95Seconds ?? 0) < Math.round(b.waitP95Seconds ?? 0))
  );
}

/**
 * Runs the what-if on `history`.
 * @throws RangeError for a GPU model not in the catalog (or without a device memory), an empty history, or no policy
 */
export function runWhatIf(asRecorded: History, options: WhatIfOptions): WhatIfReport {
  const model = findGpuModel(options.shape.gpuModel);
  if (model === undefined || model.gpuMemoryMiB === null)
    throw new RangeError(`GPU model ${options.shape.gpuModel} is not a catalog model with a known device memory`);
  const deviceMiB = model.gpuMemoryMiB;
  if (asRecorded.jobs.length === 0)
    throw new RangeError(
      'the history has no job that ran' +
        (asRecorded.skippedNegativeRunTime > 0
          ? ` (${asRecorded.skippedNegativeRunTime} row(s) end before they start and are left out)`
          : ''),
    );
  const { history, unplaceable } = placeableHistory(asRecorded, options.shape);
  if (history.jobs.length === 0)
    throw new RangeError(
      `no job of the history fits a node of ${options.shape.gpusPerNode} ${options.shape.gpuModel} GPUs ` +
        `(${options.shape.cpuMilli / 1000} cores, ${options.shape.hostMemoryMiB / 1024} GiB), ` +
        `e.g. ${describeJob(unplaceable[0]!)}`,
    );
  if (options.policies.length === 0) throw new RangeError('at least one policy is needed');
  // What the server saw: every job of the history, also those that fit no node of the shape.
  const waits = asRecorded.jobs.map((h) => h.observedWaitSeconds);
  const observedP95 =
    nearestRank(
      [...waits].sort((a, b) => a - b),
      95,
    ) ?? 0;
  const target = options.waitTargetSeconds ?? observedP95;
  const settings: WhatIfReplaySettings = {
    shape: options.shape,
    seed: options.seed,
    preemption: options.preemption,
    checkpointIntervalSeconds: options.checkpointIntervalSeconds,
  };
  const shared = (policy: string, variant: RequestVariant = { kind: 'shared' }): PoolSize =>
    poolSize(policy, smallestFixed(history, policy, variant, target, settings));
  const progress = options.onProgress ?? (() => undefined);
  const steps = options.policies.length + 2;
  let step = 0;
  const done = (what: string, pool: PoolSize): PoolSize => {
    progress(`${++step}/${steps} ${what}: ${pool.gpus ?? 'none ≤ 4096'} GPUs`);
    return pool;
  };
  const whole = done(
    'whole GPUs',
    poolSize('default', smallestFixed(history, 'default', { kind: 'whole' }, target, settings)),
  );
  const byPolicy = options.policies.map((p) => done(`sharing, ${p}`, shared(p)));
  let best: PoolSize | null = null;
  for (const s of byPolicy) if (best === null ? s.gpus !== null : better(s, best)) best = s;
  const recommendedPolicy = best?.policy ?? null;

  const sizing = rightSize(history.jobs, { headroom: options.headroom, gpuMemoryMiB: deviceMiB });
  const sizedPool =
    sizing.workloads.length === 0 || recommendedPolicy === null
      ? null
      : done('right-sized', shared(recommendedPolicy, { kind: 'sized', sizes: sizing.sizes }));

  let requested = 0;
  let rounded = 0;
  for (const { job } of asRecorded.jobs) {
    requested += ((job.request.gpuCount * job.request.gpuMilli) / 1000) * job.durationSeconds;
    rounded += job.request.gpuCount * job.durationSeconds;
  }
  const first = asRecorded.jobs[0]!.job.arrivalSeconds;
  const last = Math.max(
    ...asRecorded.jobs.map((h) => h.job.arrivalSeconds + h.observedWaitSeconds + h.job.durationSeconds),
  );
  return {
    inputs: {
      jobs: asRecorded.jobs.length,
      gpuJobs: asRecorded.jobs.filter((h) => h.job.request.gpuCount > 0).length,
      tenants: new Set(asRecorded.jobs.map((h) => h.tenant)).size,
      spanSeconds: last - first,
      skippedNegativeRunTime: history.skippedNegativeRunTime,
      unplaceable: unplaceable.length,
      unplaceableExamples: unplaceable.slice(0, 3),
    },
    settings: {
      shape: options.shape,
      seed: options.seed,
      headroom: options.headroom,
      preemption: options.preemption,
      autoscale: options.autoscale,
    },
    observed: {
      waitP95Seconds: observedP95,
      waitMeanSeconds: waits.reduce((a, b) => a + b, 0) / waits.length,
      requestedGpuHours: requested / 3600,
      wholeGpuHours: rounded / 3600,
    },
    target: { waitP95Seconds: target, source: options.waitTargetSeconds === null ? 'history' : 'option' },
    whole,
    shared: byPolicy,
    recommendedPolicy,
    autoscaled: autoscaledPools(history, options, target),
    rightSizing: { ...sizing, pool: sizedPool },
  };
}

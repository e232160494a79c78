/**
 * `gpushare what-if`'s autoscaled pools (docs/what-if.md): the history's GPU jobs on pools of the
 * sized node shape that the core's autoscaler grows and shrinks (the pool replay, src/sim/pool), with
 * whole GPUs and with sharing, priced from the pool report's list.
 */
import { DEFAULT_AUTOSCALE_POLICY, type AutoscalePolicy } from '../../core/index.js';
import { GPU_PER_HOUR } from '../pool/pool-prices.js';
import { runPoolScenario, type PoolInput, type PoolRunSettings } from '../pool/run-pool.js';
import type { History } from './history-jobs.js';
import { whatIfRequest, type WhatIfNodeShape } from './what-if-replay.js';

/** What the autoscaled pools need of the what-if's options (run-what-if.ts `WhatIfOptions` has it). */
export interface AutoscaledPoolOptions {
  readonly shape: WhatIfNodeShape;
  readonly seed: number;
  /** Seconds a node takes to boot, seconds between the autoscaler's turns; null: not run. */
  readonly autoscale: { readonly bootSeconds: number; readonly intervalSeconds: number } | null;
  readonly preemption: boolean;
  readonly checkpointIntervalSeconds: number;
}

/** An autoscaled pool's run. */
export interface AutoscaledFigures {
  readonly gpuHours: number;
  readonly cost: number;
  readonly peakGpus: number;
  readonly waitP95Seconds: number;
  readonly withinTarget: boolean;
}

/** The autoscaled pools (pool replay, src/sim/pool) of the model's nodes; null when not asked or not priced. */
export function autoscaledPools(
  history: History,
  options: AutoscaledPoolOptions,
  target: number,
): { whole: AutoscaledFigures; shared: AutoscaledFigures } | null {
  const { autoscale, shape } = options;
  if (autoscale === null || GPU_PER_HOUR[shape.gpuModel] === undefined) return null;
  const gpuJobs = history.jobs.filter((h) => h.job.request.gpuCount > 0);
  if (gpuJobs.length === 0) return null;
  const byId = new Map(gpuJobs.map((h) => [h.job.id, h]));
  const input: PoolInput = {
    jobs: gpuJobs.map((h) => h.job),
    shapes: [
      {
        model: shape.gpuModel,
        gpuCount: shape.gpusPerNode,
        cpuMilli: shape.cpuMilli,
        hostMemoryMiB: shape.hostMemoryMiB,
        nodesOfShape: 1,
        nodesOfModel: 1,
        gpusOfModel: shape.gpusPerNode,
      },
    ],
    taskShapes: history.taskShapes.filter((s) => s.gpuCount > 0),
    requestOf: (job) => whatIfRequest({ ...byId.get(job.id)!, job }, { kind: 'shared' }),
  };
  const policy: AutoscalePolicy = {
    ...DEFAULT_AUTOSCALE_POLICY,
    scaleUpWaitSeconds: Math.max(0, target - autoscale.bootSeconds - autoscale.intervalSeconds),
    scaleDownUtilization: 0.5,
    maxNodes: 400,
  };
  const settings: PoolRunSettings = {
    checkpointIntervalSeconds: options.checkpointIntervalSeconds,
    preemption: options.preemption,
    bootSeconds: autoscale.bootSeconds,
    autoscaleIntervalSeconds: autoscale.intervalSeconds,
    maxPendingJobs: 200,
    policies: { 'autoscaled-whole': policy, 'autoscaled-sharing': policy, 'autoscaled-hybrid': policy },
    hybridGpuModel: 'A100-80GB',
    drainable: 'all',
    hostPrices: false,
  };
  const figures = (scenario: 'autoscaled-whole' | 'autoscaled-sharing'): AutoscaledFigures => {
    const run = runPoolScenario(input, scenario, options.seed, settings);
    const p95 = run.all.waitSeconds.p95 ?? 0;
    return {
      gpuHours: run.gpuHours,
      cost: run.cost,
      peakGpus: run.peakGpus,
      waitP95Seconds: p95,
      withinTarget: p95 <= target * 1.1 + 1,
    };
  };
  return { whole: figures('autoscaled-whole'), shared: figures('autoscaled-sharing') };
}

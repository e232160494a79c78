/**
 * The pool report of the shipped `default` trace with the CLI's defaults (seeds 42–44): the figures
 * README.md and docs/simulator.md ("Pool replay") print, recomputed. About a minute on 2 cores.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { POOL_DEFAULTS } from '../../src/cli/simulate-pool.js';
import { DEFAULT_AUTOSCALE_POLICY } from '../../src/core/index.js';
import type { PoolReport } from '../../src/sim/pool/pool-types.js';
import { runPoolReport } from '../../src/sim/pool/run-pool-report.js';

const DATA = fileURLToPath(new URL('../../data/alibaba-gpu-v2023/', import.meta.url));

let report: PoolReport;

beforeAll(async () => {
  const policy = {
    ...DEFAULT_AUTOSCALE_POLICY,
    scaleUpWaitSeconds: POOL_DEFAULTS.scaleUpWaitSeconds,
    scaleDownDelaySeconds: POOL_DEFAULTS.scaleDownDelaySeconds,
    scaleDownUtilization: POOL_DEFAULTS.scaleDownUtilization,
    maxNodes: POOL_DEFAULTS.maxNodes,
  };
  report = await runPoolReport({
    nodesFile: join(DATA, 'openb_node_list_gpu_node.csv'),
    podsFile: join(DATA, 'openb_pod_list_default.csv'),
    seeds: POOL_DEFAULTS.seeds,
    arrivalSpeedup: 1,
    waitTargetSeconds: POOL_DEFAULTS.waitTargetSeconds,
    tolerance: POOL_DEFAULTS.tolerance,
    checkpointIntervalSeconds: 1800,
    preemption: false,
    bootSeconds: POOL_DEFAULTS.bootSeconds,
    autoscaleIntervalSeconds: POOL_DEFAULTS.autoscaleIntervalSeconds,
    maxPendingJobs: POOL_DEFAULTS.maxPendingJobs,
    policies: { 'autoscaled-whole': policy, 'autoscaled-sharing': policy, 'autoscaled-hybrid': policy },
    hybridGpuModel: POOL_DEFAULTS.hybridGpuModel,
    drainable: 'all',
    hostPrices: false,
  });
}, 300_000);

describe('the pool report of the default trace (docs/simulator.md, Pool replay)', () => {
  it('replays 6,203 GPU jobs; the sharing ceiling is 13.66%, the packing bound 11.30%', () => {
    expect(report.inputs).toMatchObject({ timedPods: 7255, cpuOnlyLeftOut: 1052 });
    expect(Math.round(report.ceiling.fractionalGpuHours)).toBe(51_471);
    expect(Math.round(report.ceiling.wholeGpuHours)).toBe(59_612);
    expect(report.ceiling.ceiling).toBeCloseTo(0.1366, 4);
    // Packing the shares of the jobs that run at the same time: at least 52,873 GPU-h, 11.30% saved at most.
    expect(Math.round(report.ceiling.packedGpuHours)).toBe(52_873);
    expect(report.ceiling.packingBound).toBeCloseTo(0.113, 3);
  });

  it('holds all four pools to 1,200 s ± 10% at p95, the fixed one at 45 GPUs', () => {
    expect(report.settings.fixedPool.gpus).toBe(45);
    expect(report.summary.map((s) => [s.scenario, Math.round(s.waitP95Seconds.mean), s.withinTarget])).toEqual([
      ['fixed-whole', 1205, true],
      ['autoscaled-whole', 1204, true],
      ['autoscaled-sharing', 1199, true],
      ['autoscaled-hybrid', 1217, true],
    ]);
  });

  it('pays the GPU-hours and cost the docs print', () => {
    expect(report.summary.map((s) => [s.scenario, Math.round(s.gpuHours.mean), Math.round(s.cost.mean)])).toEqual([
      ['fixed-whole', 174_327, 391_422],
      ['autoscaled-whole', 62_771, 64_169],
      ['autoscaled-sharing', 56_121, 55_061],
      ['autoscaled-hybrid', 62_420, 245_192],
    ]);
  });

  it('says where the GPU-hours went, as the docs print', () => {
    const use = (scenario: string): number[] => {
      const u = report.runs.find((r) => r.scenario === scenario)!.gpuHoursUse!;
      return [u.held, u.slivers, u.idleOnBusyNodes, u.emptyNodes, u.cordoned, u.booting].map(Math.round);
    };
    expect(use('autoscaled-whole')).toEqual([59_720, 0, 2_758, 122, 18, 154]);
    expect(use('autoscaled-sharing')).toEqual([51_558, 2_099, 2_208, 107, 15, 135]);
    expect(use('autoscaled-hybrid')).toEqual([53_167, 6_134, 2_808, 65, 34, 212]);
  });

  it('misses the sharing goal and meets the hybrid one', () => {
    expect(report.goals.sharingVsWhole.saving).toBeCloseTo(0.106, 3);
    expect(report.goals.sharingVsWhole.met).toBe(false);
    expect(report.goals.sharingVsWhole.bound).toBeCloseTo(0.113, 3);
    expect(report.goals.hybridVsFixed.saving).toBeCloseTo(0.642, 3);
    expect(report.goals.hybridVsFixed.met).toBe(true);
  });
});

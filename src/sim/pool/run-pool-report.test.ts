/**
 * The pool report recomputed on a small seeded sample of the shipped trace (its first 600 pods,
 * seed 42, the CLI's default settings): the figures docs/simulator.md describes, pinned.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTOSCALE_POLICY } from '../../core/index.js';
import type { PoolReport } from './pool-types.js';
import { runPoolReport } from './run-pool-report.js';

const DATA = fileURLToPath(new URL('../../../data/alibaba-gpu-v2023/', import.meta.url));
const POLICY = { ...DEFAULT_AUTOSCALE_POLICY, maxNodes: 400, scaleUpWaitSeconds: 875, scaleDownUtilization: 0.5 };

let dir: string;
let report: PoolReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-pool-'));
  const podsFile = join(dir, 'pods-600.csv');
  const lines = readFileSync(join(DATA, 'openb_pod_list_default.csv'), 'utf8').split('\n');
  writeFileSync(podsFile, `${lines.slice(0, 601).join('\n')}\n`);
  report = await runPoolReport({
    nodesFile: join(DATA, 'openb_node_list_gpu_node.csv'),
    podsFile,
    seeds: [42],
    arrivalSpeedup: 1,
    waitTargetSeconds: 1200,
    tolerance: 0.1,
    checkpointIntervalSeconds: 1800,
    preemption: false,
    bootSeconds: 300,
    autoscaleIntervalSeconds: 60,
    maxPendingJobs: 200,
    policies: { 'autoscaled-whole': POLICY, 'autoscaled-sharing': POLICY, 'autoscaled-hybrid': POLICY },
    hybridGpuModel: 'A100-80GB',
    drainable: 'all',
    hostPrices: false,
  });
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string) {
  return report.summary.find((s) => s.scenario === name)!;
}

describe('the pool report on the first 600 pods, seed 42', () => {
  it('replays the GPU pods with times and computes the ceiling of sharing on them', () => {
    expect(report.inputs).toMatchObject({ pods: 600, timedPods: 555, cpuOnlyLeftOut: 36 });
    expect(report.ceiling.fractionalGpuHours).toBeCloseTo(35_751.82, 1);
    expect(report.ceiling.wholeGpuHours).toBeCloseTo(42_457.56, 1);
    expect(report.ceiling.ceiling).toBeCloseTo(0.15794, 4);
    // The shares of jobs running at the same time occupy at least 37,372.04 GPU-h: 1 − that ÷ 42,457.56.
    expect(report.ceiling.packedGpuHours).toBeCloseTo(37_372.04, 1);
    expect(report.ceiling.packingBound).toBeCloseTo(0.11978, 4);
    expect(report.goals.sharingVsWhole.bound).toBe(report.ceiling.packingBound);
    expect(report.runs.map((r) => [r.scenario, r.jobs, r.unplaceable])).toEqual([
      ['fixed-whole', 519, 0],
      ['autoscaled-whole', 519, 0],
      ['autoscaled-sharing', 519, 0],
      ['autoscaled-hybrid', 519, 0],
    ]);
  });

  it('finds the smallest fixed pool that meets the target', () => {
    expect(report.settings.fixedPool.gpus).toBe(46);
    expect(report.settings.fixedPool.searched.map((e) => [e.gpus, e.waitP95Seconds])).toEqual([
      [40, 17_647],
      [43, 4422],
      [44, 3085],
      [45, 1333],
      [46, 484],
      [48, 0],
      [64, 0],
    ]);
  });

  it('pays what each pool paid, at the waits each got', () => {
    const figures = report.summary.map((s) => [
      s.scenario,
      Math.round(s.gpuHours.mean),
      Math.round(s.cost.mean),
      s.waitP95Seconds.mean,
      s.withinTarget,
    ]);
    expect(figures).toEqual([
      ['fixed-whole', 164_871, 371_032, 484, false],
      ['autoscaled-whole', 45_251, 24_672, 1223, true],
      ['autoscaled-sharing', 39_043, 20_322, 1222, true],
      ['autoscaled-hybrid', 44_715, 175_644, 1223, true],
    ]);
    expect(scenario('autoscaled-sharing').allocatedPct.mean).toBeCloseTo(91.59, 1);
    expect(scenario('autoscaled-whole').requestedPct.mean).toBeCloseTo(79.02, 1);
  });

  it('measures both goals', () => {
    expect(report.goals.sharingVsWhole.saving).toBeCloseTo(0.13718, 4);
    expect(report.goals.sharingVsWhole.met).toBe(false);
    expect(report.goals.hybridVsFixed.saving).toBeCloseTo(0.72879, 4);
    expect(report.goals.hybridVsFixed.met).toBe(true);
  });

  it('says where the GPU-hours of each autoscaled pool went; they add up to what it paid', () => {
    for (const run of report.runs) {
      if (run.scenario === 'fixed-whole') {
        expect(run.gpuHoursUse).toBeNull();
        continue;
      }
      const use = run.gpuHoursUse!;
      const paid = use.held + use.slivers + use.idleOnBusyNodes + use.emptyNodes + use.cordoned + use.booting;
      expect(paid).toBeCloseTo(run.gpuHours, 6);
      // Held GPUs are the reserved milli-GPU: the alloc % of the paid GPU-hours.
      expect((100 * use.held) / run.gpuHours).toBeCloseTo(run.allocatedPct, 6);
    }
    const whole = report.runs.find((r) => r.scenario === 'autoscaled-whole')!.gpuHoursUse!;
    expect(whole.slivers).toBe(0);
    const sharing = report.runs.find((r) => r.scenario === 'autoscaled-sharing')!.gpuHoursUse!;
    expect(Math.round(sharing.slivers)).toBe(1685);
  });

  it('keeps the series of every run over its makespan', () => {
    for (const run of report.runs) {
      expect(run.series.poolGpus).toHaveLength(400);
      expect(run.series.intervalSeconds * 400).toBeCloseTo(run.makespanSeconds, 6);
      expect(run.series.cumulativeCost.at(-1)).toBeCloseTo(run.cost, 6);
    }
  });
});

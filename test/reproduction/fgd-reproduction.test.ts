/**
 * Pins the reproduction of the FGD paper's results (docs/simulator.md E.7 and the authors'
 * DERIVED_headline_summary.csv) and the claim that gpushare's `default` policy beats FGD.
 * Runs every policy over seeds 42-51 on the shipped traces (about two minutes on two cores).
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPackingReplay, type ReplayInput } from '../../src/sim/packing-replay.js';
import { loadPublishedFigures } from '../../src/sim/published-results.js';
import { readNodeListFile, readPodListFile } from '../../src/sim/traces/alibaba-csv.js';
import type { RunResult } from '../../src/sim/simulation-types.js';

const SEEDS = [42, 43, 44, 45, 46, 47, 48, 49, 50, 51];
const dataFile = (name: string): string => fileURLToPath(new URL(`../../data/alibaba-gpu-v2023/${name}`, import.meta.url));
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

const inputs = new Map<string, ReplayInput>();
async function loadInput(trace: string): Promise<ReplayInput> {
  let input = inputs.get(trace);
  if (!input) {
    const nodes = await readNodeListFile(dataFile('openb_node_list_gpu_node.csv'));
    const pods = await readPodListFile(dataFile(`openb_pod_list_${trace}.csv`));
    input = { nodes, pods, inflation: 1.3 };
    inputs.set(trace, input);
  }
  return input;
}

/** Runs of each (input, policy), computed once: fgd serves two tests on the default trace. */
const memo = new WeakMap<ReplayInput, Map<string, RunResult[]>>();
function runSeeds(input: ReplayInput, policy: string): RunResult[] {
  const byPolicy = memo.get(input) ?? new Map<string, RunResult[]>();
  memo.set(input, byPolicy);
  let runs = byPolicy.get(policy);
  if (!runs) {
    runs = SEEDS.map((seed) => runPackingReplay(input, policy, seed));
    byPolicy.set(policy, runs);
  }
  return runs;
}

describe('reproduction of the FGD paper on the default trace, seeds 42-51', () => {
  let input: ReplayInput;
  const published = loadPublishedFigures(dataFile('openb_pod_list_default.csv'));
  beforeAll(async () => {
    input = await loadInput('default');
  });

  // Tolerances of the issue: fgd 0.3 points, best-fit 0.5, the other baselines 1.5.
  const cases: [string, number][] = [['fgd', 0.3], ['best-fit', 0.5], ['random', 1.5], ['dot-product', 1.5], ['gpu-clustering', 1.5], ['gpu-packing', 1.5]];
  it.each(cases)('%s: unallocated GPU %% at 100%% arrived is within %s points of the published mean', (policy, tolerance) => {
    const ours = mean(runSeeds(input, policy).map((r) => r.unallocatedPctAt100));
    const theirs = published.get(policy)!.unallocatedPctAt100.mean;
    expect(Math.abs(ours - theirs)).toBeLessThanOrEqual(tolerance);
  });

  it('fgd: fragment ratio R(x) is within 3 points of the check values', () => {
    const runs = runSeeds(input, 'fgd');
    // docs/simulator.md E.7, FGD row of R(x).
    const checks: [number, number][] = [[0, 13.92], [50, 17.86], [70, 23.17], [90, 49.97], [100, 99.07], [110, 99.07], [120, 99.10], [129, 99.10]];
    for (const [x, expected] of checks) {
      const ours = mean(runs.map((r) => r.fragmentRatioPct[x]!));
      expect(Math.abs(ours - expected), `R(${x}) = ${ours.toFixed(2)} vs ${expected}`).toBeLessThanOrEqual(3);
    }
  });
});

describe.each(['default', 'gpushare40', 'multigpu20'])('default policy beats FGD on %s, seeds 42-51', (trace) => {
  it('has a lower mean unallocated GPU % at 100% arrived than published FGD and than our fgd', async () => {
    const input = await loadInput(trace);
    const published = loadPublishedFigures(dataFile(`openb_pod_list_${trace}.csv`)).get('fgd')!.unallocatedPctAt100.mean;
    const fgd = mean(runSeeds(input, 'fgd').map((r) => r.unallocatedPctAt100));
    const ours = mean(runSeeds(input, 'default').map((r) => r.unallocatedPctAt100));
    expect(ours).toBeLessThan(published);
    expect(ours).toBeLessThan(fgd);
  });
});

/**
 * Pins the reproduction of the FGD paper's results (docs/simulator.md "Reproduction" and the authors'
 * DERIVED_headline_summary.csv) and the claim that gpushare's `default` policy beats FGD.
 * Runs every policy over seeds 42-51 on the shipped traces (about two minutes on two cores).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runPackingReplay, type ReplayInput } from '../../src/sim/packing-replay.js';
import { loadPublishedFigures } from '../../src/sim/published-results.js';
import { readNodeListFile, readPodListFile } from '../../src/sim/traces/alibaba-csv.js';
import type { RunResult } from '../../src/sim/simulation-types.js';

const SEEDS = [42, 43, 44, 45, 46, 47, 48, 49, 50, 51];
const dataFile = (name: string): string =>
  fileURLToPath(new URL(`../../data/alibaba-gpu-v2023/${name}`, import.meta.url));
/** Mean over the authors' seeds of one (trace, policy) curve in a shipped results CSV, x = 0..130. */
function authorsMeanCurve(file: string, workload: string, policy: string): number[] {
  const lines = readFileSync(fileURLToPath(new URL(`../../data/fgd-expected-results/${file}`, import.meta.url)), 'utf8')
    .trim()
    .split('\n');
  const header = lines[0]!.split(',');
  const first = header.indexOf('0');
  const rows = lines
    .slice(1)
    .map((l) => l.split(','))
    .filter((c) => c[0] === workload && c[1] === policy);
  return Array.from({ length: 131 }, (_, x) => rows.reduce((sum, c) => sum + Number(c[first + x]), 0) / rows.length);
}

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

/** One replay per (trace, policy, seed), computed once. */
const runs = new Map<string, RunResult>();
async function runOnce(trace: string, policy: string, seed: number): Promise<RunResult> {
  const key = `${trace}/${policy}/${seed}`;
  let run = runs.get(key);
  if (!run) {
    run = runPackingReplay(await loadInput(trace), policy, seed);
    runs.set(key, run);
  }
  return run;
}

async function runSeeds(trace: string, policy: string): Promise<RunResult[]> {
  const out: RunResult[] = [];
  for (const seed of SEEDS) out.push(await runOnce(trace, policy, seed));
  return out;
}

const BASELINES = ['fgd', 'best-fit', 'random', 'dot-product', 'gpu-clustering', 'gpu-packing'];
const REPLAYS: [string, string, number][] = [
  ...[...BASELINES, 'default'].flatMap((policy) =>
    SEEDS.map((seed): [string, string, number] => ['default', policy, seed]),
  ),
  ...['gpushare40', 'multigpu20'].flatMap((trace) =>
    ['fgd', 'default'].flatMap((policy) => SEEDS.map((seed): [string, string, number] => [trace, policy, seed])),
  ),
];

// One test per replay, so that no test blocks the worker for long (vitest's worker RPC gives up
// after 60 s); the checks below read these runs.
describe('replays', () => {
  it.each(REPLAYS)('%s trace, %s, seed %i', async (trace, policy, seed) => {
    const run = await runOnce(trace, policy, seed);
    expect(run.arrivals).toBeGreaterThan(0);
  });
});

describe('reproduction of the FGD paper on the default trace, seeds 42-51', () => {
  const published = loadPublishedFigures(dataFile('openb_pod_list_default.csv'));

  // Tolerances of the issue: fgd 0.3 points, best-fit 0.5, the other baselines 1.5.
  const cases: [string, number][] = [
    ['fgd', 0.3],
    ['best-fit', 0.5],
    ['random', 1.5],
    ['dot-product', 1.5],
    ['gpu-clustering', 1.5],
    ['gpu-packing', 1.5],
  ];
  it.each(cases)(
    '%s: unallocated GPU %% at 100%% arrived is within %s points of the published mean',
    async (policy, tolerance) => {
      const ours = mean((await runSeeds('default', policy)).map((r) => r.unallocatedPctAt100));
      const theirs = published.get(policy)!.unallocatedPctAt100.mean;
      expect(Math.abs(ours - theirs)).toBeLessThanOrEqual(tolerance);
    },
  );

  it('fgd: fragment ratio R(x) is within 3 points of the check values', async () => {
    const fgdRuns = await runSeeds('default', 'fgd');
    const authors = authorsMeanCurve('analysis_frag_ratio_discrete.csv', 'openb_pod_list_default', '06-FGD');
    const checks: [number, number][] = [0, 50, 70, 90, 100, 110, 120, 129].map((x) => [x, authors[x]!]);
    // Spot values of that curve (docs/simulator.md): R(90) ≈ 49.97, R(100) ≈ 99.07.
    expect(authors[90]).toBeCloseTo(49.97, 1);
    for (const [x, expected] of checks) {
      const ours = mean(fgdRuns.map((r) => r.fragmentRatioPct[x]!));
      expect(Math.abs(ours - expected), `R(${x}) = ${ours.toFixed(2)} vs ${expected}`).toBeLessThanOrEqual(3);
    }
  });
});

describe.each(['default', 'gpushare40', 'multigpu20'])('default policy beats FGD on %s, seeds 42-51', (trace) => {
  it('has a lower mean unallocated GPU % at 100% arrived than published FGD and than our fgd', async () => {
    const published = loadPublishedFigures(dataFile(`openb_pod_list_${trace}.csv`)).get('fgd')!.unallocatedPctAt100
      .mean;
    const fgd = mean((await runSeeds(trace, 'fgd')).map((r) => r.unallocatedPctAt100));
    const ours = mean((await runSeeds(trace, 'default')).map((r) => r.unallocatedPctAt100));
    expect(ours).toBeLessThan(published);
    expect(ours).toBeLessThan(fgd);
  });
});

/**
 * One measurement of the packing replay by a given build of gpushare, in a process of its own:
 * `node dist/bench/replay-probe.js DIST MODE`, where DIST is the `dist/` of the build to measure
 * (this one, or a baseline's: see baseline.ts) and MODE is `policies` (one replay per policy, seed
 * 42) or `grid` (the 7 policies × seeds 42-51 through runGrid on two worker threads). Prints one
 * line of JSON: `{ policies: { name: seconds } }` or `{ gridSeconds }`. Only the sim modules'
 * long-standing entry points are used, so older builds answer too.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';

const DATA = fileURLToPath(new URL('../../data/alibaba-gpu-v2023/', import.meta.url));
const NODES_FILE = `${DATA}openb_node_list_gpu_node.csv`;
const PODS_FILE = `${DATA}openb_pod_list_default.csv`;
const POLICIES = ['random', 'dot-product', 'gpu-clustering', 'gpu-packing', 'best-fit', 'fgd', 'default'];
const SEEDS = [42, 43, 44, 45, 46, 47, 48, 49, 50, 51];

interface SimModules {
  runPackingReplay(input: unknown, policy: string, seed: number): { wallSeconds: number };
  runGrid(options: unknown): Promise<unknown>;
  readNodeListFile(path: string): Promise<unknown[]>;
  readPodListFile(path: string): Promise<unknown[]>;
}

async function load(dist: string): Promise<SimModules> {
  const module = async (path: string): Promise<Record<string, unknown>> =>
    (await import(pathToFileURL(`${dist}/${path}`).href)) as Record<string, unknown>;
  const replay = await module('sim/packing-replay.js');
  const grid = await module('sim/run-grid.js');
  const csv = await module('sim/traces/alibaba-csv.js');
  return { ...replay, ...grid, ...csv } as unknown as SimModules;
}

async function main(): Promise<void> {
  const [dist, mode] = process.argv.slice(2);
  if (!dist || (mode !== 'policies' && mode !== 'grid')) throw new Error('usage: replay-probe.js DIST policies|grid');
  const sim = await load(dist);
  if (mode === 'grid') {
    const started = performance.now();
    await sim.runGrid({
      nodesFile: NODES_FILE,
      podsFile: PODS_FILE,
      policies: POLICIES,
      seeds: SEEDS,
      inflation: 1.3,
      workers: 2,
    });
    process.stdout.write(`${JSON.stringify({ gridSeconds: (performance.now() - started) / 1000 })}\n`);
    return;
  }
  const input = {
    nodes: await sim.readNodeListFile(NODES_FILE),
    pods: await sim.readPodListFile(PODS_FILE),
    inflation: 1.3,
  };
  const policies: Record<string, number> = {};
  for (const policy of POLICIES) policies[policy] = sim.runPackingReplay(input, policy, 42).wallSeconds;
  process.stdout.write(`${JSON.stringify({ policies })}\n`);
}

await main();

/**
 * The packing bound on the shipped default trace (docs/packing-bound.md): its value for seed 42 at
 * 100% and 130% arrived, and that no policy's replay of the same arrivals goes below it.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHighsSolver } from '../../src/adapters/lp-solver/highs-solver.js';
import { POLICY_NAMES } from '../../src/core/index.js';
import type { LinearProgramSolver } from '../../src/lib/linear-program.js';
import { replayUnallocatedBound, type LevelBound } from '../../src/sim/bound/unallocated-bound.js';
import { runPackingReplay, type ReplayInput } from '../../src/sim/packing-replay.js';
import { readNodeListFile, readPodListFile } from '../../src/sim/traces/alibaba-csv.js';

const dataFile = (name: string): string =>
  fileURLToPath(new URL(`../../data/alibaba-gpu-v2023/${name}`, import.meta.url));

let solver: LinearProgramSolver;
let input: ReplayInput;
let bounds: (LevelBound | null)[];
beforeAll(async () => {
  solver = await loadHighsSolver();
  input = {
    nodes: await readNodeListFile(dataFile('openb_node_list_gpu_node.csv')),
    pods: await readPodListFile(dataFile('openb_pod_list_default.csv')),
    inflation: 1.3,
  };
  bounds = replayUnallocatedBound(input.nodes, input.pods, input.inflation, 42, [100, 130], solver);
});

describe('packing bound on the default trace, seed 42', () => {
  it('is 3.04% unallocated at 100% arrived and 0.11% at 130%', () => {
    expect(bounds.map((b) => b?.unallocatedPctBound)).toEqual([3.04, 0.11]);
    expect(bounds.map((b) => b?.arrivals)).toEqual([8342, 10756]);
  });

  it.each(POLICY_NAMES)('%s leaves at least the bound unallocated at 100% and 130%', (policy) => {
    const run = runPackingReplay(input, policy, 42);
    expect(run.unallocatedPctAt100).toBeGreaterThanOrEqual(bounds[0]!.unallocatedPctBound);
    expect(run.unallocatedPctAt130).toBeGreaterThanOrEqual(bounds[1]!.unallocatedPctBound);
  });
});

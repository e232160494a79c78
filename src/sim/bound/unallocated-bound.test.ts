import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHighsSolver } from '../../adapters/lp-solver/highs-solver.js';
import { POLICY_NAMES } from '../../core/index.js';
import type { LinearProgramSolver } from '../../lib/linear-program.js';
import { runPackingReplay } from '../packing-replay.js';
import type { TraceNode, TracePod } from '../traces/trace-types.js';
import { nodeTypesOf, prefixLengthsAtLevels, replayUnallocatedBound, shapesOf } from './unallocated-bound.js';

let solver: LinearProgramSolver;
beforeAll(async () => {
  solver = await loadHighsSolver();
});

function node(name: string, gpuModel: string, gpuCount: number, cpuMilli: number): TraceNode {
  return { name, cpuMilli, hostMemoryMiB: 1 << 20, gpuCount, gpuModel };
}

function tracePod(name: string, gpuCount: number, gpuMilli: number, cpuMilli: number, models: string[] = []): TracePod {
  return {
    name,
    cpuMilli,
    hostMemoryMiB: 1024,
    gpuCount,
    gpuMilli: gpuCount === 0 ? 0 : gpuMilli,
    allowedGpuModels: models,
    gpuSpec: models.join('|'),
    qos: null,
    creationTimeSeconds: null,
    deletionTimeSeconds: null,
  };
}

describe('nodeTypesOf and shapesOf', () => {
  it('groups alike nodes and GPU pods, leaving out CPU-only nodes and pods', () => {
    const nodes = [node('a', 'T4', 2, 8000), node('b', 'T4', 2, 8000), node('c', 'P100', 2, 8000)];
    expect(nodeTypesOf([...nodes, { ...node('d', 'T4', 0, 8000), gpuModel: null }])).toEqual([
      { gpuModel: 'T4', gpuCount: 2, cpuMilli: 8000, nodes: 2 },
      { gpuModel: 'P100', gpuCount: 2, cpuMilli: 8000, nodes: 1 },
    ]);
    const pods = [
      tracePod('p1', 1, 500, 1000, ['T4', 'P100']),
      tracePod('p2', 0, 0, 1000),
      tracePod('p3', 1, 500, 1000, ['P100', 'T4']),
    ];
    expect(shapesOf(pods)).toEqual([
      { gpuCount: 1, gpuMilli: 500, cpuMilli: 1000, allowedGpuModels: ['P100', 'T4'], pods: 2 },
    ]);
  });
});

describe('prefixLengthsAtLevels', () => {
  it("takes the last arrival of the level's bin, else of the next bin", () => {
    // 10 GPUs: each whole-GPU pod is 10% of capacity; a 50-milli pod 0.5%.
    const arrivals = [tracePod('a', 1, 1000, 0), tracePod('b', 1, 50, 0), tracePod('c', 1, 1000, 0)];
    // Arrived: 10%, 10.5% (rounds half to even: 10), 20.5% (20).
    expect(prefixLengthsAtLevels(arrivals, 10, [10, 15, 19, 20, 22])).toEqual([2, null, 3, 3, null]);
  });
});

describe('replayUnallocatedBound', () => {
  it('no policy allocates more than the bound at any level (random small traces, every policy)', () => {
    const levels = [50, 70, 90, 100, 110, 120, 130];
    let compared = 0;
    const nodeArb = fc.record({
      model: fc.constantFrom('T4', 'P100'),
      gpuCount: fc.constantFrom(1, 2, 4),
      cpuMilli: fc.integer({ min: 4, max: 24 }).map((c) => c * 1000),
    });
    const podArb = fc.record({
      gpuCount: fc.constantFrom(0, 1, 1, 1, 2),
      gpuMilli: fc.constantFrom(200, 350, 500, 650, 810, 1000),
      cpuMilli: fc.integer({ min: 1, max: 8 }).map((c) => c * 1000),
      models: fc.constantFrom([], [], ['T4'], ['P100']),
    });
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 2, maxLength: 4 }),
        fc.array(podArb, { minLength: 3, maxLength: 10 }),
        fc.integer({ min: 1, max: 1000 }),
        (nodeSpecs, podSpecs, seed) => {
          const nodes = nodeSpecs.map((n, i) => node(`n${i}`, n.model, n.gpuCount, n.cpuMilli));
          const pods = podSpecs.map((p, i) =>
            tracePod(
              `p${String(i).padStart(2, '0')}`,
              p.gpuCount,
              p.gpuCount > 1 ? 1000 : p.gpuMilli,
              p.cpuMilli,
              p.models,
            ),
          );
          const bounds = replayUnallocatedBound(nodes, pods, 1.3, seed, levels, solver, { gapGpuMilli: 0 });
          for (const policy of POLICY_NAMES) {
            const run = runPackingReplay({ nodes, pods, inflation: 1.3 }, policy, seed);
            levels.forEach((x, i) => {
              const allocation = run.allocationPct[x];
              const b = bounds[i];
              if (allocation === null || allocation === undefined || b === null || b === undefined) return;
              expect(allocation).toBeLessThanOrEqual(b.maxAllocationPct);
              expect(100 - allocation).toBeGreaterThanOrEqual(b.unallocatedPctBound - 1e-9);
              compared++;
            });
          }
        },
      ),
      { numRuns: 40, seed: 30 },
    );
    // The comparisons ran (40 traces × every policy × the levels whose bins have samples).
    expect(compared).toBe(413);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { blendedFragmentationMilli } from './blended-fragmentation.js';
import { nodeCapacityFragmentationMilli } from './capacity-fragmentation.js';
import { nodeFragmentationMilli } from './node-fragmentation.js';
import { buildTargetWorkload, type TaskShape } from './target-workload.js';

const MODELS = ['V100M32', 'T4', 'P100', 'G2'];

const taskShape: fc.Arbitrary<TaskShape> = fc.oneof(
  fc.record({
    cpuMilli: fc.integer({ min: 0, max: 64_000 }),
    gpuMilli: fc.constant(0),
    gpuCount: fc.constant(0),
    allowedGpuModels: fc.constant([]),
  }),
  fc.record({
    cpuMilli: fc.integer({ min: 0, max: 64_000 }),
    gpuMilli: fc.integer({ min: 1, max: 1000 }),
    gpuCount: fc.constant(1),
    allowedGpuModels: fc.subarray(MODELS, { maxLength: 3 }),
  }),
  fc.record({
    cpuMilli: fc.integer({ min: 0, max: 64_000 }),
    gpuMilli: fc.constant(1000),
    gpuCount: fc.integer({ min: 1, max: 8 }),
    allowedGpuModels: fc.subarray(MODELS, { maxLength: 3 }),
  }),
);

describe('blendedFragmentationMilli: (1 − α)·F_FGD + α·F_capacity in one pass', () => {
  it('equals the two measures blended, bit for bit, on random nodes and workloads', () => {
    fc.assert(
      fc.property(
        fc.array(taskShape, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 96_000 }),
        fc.constantFrom<string | null>(null, ...MODELS),
        fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 8 }),
        fc.constantFrom(0, 0.05, 0.1, 0.3, 1),
        (tasks, cpu, model, gpus, alpha) => {
          const workload = buildTargetWorkload(tasks);
          const expected =
            alpha === 0
              ? nodeFragmentationMilli(cpu, model, gpus, workload)
              : (1 - alpha) * nodeFragmentationMilli(cpu, model, gpus, workload) +
                alpha * nodeCapacityFragmentationMilli(cpu, model, gpus, workload);
          expect(Object.is(blendedFragmentationMilli(cpu, model, gpus, workload, alpha), expected)).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 30 },
    );
  });

  it('blends a worked example: 1 idle GPU slice of 190 milli for an 810-milli type', () => {
    // F_FGD: the 810-milli type fits on GPU 0 (1000 free), so GPU 1's 190 is fragment: 190.
    // F_capacity: 1 copy uses 810 of 1190 idle: 380. Blend at α = 0.1: 0.9·190 + 0.1·380 = 209.
    const workload = buildTargetWorkload([{ cpuMilli: 4000, gpuMilli: 810, gpuCount: 1, allowedGpuModels: [] }]);
    expect(blendedFragmentationMilli(64_000, 'V100M32', [1000, 190], workload, 0.1)).toBeCloseTo(209, 9);
    expect(blendedFragmentationMilli(64_000, 'V100M32', [1000, 190], workload, 0)).toBe(190);
    expect(blendedFragmentationMilli(64_000, 'V100M32', [0, 0], workload, 0.1)).toBe(0);
  });
});

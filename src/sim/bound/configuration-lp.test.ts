import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHighsSolver } from '../../adapters/lp-solver/highs-solver.js';
import type { LinearProgramSolver } from '../../lib/linear-program.js';
import { maxAllocatableGpuMilli } from './configuration-lp.js';
import { asBoundInput, exactMaxAllocatedGpuMilli, type SmallNode, type SmallPod } from './testing/exact-packing.js';

let solver: LinearProgramSolver;
beforeAll(async () => {
  solver = await loadHighsSolver();
});

function bound(nodes: readonly SmallNode[], pods: readonly SmallPod[]): number {
  const { types, shapes } = asBoundInput(nodes, pods);
  return maxAllocatableGpuMilli(types, shapes, solver, { gapGpuMilli: 0 }).maxAllocatedGpuMilli;
}

const t4 = (gpuCount: number, cpuMilli: number): SmallNode => ({ gpuModel: 'T4', gpuCount, cpuMilli });
const pod = (gpuCount: number, gpuMilli: number, cpuMilli: number, allowedGpuModels: string[] = []): SmallPod => ({
  gpuCount,
  gpuMilli,
  cpuMilli,
  allowedGpuModels,
});

describe('maxAllocatableGpuMilli against the exact integer program', () => {
  it('keeps each GPU to 1000 milli: three 650-milli pods on two GPUs allocate 1300, not 1950', () => {
    const nodes = [t4(2, 8000)];
    const pods = [pod(1, 650, 1000), pod(1, 650, 1000), pod(1, 650, 1000)];
    expect(exactMaxAllocatedGpuMilli(nodes, pods, solver)).toBe(1300);
    expect(Math.round(bound(nodes, pods))).toBe(1300);
  });

  it("keeps the node's CPU: two whole-GPU pods of 12 cores on a 16-core two-GPU node allocate 1000", () => {
    const nodes = [t4(2, 16000)];
    const pods = [pod(1, 1000, 12000), pod(1, 1000, 12000)];
    expect(exactMaxAllocatedGpuMilli(nodes, pods, solver)).toBe(1000);
    expect(Math.round(bound(nodes, pods))).toBe(1000);
  });

  it('keeps GPU-model constraints: two T4-only pods and one T4 GPU allocate 1000', () => {
    const nodes = [t4(1, 8000), { gpuModel: 'P100', gpuCount: 1, cpuMilli: 8000 }];
    const pods = [pod(1, 1000, 1000, ['T4']), pod(1, 1000, 1000, ['T4'])];
    expect(exactMaxAllocatedGpuMilli(nodes, pods, solver)).toBe(1000);
    expect(Math.round(bound(nodes, pods))).toBe(1000);
  });

  it('keeps multi-GPU pods whole: three 3-GPU pods on two 4-GPU nodes allocate 6000 of 8000', () => {
    const nodes = [t4(4, 32000), t4(4, 32000)];
    const pods = [pod(3, 1000, 1000), pod(3, 1000, 1000), pod(3, 1000, 1000)];
    expect(exactMaxAllocatedGpuMilli(nodes, pods, solver)).toBe(6000);
    expect(Math.round(bound(nodes, pods))).toBe(6000);
  });

  it('is never below the exact optimum and never above the request or the capacity (random small instances)', () => {
    const nodeArb = fc.record({
      gpuModel: fc.constantFrom('T4', 'P100'),
      gpuCount: fc.integer({ min: 1, max: 4 }),
      cpuMilli: fc.integer({ min: 2, max: 16 }).map((c) => c * 1000),
    });
    const podArb = fc
      .record({
        gpuCount: fc.constantFrom(1, 1, 1, 2, 4),
        gpuMilli: fc.constantFrom(120, 250, 330, 500, 650, 810, 1000),
        cpuMilli: fc.integer({ min: 0, max: 12 }).map((c) => c * 1000 + 500),
        allowedGpuModels: fc.constantFrom([], [], ['T4'], ['P100'], ['P100', 'T4']),
      })
      .map((p) => (p.gpuCount > 1 ? { ...p, gpuMilli: 1000 } : p));
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 3 }),
        fc.array(podArb, { minLength: 1, maxLength: 7 }),
        (nodes, pods) => {
          const exact = exactMaxAllocatedGpuMilli(nodes, pods, solver);
          const relaxed = bound(nodes, pods);
          expect(relaxed).toBeGreaterThanOrEqual(exact - 1e-6);
          expect(relaxed).toBeLessThanOrEqual(pods.reduce((s, p) => s + p.gpuCount * p.gpuMilli, 0) + 1e-6);
          expect(relaxed).toBeLessThanOrEqual(nodes.reduce((s, n) => s + n.gpuCount * 1000, 0) + 1e-6);
        },
      ),
      { numRuns: 150, seed: 30 },
    );
  });
});

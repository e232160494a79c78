import { describe, expect, it } from 'vitest';
import type { BoundNodeType, BoundShape } from './bound-types.js';
import { bestNodeFilling } from './node-filling.js';

const node = (gpuCount: number, cpuMilli: number): BoundNodeType => ({ gpuModel: 'G2', gpuCount, cpuMilli, nodes: 1 });
const shape = (gpuCount: number, gpuMilli: number, cpuMilli: number, allowedGpuModels: string[] = []): BoundShape => ({
  gpuCount,
  gpuMilli,
  cpuMilli,
  allowedGpuModels,
  pods: 10,
});
const gpuValues = (shapes: readonly BoundShape[]): number[] => shapes.map((s) => s.gpuCount * s.gpuMilli);

describe('bestNodeFilling', () => {
  it('fills each GPU on its own: an 810 and a 160 on each of two GPUs', () => {
    const shapes = [shape(1, 810, 1000), shape(1, 160, 1000)];
    const filling = bestNodeFilling(node(2, 8000), shapes, gpuValues(shapes));
    expect(filling.value).toBe(1940);
    expect([...filling.pods].sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });

  it("stops at the node's CPU: three pods of one core on a 3-core node", () => {
    const shapes = [shape(1, 810, 1000), shape(1, 160, 1000)];
    expect(bestNodeFilling(node(2, 3000), shapes, gpuValues(shapes)).value).toBe(1780);
  });

  it('gives a multi-GPU pod whole GPUs and leaves out shapes of no value or another model', () => {
    const shapes = [shape(4, 1000, 8000), shape(1, 1000, 1000, ['T4']), shape(1, 500, 1000)];
    const filling = bestNodeFilling(node(8, 96000), shapes, [4000, 1000, 0]);
    expect(filling.value).toBe(8000);
    expect([...filling.pods]).toEqual([[0, 2]]);
  });

  it('splits a multi-GPU pod of less than whole GPUs into per-GPU pieces', () => {
    const shapes = [shape(2, 600, 2000)];
    const filling = bestNodeFilling(node(3, 32000), shapes, gpuValues(shapes));
    // Three 600-milli pieces, one per GPU: 1.5 pods (the relaxation; an actual node holds 1).
    expect(filling.value).toBe(1800);
    expect([...filling.pods]).toEqual([[0, 1.5]]);
  });
});

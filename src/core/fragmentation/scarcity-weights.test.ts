import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createNodeStates, type NodeSpec } from '../framework/node-state.js';
import { gpuCountByModel, weightByScarcity } from './scarcity-weights.js';
import { buildTargetWorkload, type TaskShape } from './target-workload.js';

const spec = (name: string, gpuCount: number, gpuModel: string | null): NodeSpec => ({
  name,
  cpuMilli: 64000,
  hostMemoryMiB: 262144,
  gpuCount,
  gpuModel,
  gpuMemoryMiB: null,
});
const shape = (gpuMilli: number, allowedGpuModels: readonly string[] = []): TaskShape => ({
  cpuMilli: 4000,
  gpuMilli,
  gpuCount: 1,
  allowedGpuModels,
});

describe('gpuCountByModel', () => {
  it('sums GPUs per model and leaves out nodes without GPUs', () => {
    const nodes = createNodeStates([spec('a', 8, 'G2'), spec('b', 2, 'T4'), spec('c', 8, 'G2'), spec('d', 0, null)]);
    expect([...gpuCountByModel(nodes)]).toEqual([
      ['G2', 16],
      ['T4', 2],
    ]);
  });
});

describe('weightByScarcity: a type allowed on models A weighs p · C / C_A', () => {
  const gpus = new Map([
    ['G2', 30],
    ['T4', 10],
  ]);

  it('T4-only (10 of 40 GPUs) counts 4×, G2-only 4/3×, an unconstrained type 1×', () => {
    const m = buildTargetWorkload([shape(1000), shape(1000), shape(500, ['T4']), shape(250, ['G2'])]);
    const w = weightByScarcity(m, gpus);
    const weightOf = (milli: number): number => w.types.find((t) => t.gpuMilli === milli)!.weight;
    expect(weightOf(1000)).toBe(0.5);
    expect(weightOf(500)).toBe(1);
    expect(weightOf(250)).toBeCloseTo(1 / 3, 12);
    expect(w.weightSum).toBeCloseTo(0.5 + 1 + 1 / 3, 12);
    expect(w.sourceTaskCount).toBe(4);
  });

  it('a set covering every model, or only models the cluster lacks, keeps its weight', () => {
    const m = buildTargetWorkload([shape(1000, ['G2', 'T4']), shape(500, ['A100'])]);
    expect(weightByScarcity(m, gpus)).toBe(m);
  });

  it('returns the very same workload when no type is constrained (unconstrained traces score as before)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 30 }), (millis) => {
        const m = buildTargetWorkload(millis.map((d) => shape(d)));
        expect(weightByScarcity(m, gpus)).toBe(m);
      }),
    );
  });

  it('never lowers a weight, and raises every constrained type whose models hold fewer than all GPUs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.subarray(['G2', 'T4'])), {
          minLength: 1,
          maxLength: 30,
        }),
        (tasks) => {
          const m = buildTargetWorkload(tasks.map(([d, models]) => shape(d, models)));
          const w = weightByScarcity(m, gpus);
          m.types.forEach((t, i) => {
            const partial = t.allowedGpuModels.length === 1;
            if (partial) expect(w.types[i]!.weight).toBeGreaterThan(t.weight);
            else expect(w.types[i]!.weight).toBe(t.weight);
          });
        },
      ),
    );
  });
});

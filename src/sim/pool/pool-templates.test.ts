import { describe, expect, it } from 'vitest';
import type { TraceNode } from '../traces/trace-types.js';
import { commonShapes, poolTemplates } from './pool-templates.js';

function node(
  name: string,
  gpuModel: string | null,
  gpuCount: number,
  cpuMilli: number,
  hostMemoryMiB: number,
): TraceNode {
  return { name, gpuModel, gpuCount, cpuMilli, hostMemoryMiB };
}

const LIST: TraceNode[] = [
  node('a', 'P100', 2, 16_000, 122_880),
  node('b', 'P100', 2, 16_000, 122_880),
  node('c', 'P100', 2, 64_000, 262_144),
  node('d', 'G2', 8, 96_000, 393_216),
  node('e', 'A10', 1, 128_000, 1_048_576),
  node('f', null, 0, 32_000, 65_536),
  node('g', 'P100', 1, 8_000, 61_440),
];

describe('node templates from a trace node list', () => {
  it('takes the most common shape of each priced model, models with most GPUs first', () => {
    expect(commonShapes(LIST)).toEqual([
      {
        model: 'G2',
        gpuCount: 8,
        cpuMilli: 96_000,
        hostMemoryMiB: 393_216,
        nodesOfShape: 1,
        nodesOfModel: 1,
        gpusOfModel: 8,
      },
      {
        model: 'P100',
        gpuCount: 2,
        cpuMilli: 16_000,
        hostMemoryMiB: 122_880,
        nodesOfShape: 2,
        nodesOfModel: 4,
        gpusOfModel: 7,
      },
    ]);
  });

  it('names, prices and bounds the templates; the hybrid ones get the MIG-capable model', () => {
    const shapes = commonShapes(LIST);
    const trace = poolTemplates(shapes, { bootSeconds: 300, maxCount: 50, gpuModel: null, hostPrices: false });
    expect(trace.map((t) => [t.name, t.gpuModel, t.gpuCount, t.migCapable, t.pricePerHour])).toEqual([
      ['G2x8', 'G2', 8, false, 19.84],
      ['P100x2', 'P100', 2, false, 2.92],
    ]);
    expect(trace[1]).toMatchObject({
      hostCpuMilli: 16_000,
      hostMemoryMiB: 122_880,
      minCount: 0,
      maxCount: 50,
      bootSeconds: 300,
    });
    const hybrid = poolTemplates(shapes, { bootSeconds: 300, maxCount: 50, gpuModel: 'A100-80GB', hostPrices: false });
    expect(hybrid.map((t) => [t.name, t.gpuModel, t.migCapable])).toEqual([
      ['A100-80GBx8-G2', 'A100-80GB', true],
      ['A100-80GBx2-P100', 'A100-80GB', true],
    ]);
    expect(hybrid[1]!.pricePerHour).toBeCloseTo(2 * 3.92808, 10);
  });
});

/**
 * The node templates of the pool replay (docs/simulator.md "Pool replay"): for each GPU model of
 * the trace's node list that the price list prices, the most common node shape of that model (GPU
 * count, host CPU and memory), priced by pool-prices.ts; and the share of the trace's GPUs each
 * template's model has, which the fixed pool follows.
 */
import { findGpuModel, type NodeTemplate } from '../../core/index.js';
import type { TraceNode } from '../traces/trace-types.js';
import { GPU_PER_HOUR, nodePricePerHour } from './pool-prices.js';

/** The most common shape of one GPU model in a node list. */
export interface ModelShape {
  readonly model: string;
  readonly gpuCount: number;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  /** Rows of the list with exactly this shape. */
  readonly nodesOfShape: number;
  /** Rows of the list with this model. */
  readonly nodesOfModel: number;
  /** GPUs of the list of this model. */
  readonly gpusOfModel: number;
}

/**
 * The most common shape (GPUs, CPU, memory) of each GPU model of `nodes` that has a price, in order
 * of GPUs of the model (most first, then by name). Ties between shapes go to more GPUs, then more
 * CPU, then more memory. Models without a price (the trace's two A10 nodes) are left out.
 */
export function commonShapes(nodes: readonly TraceNode[]): ModelShape[] {
  const byModel = new Map<string, { shapes: Map<string, number>; nodes: number; gpus: number }>();
  for (const n of nodes) {
    if (n.gpuModel === null || n.gpuCount === 0 || GPU_PER_HOUR[n.gpuModel] === undefined) continue;
    const entry = byModel.get(n.gpuModel) ?? { shapes: new Map<string, number>(), nodes: 0, gpus: 0 };
    const key = `${n.gpuCount}/${n.cpuMilli}/${n.hostMemoryMiB}`;
    entry.shapes.set(key, (entry.shapes.get(key) ?? 0) + 1);
    entry.nodes++;
    entry.gpus += n.gpuCount;
    byModel.set(n.gpuModel, entry);
  }
  const shapes: ModelShape[] = [];
  for (const [model, entry] of byModel) {
    const best = [...entry.shapes.entries()]
      .map(([key, count]) => {
        const [gpuCount, cpuMilli, hostMemoryMiB] = key.split('/').map(Number) as [number, number, number];
        return { gpuCount, cpuMilli, hostMemoryMiB, count };
      })
      .sort(
        (a, b) =>
          b.count - a.count || b.gpuCount - a.gpuCount || b.cpuMilli - a.cpuMilli || b.hostMemoryMiB - a.hostMemoryMiB,
      )[0]!;
    shapes.push({
      model,
      gpuCount: best.gpuCount,
      cpuMilli: best.cpuMilli,
      hostMemoryMiB: best.hostMemoryMiB,
      nodesOfShape: best.count,
      nodesOfModel: entry.nodes,
      gpusOfModel: entry.gpus,
    });
  }
  return shapes.sort((a, b) => b.gpusOfModel - a.gpusOfModel || (a.model < b.model ? -1 : 1));
}

/** How templates are made. */
export interface TemplateOptions {
  /** Seconds from the request until a node takes jobs. */
  readonly bootSeconds: number;
  /** Nodes of one template at most. */
  readonly maxCount: number;
  /**
   * Give every GPU this catalog model instead of the trace's (the hybrid scenario: `A100-80GB`, MIG
   * allowed), keeping each shape's GPU count, CPU and memory; null for the trace's models.
   */
  readonly gpuModel: string | null;
  /** Price the host's vCPUs and memory too (pool-prices.ts). */
  readonly hostPrices: boolean;
}

/**
 * One template per shape: named `<model>x<GPUs>` (with `gpuModel`, `<model>x<GPUs>-<trace model>`),
 * minimum count 0, priced by its GPUs (and with `hostPrices` its CPU and memory).
 */
export function poolTemplates(shapes: readonly ModelShape[], options: TemplateOptions): NodeTemplate[] {
  return shapes.map((s) => {
    const model = options.gpuModel ?? s.model;
    const migCapable = options.gpuModel !== null && (findGpuModel(model)?.migCapable ?? false);
    return {
      name: options.gpuModel === null ? `${model}x${s.gpuCount}` : `${model}x${s.gpuCount}-${s.model}`,
      gpuModel: model,
      gpuCount: s.gpuCount,
      migCapable,
      hostCpuMilli: s.cpuMilli,
      hostMemoryMiB: s.hostMemoryMiB,
      pricePerHour: nodePricePerHour(model, s.gpuCount, s.cpuMilli, s.hostMemoryMiB, options.hostPrices),
      minCount: 0,
      maxCount: options.maxCount,
      bootSeconds: options.bootSeconds,
    };
  });
}

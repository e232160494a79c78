/**
 * The fixed pool of the pool report (docs/simulator.md "Pool replay", scenario 0): a cluster of
 * exactly N GPUs made of the templates' node shapes in the proportions of the trace's fleet, and the
 * search for the smallest N that meets the p95-wait target.
 */
import type { NodeTemplate } from '../../core/index.js';
import { nodePricePerHour } from './pool-prices.js';

/** One node of a fixed pool. */
export interface FixedNode {
  readonly template: NodeTemplate;
  readonly gpuCount: number;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly pricePerHour: number;
}

/**
 * A pool of exactly `gpus` GPUs: first one node of every template (so that every job that fits a
 * template fits the pool), then one node at a time of the template whose GPUs are furthest below
 * its share (the smallest GPUs/share; ties to the earlier template), until the pool has `gpus`
 * GPUs. The last node is trimmed to the GPUs still missing, its CPU and memory scaled down by the
 * same fraction (rounded down), as `--gpus N` trims a sampled node; its price follows its shape.
 * @param shares each template's share of the trace's GPUs (> 0, any scale)
 * @param hostPrices price the trimmed node's host too (as its template is priced)
 * @throws RangeError when `gpus` is below one node of every template, or the shares do not match
 */
export function fixedPoolNodes(
  templates: readonly NodeTemplate[],
  shares: readonly number[],
  gpus: number,
  hostPrices: boolean,
): FixedNode[] {
  if (shares.length !== templates.length || shares.some((s) => !(s > 0)))
    throw new RangeError('fixedPoolNodes: one share > 0 per template');
  const base = templates.reduce((sum, t) => sum + t.gpuCount, 0);
  if (!Number.isSafeInteger(gpus) || gpus < base)
    throw new RangeError(`a fixed pool needs at least ${base} GPUs (one node of each template), got ${gpus}`);
  const whole = (t: NodeTemplate): FixedNode => ({
    template: t,
    gpuCount: t.gpuCount,
    cpuMilli: t.hostCpuMilli,
    hostMemoryMiB: t.hostMemoryMiB,
    pricePerHour: t.pricePerHour,
  });
  const nodes = templates.map(whole);
  const held = templates.map((t) => t.gpuCount);
  let total = base;
  while (total < gpus) {
    let pick = 0;
    for (let i = 1; i < templates.length; i++) if (held[i]! / shares[i]! < held[pick]! / shares[pick]!) pick = i;
    const t = templates[pick]!;
    const missing = gpus - total;
    if (t.gpuCount <= missing) {
      nodes.push(whole(t));
    } else {
      const share = missing / t.gpuCount;
      const cpuMilli = Math.max(1, Math.floor(t.hostCpuMilli * share));
      const hostMemoryMiB = Math.floor(t.hostMemoryMiB * share);
      nodes.push({
        template: t,
        gpuCount: missing,
        cpuMilli,
        hostMemoryMiB,
        pricePerHour: nodePricePerHour(t.gpuModel, missing, cpuMilli, hostMemoryMiB, hostPrices),
      });
    }
    const added = Math.min(t.gpuCount, missing);
    held[pick]! += added;
    total += added;
  }
  return nodes;
}

/**
 * The smallest n in [lo, hi] for which `meets(n)` holds, by bisection, assuming that it holds from
 * some n on (a larger pool waits less); null when it does not hold at `hi`. Each n is evaluated at
 * most once.
 * @returns the n found and every evaluation made, in order
 */
export function smallestMeeting(
  lo: number,
  hi: number,
  meets: (n: number) => boolean,
): { readonly n: number | null; readonly evaluated: readonly { readonly n: number; readonly meets: boolean }[] } {
  const evaluated: { n: number; meets: boolean }[] = [];
  const test = (n: number): boolean => {
    const ok = meets(n);
    evaluated.push({ n, meets: ok });
    return ok;
  };
  if (!(lo <= hi) || !test(hi)) return { n: null, evaluated };
  let low = lo;
  let high = hi;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (test(mid)) high = mid;
    else low = mid + 1;
  }
  return { n: high, evaluated };
}

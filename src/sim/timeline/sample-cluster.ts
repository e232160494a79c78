/**
 * `--gpus N`: a cluster of exactly N GPUs whose node shapes are drawn from a node list
 * (docs/simulator.md "Timeline replay").
 */
import type { Rng } from '../../core/index.js';
import type { TraceNode } from '../traces/trace-types.js';

/**
 * Samples a cluster with exactly `gpus` GPUs. Each draw picks one of the list's GPU nodes (rows
 * with `gpu` > 0) uniformly, so every node shape comes up in proportion to how often it appears
 * in the list; the copy is appended until the cluster has `gpus` GPUs. When a draw would
 * overshoot, that last node is trimmed to the GPUs still missing and its CPU and host memory are
 * scaled down by the same fraction (rounded down; CPU at least 1 milli-core). CPU-only rows are
 * never drawn. Copies are named `s<index>-<original name>`, e.g. `s003-openb-node-0042`.
 *
 * Deterministic given `rng`'s state; consumes one `intn` draw per node.
 * @param nodes the node list (e.g. the shipped openb_node_list_gpu_node.csv)
 * @param gpus the cluster's GPU count, a positive integer
 * @returns the sampled nodes, in draw order
 * @throws RangeError when `gpus` is not a positive safe integer or the list has no GPU node
 */
export function sampleCluster(nodes: readonly TraceNode[], gpus: number, rng: Rng): TraceNode[] {
  if (!Number.isSafeInteger(gpus) || gpus < 1) throw new RangeError(`gpus must be an integer >= 1, got ${gpus}`);
  const pool = nodes.filter((n) => n.gpuCount > 0);
  if (pool.length === 0) throw new RangeError('the node list has no GPU node to sample');
  const out: TraceNode[] = [];
  let missing = gpus;
  while (missing > 0) {
    const drawn = pool[rng.intn(pool.length)]!;
    const name = `s${String(out.length).padStart(3, '0')}-${drawn.name}`;
    if (drawn.gpuCount <= missing) {
      out.push({ ...drawn, name });
      missing -= drawn.gpuCount;
    } else {
      const share = missing / drawn.gpuCount;
      out.push({
        ...drawn,
        name,
        gpuCount: missing,
        cpuMilli: Math.max(1, Math.floor(drawn.cpuMilli * share)),
        hostMemoryMiB: Math.floor(drawn.hostMemoryMiB * share),
      });
      missing = 0;
    }
  }
  return out;
}

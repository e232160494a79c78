/**
 * The FGD paper's arrival protocol (docs/simulator.md "Protocol"): for a seed, shuffle the
 * name-sorted pods, append uniformly resampled copies until the GPU request would exceed
 * `inflation` × cluster capacity, and draw one random tie-break rank per node. All draws come from
 * one seeded stream, in that order, which the caller keeps using for the policy's own draws.
 */
import { randomPermutation, shuffleInPlace, type Rng } from '../core/index.js';
import type { TracePod } from './traces/trace-types.js';

/** Arrivals and node ranks of one seeded replay. */
export interface ArrivalPlan {
  /** Pods in arrival order (originals shuffled, then resampled copies). */
  readonly arrivals: readonly TracePod[];
  /** Number of resampled copies at the end of `arrivals`. */
  readonly copies: number;
  /** Rank per node, indexed like the node list given (lower rank wins score ties). */
  readonly nodeRank: Int32Array;
}

/**
 * Builds the plan.
 * @param pods the pod list sorted by name
 * @param nodeNames node names, in the order the cluster indexes them
 * @param capacityGpuMilli Σ GPUs × 1000 of the cluster
 * @param inflation target arrived GPU request as a multiple of capacity (FGD: 1.3)
 */
export function buildArrivalPlan(
  pods: readonly TracePod[],
  nodeNames: readonly string[],
  capacityGpuMilli: number,
  inflation: number,
  rng: Rng,
): ArrivalPlan {
  rng.nextUint32(); // the authors' run discards one draw first; kept so the stream has the same shape
  const arrivals = shuffleInPlace([...pods], rng);
  const target = inflation * capacityGpuMilli;
  let requested = 0;
  for (const p of pods) requested += p.gpuCount * p.gpuMilli;
  let copies = 0;
  const hasGpuPods = pods.some((p) => p.gpuMilli > 0);
  // Only GPU draws can stop the loop; without GPU pods there is nothing to inflate.
  while (hasGpuPods && pods.length > 0) {
    const pod = pods[rng.intn(pods.length)]!;
    if (pod.gpuMilli > 0 && requested + pod.gpuMilli > target) break;
    arrivals.push(pod);
    requested += pod.gpuCount * pod.gpuMilli;
    copies++;
  }
  const byName = nodeNames
    .map((name, index) => ({ name, index }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const perm = randomPermutation(byName.length, rng);
  const nodeRank = new Int32Array(nodeNames.length);
  byName.forEach(({ index }, position) => {
    nodeRank[index] = perm[position]!;
  });
  return { arrivals, copies, nodeRank };
}

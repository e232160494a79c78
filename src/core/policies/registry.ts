/**
 * The scheduling policies, each a profile of plugins. Names are the CLI's `--policy` values.
 * Baselines and FGD follow docs/simulator.md exactly; `default` is gpushare's own policy
 * (docs/default-policy.md).
 */
import type { SchedulingProfile } from '../framework/extension-points.js';
import type { TargetWorkload } from '../fragmentation/target-workload.js';
import { createBestFitGpu } from '../plugins/best-fit-gpu/best-fit-gpu.js';
import { createBestFitScore } from '../plugins/best-fit-score/best-fit-score.js';
import { createDotProductScore } from '../plugins/dot-product-score/dot-product-score.js';
import { createFgd } from '../plugins/fgd-score/fgd-score.js';
import { createGpuClusteringScore } from '../plugins/gpu-clustering-score/gpu-clustering-score.js';
import { createGpuFit } from '../plugins/gpu-fit/gpu-fit.js';
import { createGpuPackingScore } from '../plugins/gpu-packing-score/gpu-packing-score.js';
import { createNodeResourcesFit } from '../plugins/node-resources-fit/node-resources-fit.js';
import { createRandomGpu } from '../plugins/random-gpu/random-gpu.js';
import { createRandomScore } from '../plugins/random-score/random-score.js';
import { createDefaultPolicy } from '../plugins/default-score/default-score.js';

/** What a policy may be built from. */
export interface PolicyOptions {
  /** Number of nodes in the cluster (plugins keep per-node state). */
  readonly nodeCount: number;
  /**
   * A target workload known in advance (the simulator passes the trace's own M, as the FGD paper
   * does). Required by `fgd`; `default` uses it when given and otherwise learns one online.
   */
  readonly targetWorkload?: TargetWorkload;
  /** Ask policies that can learn the workload from arrivals to do so even when `targetWorkload` is given. */
  readonly learnWorkloadOnline?: boolean;
}

/** A registered policy. */
export interface PolicyDefinition {
  readonly name: string;
  readonly description: string;
  /** The FGD authors' directory name of the same policy, when it is one of theirs. */
  readonly publishedName: string | null;
  create(options: PolicyOptions): SchedulingProfile;
}

const filters = () => [createNodeResourcesFit(), createGpuFit()];

function single(
  name: string,
  score: SchedulingProfile['scores'][number]['plugin'],
  gpuSelect = createBestFitGpu(),
): SchedulingProfile {
  return { name, filters: filters(), scores: [{ plugin: score, weight: 1000 }], gpuSelect, reserve: [] };
}

/** Every policy, in the order the paper lists them, then gpushare's own. */
export const POLICIES: readonly PolicyDefinition[] = [
  {
    name: 'random',
    publishedName: '01-Random',
    description: 'uniformly random feasible node and GPU',
    create: () => single('random', createRandomScore(), createRandomGpu()),
  },
  {
    name: 'dot-product',
    publishedName: '02-DotProd',
    description: 'smallest dot product of free (CPU, GPU) and request',
    create: () => single('dot-product', createDotProductScore()),
  },
  {
    name: 'gpu-clustering',
    publishedName: '03-GpuClustering',
    description: 'group pods of the same GPU kind on a node',
    create: ({ nodeCount }) => {
      const plugin = createGpuClusteringScore(nodeCount);
      return { ...single('gpu-clustering', plugin), reserve: [plugin] };
    },
  },
  {
    name: 'gpu-packing',
    publishedName: '04-GpuPacking',
    description: 'fill partly used GPUs, then used nodes, then idle nodes',
    create: () => single('gpu-packing', createGpuPackingScore()),
  },
  {
    name: 'best-fit',
    publishedName: '05-BestFit',
    description: 'least CPU and GPU left over',
    create: () => single('best-fit', createBestFitScore()),
  },
  {
    name: 'fgd',
    publishedName: '06-FGD',
    description: "fragmentation gradient descent (Weng et al., ATC'23)",
    create: ({ targetWorkload }) => {
      if (!targetWorkload) throw new Error('policy fgd needs options.targetWorkload');
      const { score, gpuSelect } = createFgd(targetWorkload);
      return single('fgd', score, gpuSelect);
    },
  },
  {
    name: 'default',
    publishedName: null,
    description:
      'gpushare: FGD gradient plus tie-breaks that keep whole GPUs and nodes free; learns the workload ' +
      'online when none is given',
    create: ({ targetWorkload, learnWorkloadOnline }) =>
      createDefaultPolicy(targetWorkload && !learnWorkloadOnline ? { targetWorkload } : {}),
  },
];

/** Names accepted by `findPolicy`. */
export const POLICY_NAMES: readonly string[] = POLICIES.map((p) => p.name);

/** The policy of that name, or undefined. */
export function findPolicy(name: string): PolicyDefinition | undefined {
  return POLICIES.find((p) => p.name === name);
}

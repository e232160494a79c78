/**
 * Measurement behind `npm run bench -- --only dra` (run by src/bench/dra-placement.ts through
 * vitest.kubernetes-bench.config.ts; not a test): the same nodes and the same streams of GPU pods
 * sampled from the Alibaba trace (src/bench/dra-placement-workload.ts: 51 nodes, 250 GPUs; 354
 * pods of the `default` list asking for 121 % of the GPUs, then 354 of `gpushare40` asking for
 * 111 %) placed on the real control plane by
 *  1. kube-scheduler with the gpushare extender, then
 *  2. DRA: the stock kube-scheduler allocating ResourceClaims from templates (resourceclaim
 *     controller) on the nodes' ResourceSlices,
 * in one run, one stream after the other. Pods are created 8 at a time in arrival order; each path
 * ends when all are bound or none was bound for 15 s and the scheduler has marked the rest
 * Unschedulable. Writes the figures (src/bench/dra-placement-metrics.ts) as JSON to
 * GPUSHARE_BENCH_OUT, and, when GPUSHARE_BENCH_DETAIL_OUT names a file, the workload and every
 * share and unbound pod there.
 */
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { placementFigures } from '../../../src/bench/dra-placement-metrics.js';
import {
  DEFAULT_PLACEMENT_SAMPLING,
  demandGpuMilli,
  placementWorkload,
  totalGpus,
  type PlacementPodList,
} from '../../../src/bench/dra-placement-workload.js';
import { CREATE_CONCURRENCY, DEFAULT_SETTLE } from '../support/placement-watch.js';
import { DEFAULT_RUN_OPTIONS, PLACEMENT_CONTROLLERS, runBothPlacements } from '../support/placement-runs.js';
import { useControlPlane } from '../support/use-control-plane.js';

const plane = useControlPlane({ scheduler: false, controllerManager: { controllers: PLACEMENT_CONTROLLERS } });

/** The streams measured, in order. */
const POD_LISTS: readonly PlacementPodList[] = ['default', 'gpushare40'];

it('places the same trace streams through the gpushare extender and through DRA', async () => {
  const streams = [];
  const details = [];
  for (const podList of POD_LISTS) {
    const workload = placementWorkload({ ...DEFAULT_PLACEMENT_SAMPLING, podList });
    const runs = await runBothPlacements(plane(), workload, {
      ...DEFAULT_RUN_OPTIONS,
      namespaces: { extender: `${podList}-extender`, dra: `${podList}-dra` },
    });
    const gpus = totalGpus(workload.nodes);
    streams.push({
      sampling: workload.sampling,
      nodes: workload.nodes.length,
      gpus,
      pods: workload.pods.length,
      wholeGpuPods: workload.pods.filter((p) => p.gpuMilli === 1000).length,
      multiGpuPods: workload.pods.filter((p) => p.gpuCount > 1).length,
      demandGpuMilli: demandGpuMilli(workload.pods),
      claimTemplates: runs.claimTemplates,
      extender: placementFigures(runs.extender, workload.nodes, workload.pods),
      dra: placementFigures(runs.dra, workload.nodes, workload.pods),
    });
    details.push({ workload, runs });
  }
  const result = { concurrency: CREATE_CONCURRENCY, quietSeconds: DEFAULT_SETTLE.quietMs / 1000, streams };
  const out = process.env.GPUSHARE_BENCH_OUT;
  if (out) writeFileSync(out, JSON.stringify(result));
  const detail = process.env.GPUSHARE_BENCH_DETAIL_OUT;
  if (detail) writeFileSync(detail, JSON.stringify(details));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}, 900_000);

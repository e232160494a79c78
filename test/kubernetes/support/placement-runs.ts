/**
 * One run of each placement of the comparison on a test control plane (placement-arms.ts has the
 * objects): first the gpushare extender behind kube-scheduler, then, once its pods and nodes are
 * gone, DRA with kube-scheduler's stock configuration. The control plane must run the
 * `resourceclaim-controller` ({@link PLACEMENT_CONTROLLERS}) and may start without a scheduler.
 */
import { join } from 'node:path';
import type { PlacementOutcome } from '../../../src/bench/dra-placement-metrics.js';
import type { PlacementWorkload } from '../../../src/bench/dra-placement-workload.js';
import { TEST_CONTROLLERS } from './component-flags.js';
import type { ControlPlane } from './control-plane.js';
import { startExtenderProcess, writeSchedulerConfig } from './gpushare-extender.js';
import { listPods } from './gpu-workloads.js';
import {
  createClaimTemplates,
  createDeviceClasses,
  createDraNode,
  createExtenderNode,
  deleteNode,
  draPod,
  extenderPod,
} from './placement-arms.js';
import {
  createPods,
  DEFAULT_SETTLE,
  draShares,
  extenderShares,
  outcomeOf,
  waitSettled,
  type SettleBounds,
} from './placement-watch.js';

const DEPLOY = join(import.meta.dirname, '..', '..', '..', 'deploy', 'kubernetes');

/** The controllers of the comparison's control plane: the test set and the ResourceClaim controller. */
export const PLACEMENT_CONTROLLERS: readonly string[] = [...TEST_CONTROLLERS, 'resourceclaim-controller'];

/** How a comparison runs. */
export interface PlacementRunOptions {
  readonly bounds: SettleBounds;
  /** Namespaces of the two placements' pods (distinct per run on one control plane). */
  readonly namespaces: { readonly extender: string; readonly dra: string };
  /** Create each pod once the one before is decided (exact order), instead of 8 at a time. */
  readonly oneByOne: boolean;
}

/** The measurement's options. */
export const DEFAULT_RUN_OPTIONS: PlacementRunOptions = {
  bounds: DEFAULT_SETTLE,
  namespaces: { extender: 'via-extender', dra: 'via-dra' },
  oneByOne: false,
};

/** Both outcomes. */
export interface PlacementRuns {
  readonly extender: PlacementOutcome;
  readonly dra: PlacementOutcome;
  /** ResourceClaimTemplates the DRA pods used. */
  readonly claimTemplates: number;
}

async function deletePods(plane: ControlPlane, namespace: string, bounds: SettleBounds): Promise<void> {
  await plane.request('DELETE', `/api/v1/namespaces/${namespace}/pods?gracePeriodSeconds=0`);
  const deadline = performance.now() + bounds.timeoutMs;
  while ((await listPods(plane, namespace)).length > 0) {
    if (performance.now() > deadline) throw new Error(`pods of ${namespace} not gone within ${bounds.timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, bounds.pollMs));
  }
}

/**
 * The extender's run: its process, the scheduler pointed at it, the nodes, the stream; then its
 * pods, nodes and process are gone.
 */
export async function runExtenderPlacement(
  plane: ControlPlane,
  workload: PlacementWorkload,
  options: PlacementRunOptions = DEFAULT_RUN_OPTIONS,
): Promise<PlacementOutcome> {
  const applied = await plane.kubectl([
    'apply',
    '--filename',
    join(DEPLOY, 'namespace.yaml'),
    '--filename',
    join(DEPLOY, 'rbac-extender.yaml'),
  ]);
  if (applied.code !== 0) throw new Error(applied.stderr);
  const extender = await startExtenderProcess({
    dir: plane.dir,
    kubeconfig: await plane.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender'),
    leaseDurationSeconds: 15,
  });
  const ns = options.namespaces.extender;
  try {
    await plane.restartScheduler({ configPath: writeSchedulerConfig(plane.dir, extender), identity: 'component' });
    for (const node of workload.nodes) await createExtenderNode(plane, node);
    await plane.createNamespace(ns);
    const t0 = performance.now();
    await createPods(plane, ns, workload.pods, extenderPod, options);
    const settled = await waitSettled(plane, ns, workload.pods.length, options.bounds);
    return outcomeOf(settled.pods, extenderShares(settled.pods), t0, settled.lastBindMs);
  } finally {
    try {
      await deletePods(plane, ns, options.bounds);
    } finally {
      await extender.kill();
    }
    for (const node of workload.nodes) await deleteNode(plane, node);
  }
}

/**
 * DRA's run: the stock scheduler, the DeviceClasses, the nodes and their slices, the claim
 * templates, the stream; then its pods, nodes and slices are gone.
 */
export async function runDraPlacement(
  plane: ControlPlane,
  workload: PlacementWorkload,
  options: PlacementRunOptions = DEFAULT_RUN_OPTIONS,
): Promise<PlacementOutcome & { claimTemplates: number }> {
  await plane.restartScheduler({ identity: 'component' });
  await createDeviceClasses(plane);
  const ns = options.namespaces.dra;
  try {
    for (const node of workload.nodes) await createDraNode(plane, node);
    await plane.createNamespace(ns);
    const claimTemplates = await createClaimTemplates(plane, ns, workload.pods);
    const t0 = performance.now();
    await createPods(plane, ns, workload.pods, draPod, options);
    const settled = await waitSettled(plane, ns, workload.pods.length, options.bounds);
    return { ...outcomeOf(settled.pods, await draShares(plane, ns), t0, settled.lastBindMs), claimTemplates };
  } finally {
    await deletePods(plane, ns, options.bounds);
    for (const node of workload.nodes) await deleteNode(plane, node);
  }
}

/** Both runs, the extender's first. */
export async function runBothPlacements(
  plane: ControlPlane,
  workload: PlacementWorkload,
  options: PlacementRunOptions = DEFAULT_RUN_OPTIONS,
): Promise<PlacementRuns> {
  const extender = await runExtenderPlacement(plane, workload, options);
  const { claimTemplates, ...dra } = await runDraPlacement(plane, workload, options);
  return { extender, dra, claimTemplates };
}

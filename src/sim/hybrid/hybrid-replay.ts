/**
 * One packing replay with hybrid sharing (docs/simulator.md "Hybrid sharing"): the FGD paper's
 * protocol — seeded shuffle, inflation to `inflation` × capacity, no departures, A(x) after each
 * arrival — on a {@link HybridCluster}, where each pod runs in the mode its `--sharing` setting
 * and isolation give it.
 */
import { SeededRng, type EffectiveMode, type IsolationLevel, type TaskShape } from '../../core/index.js';
import { buildArrivalPlan } from '../arrival-plan.js';
import { CurveBinner } from '../curve-binning.js';
import type { TraceNode, TracePod } from '../traces/trace-types.js';
import { HybridCluster, type HybridPod } from './hybrid-cluster.js';
import type { HybridRunResult, IsolationOutcome } from './hybrid-types.js';
import { isolationOfQos, type SharingGpuModel, type SharingSetting } from './pod-mode.js';

/** Inputs shared by every run. */
export interface HybridReplayInput {
  readonly nodes: readonly TraceNode[];
  /** Pod list sorted by name. */
  readonly pods: readonly TracePod[];
  /** Arrived GPU request as a multiple of capacity, e.g. 1.3. */
  readonly inflation: number;
  /** Model given to every GPU (`--gpu-model`); the trace's models and `gpu_spec` are not used. */
  readonly gpuModel: SharingGpuModel;
  /** Tenants the pods are spread over (`--tenants`, ≥ 1; default 1: every pod of tenant `trace`). */
  readonly tenants?: number;
  /** One tenant per MPS GPU (docs/decisions/0014; `--mps-any-tenant` turns it off); default true. */
  readonly mpsOneTenantPerGpu?: boolean;
}

/** Names of `count` tenants: `trace` for one, `t0` … `t<count−1>` otherwise. */
export function tenantNames(count: number): string[] {
  return count <= 1 ? ['trace'] : Array.from({ length: count }, (_, i) => `t${i}`);
}

/** 32-bit FNV-1a of a string. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * The pod as the hybrid cluster sees it (`gpu_spec` dropped: every GPU is of the one model). With
 * `tenants` > 1 its tenant is `t<FNV-1a(pod name) mod tenants>`: fixed per pod (its inflation
 * copies share it), the same for every seed.
 */
export function hybridPodOf(pod: TracePod, tenants = 1): HybridPod {
  const gpu = pod.gpuCount > 0;
  const base = {
    cpuMilli: pod.cpuMilli,
    hostMemoryMiB: pod.hostMemoryMiB,
    gpuCount: pod.gpuCount,
    gpuMilli: gpu ? pod.gpuMilli : 0,
    isolation: isolationOfQos(pod.qos),
  };
  return tenants <= 1 ? base : { ...base, tenant: `t${fnv1a(pod.name) % tenants}` };
}

/** Task shape of a pod for the `default` policy's target workload (without `gpu_spec`, as above). */
function workloadShapeOf(pod: TracePod): TaskShape {
  return {
    cpuMilli: pod.cpuMilli,
    gpuMilli: pod.gpuCount > 0 ? pod.gpuMilli : 0,
    gpuCount: pod.gpuCount,
    allowedGpuModels: [],
  };
}

function emptyOutcome(): { -readonly [K in keyof IsolationOutcome]: number } {
  return { pods: 0, mig: 0, exclusive: 0, shared: 0, failed: 0 };
}

/** 100 − A, rounded to 2 decimals; NaN for an empty bin. */
function unallocated(allocationPct: number | null | undefined): number {
  return allocationPct === null || allocationPct === undefined
    ? Number.NaN
    : Math.round((100 - allocationPct) * 100) / 100;
}

/** Replays `input` with one sharing setting and seed. @throws RangeError for `mig` on a model without MIG */
export function runHybridReplay(input: HybridReplayInput, sharing: SharingSetting, seed: number): HybridRunResult {
  const started = performance.now();
  const rng = new SeededRng(seed);
  const capacityGpus = input.nodes.reduce((sum, n) => sum + n.gpuCount, 0);
  const plan = buildArrivalPlan(
    input.pods,
    input.nodes.map((n) => n.name),
    capacityGpus * 1000,
    input.inflation,
    rng,
  );
  const tenants = input.tenants ?? 1;
  const mpsOneTenantPerGpu = input.mpsOneTenantPerGpu ?? true;
  const cluster = new HybridCluster({
    nodes: input.nodes,
    gpuModel: input.gpuModel,
    sharing,
    nodeRank: plan.nodeRank,
    workloadShapes: input.pods.map(workloadShapeOf),
    rng,
    tenants: tenantNames(tenants),
    mpsOneTenantPerGpu,
  });
  const pods = new Map<TracePod, HybridPod>(input.pods.map((p) => [p, hybridPodOf(p, tenants)]));
  const reserved = new CurveBinner(capacityGpus);
  const requested = new CurveBinner(capacityGpus);
  const placedByMode: Record<EffectiveMode, number> = { exclusive: 0, mig: 0, mps: 0, timeslice: 0 };
  const byIsolation: Record<IsolationLevel, ReturnType<typeof emptyOutcome>> = {
    strict: emptyOutcome(),
    standard: emptyOutcome(),
    none: emptyOutcome(),
  };
  let arrived = 0;
  let requestedMilli = 0;
  let failedPods = 0;
  let failedGpuPods = 0;
  let giCreations = 0;
  let migModeSwitches = sharing === 'mig' ? capacityGpus : 0;
  for (const tracePod of plan.arrivals) {
    const pod = pods.get(tracePod)!;
    const podMilli = pod.gpuCount * pod.gpuMilli;
    arrived += podMilli;
    const outcome = cluster.place(pod);
    const counts = pod.gpuCount > 0 ? byIsolation[pod.isolation] : null;
    if (counts) counts.pods++;
    if (outcome.kind === 'failed') {
      failedPods++;
      if (counts) {
        failedGpuPods++;
        counts.failed++;
      }
    } else if (outcome.placement && counts) {
      const { mode, gpus } = outcome.placement;
      placedByMode[mode]++;
      requestedMilli += podMilli;
      if (mode === 'mig') {
        giCreations += gpus.length;
        counts.mig++;
      } else if (mode === 'exclusive') {
        counts.exclusive++;
      } else {
        counts.shared++;
      }
      migModeSwitches += outcome.migSwitches;
    }
    reserved.add(arrived, cluster.reservedMilli, 0);
    requested.add(arrived, requestedMilli, 0);
  }
  const allocationPct = reserved.curves().allocationPct;
  const requestedAllocationPct = requested.curves().allocationPct;
  const placedGpuPods = Object.values(placedByMode).reduce((s, v) => s + v, 0);
  const strict = byIsolation.strict;
  const strictPlaced = strict.mig + strict.exclusive + strict.shared;
  const gpusWithMigJobs = cluster.gpuStates().filter((g) => g.mode === 'mig' && g.jobs > 0).length;
  const gpuPods = byIsolation.strict.pods + byIsolation.standard.pods + byIsolation.none.pods;
  return {
    sharing,
    seed,
    tenants,
    mpsOneTenantPerGpu,
    placedGpuPodsPct: gpuPods === 0 ? Number.NaN : (100 * placedGpuPods) / gpuPods,
    mpsGpus: cluster.gpuStates().filter((g) => g.mode === 'mps' && g.jobs > 0).length,
    unallocatedPctAt100: unallocated(allocationPct[100]),
    unallocatedPctAt130: unallocated(allocationPct[130]),
    unrequestedPctAt100: unallocated(requestedAllocationPct[100]),
    failedPods,
    failedGpuPods,
    arrivals: plan.arrivals.length,
    placedGpuPods,
    placedByMode,
    hardwareIsolatedPct: placedGpuPods === 0 ? Number.NaN : (100 * placedByMode.mig) / placedGpuPods,
    giCreations,
    migModeSwitches,
    reconfigurations: giCreations + migModeSwitches,
    gpusWithMigJobs,
    strictIsolatedPct: strictPlaced === 0 ? Number.NaN : (100 * (strict.mig + strict.exclusive)) / strictPlaced,
    byIsolation,
    serverRefusals: cluster.refusals,
    wallSeconds: (performance.now() - started) / 1000,
    allocationPct,
    requestedAllocationPct,
  };
}

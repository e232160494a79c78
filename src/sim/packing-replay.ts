/**
 * One replay of the FGD paper's protocol ("packing": no departures; a pod that fits nowhere fails
 * for good), recording A(x) and R(x) after every arrival. docs/simulator.md "Protocol" and "Metric".
 */
import {
  buildTargetWorkload,
  findPolicy,
  nodeFragmentationMilli,
  nodeWeightedIdleMilli,
  POLICY_NAMES,
  SchedulingSession,
  SeededRng,
  type JobRequest,
  type NodeState,
  type SchedulingProfile,
  type TargetWorkload,
} from '../core/index.js';
import { buildArrivalPlan } from './arrival-plan.js';
import { clusterNodeOf, jobRequestOf, taskShapeOf } from './cluster-from-trace.js';
import { CurveBinner } from './curve-binning.js';
import type { RunResult } from './simulation-types.js';
import type { TraceNode, TracePod } from './traces/trace-types.js';

/** Inputs shared by every run of a grid. */
export interface ReplayInput {
  readonly nodes: readonly TraceNode[];
  /** Pod list sorted by name. */
  readonly pods: readonly TracePod[];
  /** Arrived GPU request as a multiple of capacity, e.g. 1.3. */
  readonly inflation: number;
  /**
   * Where policies that use a target workload get it: `trace` = the pod list's own task types, as
   * the FGD paper does (default); `online` = policies that can learn it from the arrivals so far
   * do so (`default`); `fgd` always uses the trace's.
   */
  readonly workloadSource?: WorkloadSource;
}

/** See `ReplayInput.workloadSource`. */
export type WorkloadSource = 'trace' | 'online';

/** Thrown for a policy name that is not registered. */
export class UnknownPolicyError extends Error {
  constructor(name: string) {
    super(`unknown policy '${name}'; allowed: ${POLICY_NAMES.join(', ')}, all`);
    this.name = 'UnknownPolicyError';
  }
}

/** Tracks the cluster's fragmentation F(M) and weighted idle GPU incrementally. */
class FragmentationTracker {
  private readonly fragment: Float64Array;
  private readonly idle: Float64Array;
  totalFragment = 0;
  totalIdle = 0;

  constructor(
    private readonly nodes: readonly NodeState[],
    private readonly workload: TargetWorkload,
  ) {
    this.fragment = new Float64Array(nodes.length);
    this.idle = new Float64Array(nodes.length);
    for (const node of nodes) this.update(node.index);
  }

  update(index: number): void {
    const node = this.nodes[index]!;
    const f = nodeFragmentationMilli(node.freeCpuMilli, node.spec.gpuModel, node.gpuFreeMilli, this.workload);
    const i = nodeWeightedIdleMilli(node.gpuFreeMilli, this.workload);
    this.totalFragment += f - this.fragment[index]!;
    this.totalIdle += i - this.idle[index]!;
    this.fragment[index] = f;
    this.idle[index] = i;
  }

  ratioPct(): number {
    return this.totalIdle <= 0 ? 100 : (100 * this.totalFragment) / this.totalIdle;
  }
}

/** Everything one replay needs, set up for a policy and seed. */
export interface PreparedReplay {
  /** The scheduling unit of each trace node (one per node: a trace node's GPUs are of one model), by node index. */
  readonly nodes: readonly NodeState[];
  readonly capacityGpus: number;
  /** Arrivals as requests, in order (ids 1, 2, …). */
  readonly arrivals: readonly JobRequest[];
  /** The trace's target workload M (fragmentation is always reported against it). */
  readonly workload: TargetWorkload;
  /** The core's scheduling session over the trace's cluster (the same pass as the server's, one arrival each). */
  readonly session: SchedulingSession;
}

/**
 * Builds the cluster, the seeded arrival plan and the scheduling session of one replay. Draws come
 * from one stream seeded with `seed`: the plan first, then the policy's own draws.
 * @param adjustProfile optional change to the policy's profile (e.g. a benchmark baseline)
 * @throws UnknownPolicyError for an unregistered policy name
 */
export function prepareReplay(
  input: ReplayInput,
  policyName: string,
  seed: number,
  adjustProfile?: (profile: SchedulingProfile) => SchedulingProfile,
): PreparedReplay {
  if (!findPolicy(policyName)) throw new UnknownPolicyError(policyName);
  const cluster = input.nodes.map(clusterNodeOf);
  const capacityGpus = cluster.reduce((sum, n) => sum + n.gpus.length, 0);
  const rng = new SeededRng(seed);
  const plan = buildArrivalPlan(
    input.pods,
    input.nodes.map((n) => n.name),
    capacityGpus * 1000,
    input.inflation,
    rng,
  );
  const workload = buildTargetWorkload(input.pods.map(taskShapeOf));
  const session = new SchedulingSession({ nodes: cluster, active: [] }, rng, {
    policy: policyName,
    targetWorkload: workload,
    learnWorkloadOnline: input.workloadSource === 'online',
    nodeRank: plan.nodeRank,
    ...(adjustProfile ? { adjustProfile } : {}),
  });
  const units = session.state.groups.units;
  if (units.length !== cluster.length)
    throw new Error(`a trace node has GPUs of several models (${units.length} units for ${cluster.length} nodes)`);
  const requests = new Map<TracePod, JobRequest>(input.pods.map((p, i) => [p, jobRequestOf(p, i + 1)]));
  return {
    nodes: units.map((u) => u.state),
    capacityGpus,
    arrivals: plan.arrivals.map((pod, i) => ({ ...requests.get(pod)!, id: i + 1 })),
    workload,
    session,
  };
}

/**
 * One decision of a replay: the node index and GPU indices of a placed arrival, or null for a pod that fits nowhere.
 */
export type ReplayDecision = { readonly nodeIndex: number; readonly gpuIndices: readonly number[] } | null;

/**
 * Places every arrival of `prepared` in order, each in its own pass of the session (no departures;
 * a pod that fits nowhere fails for good), and reports each decision to `onDecision`.
 */
export function replayArrivals(
  prepared: PreparedReplay,
  onDecision: (request: JobRequest, decision: ReplayDecision) => void,
  limit = prepared.arrivals.length,
): void {
  const { session } = prepared;
  const state = session.state;
  const batch: JobRequest[] = [];
  const pass = { nowMs: 0 };
  for (let i = 0; i < limit; i++) {
    const request = prepared.arrivals[i]!;
    batch[0] = request;
    const placed = session.schedule(batch, pass).placements[0];
    onDecision(
      request,
      placed === undefined
        ? null
        : { nodeIndex: state.indexOf(placed.node), gpuIndices: placed.placement.gpus.map((g) => g.index) },
    );
  }
}

/**
 * Replays `input` with one policy and seed.
 * @throws UnknownPolicyError for an unregistered policy name
 */
export function runPackingReplay(input: ReplayInput, policyName: string, seed: number): RunResult {
  const started = performance.now();
  const prepared = prepareReplay(input, policyName, seed);
  const { nodes, capacityGpus, arrivals, workload } = prepared;
  const tracker = new FragmentationTracker(nodes, workload);
  const binner = new CurveBinner(capacityGpus);
  let arrived = 0;
  let used = 0;
  let failedPods = 0;
  replayArrivals(prepared, (request, decision) => {
    const total = request.gpu.gpuCount * request.gpu.gpuMilli;
    arrived += total;
    if (decision !== null) {
      used += total;
      tracker.update(decision.nodeIndex);
    } else {
      failedPods++;
    }
    binner.add(arrived, used, tracker.ratioPct());
  });
  const { allocationPct, fragmentRatioPct } = binner.curves();
  return {
    policy: policyName,
    seed,
    unallocatedPctAt100: unallocated(allocationPct[100]),
    unallocatedPctAt130: unallocated(allocationPct[130]),
    failedPods,
    arrivals: arrivals.length,
    wallSeconds: (performance.now() - started) / 1000,
    allocationPct,
    fragmentRatioPct,
  };
}

function unallocated(allocationPct: number | null | undefined): number {
  return allocationPct === null || allocationPct === undefined ? NaN : Math.round((100 - allocationPct) * 100) / 100;
}

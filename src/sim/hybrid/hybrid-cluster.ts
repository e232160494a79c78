/**
 * A cluster of GPU servers that share their GPUs in the core's modes — exclusive, MIG, MPS,
 * time-slicing — one mode per GPU at a time (docs/simulator.md "Hybrid sharing").
 *
 * Design: one core `SchedulingSession` over the whole cluster places every pod, one pass per
 * arrival, with the core's per-GPU rules (a GPU runs one mode at a time, an empty GPU takes any
 * mode, `exclusive` needs an empty GPU, MIG GPUs are accounted in slices and get GPU instances from
 * the core's MIG allocator) and the `default` policy choosing the node on a view of the pod's mode
 * (the core's `modeViews`: a GPU the mode cannot use shows no room). Each pod is given its mode
 * explicitly (pod-mode.ts), so the core's fallback of a strict `auto` job to whole GPUs never
 * applies: whole GPUs need an empty GPU, and under `auto` an empty GPU can always be switched into
 * MIG mode for the instance.
 *
 * MIG mode of a GPU: under `--sharing mig` every GPU is in MIG mode from the start; under `auto` the
 * core switches empty GPUs into MIG mode on demand (`migModeOnDemand`: a MIG job goes to a GPU of
 * its node already in MIG mode when one has room, else the node's lowest-index empty GPU switches,
 * one more if the job needs more GPUs; switches the job does not land on are undone). Without
 * departures a MIG GPU never empties, so no GPU is switched out of MIG mode.
 *
 * Tenants (`tenants`, `mpsOneTenantPerGpu`): an MPS GPU takes MPS pods of one tenant at a time
 * (docs/decisions/0014); MPS node choice then uses one view per tenant. CPU-only pods take host CPU
 * and memory only, on the node the policy chooses for them on the plain view.
 */
import {
  buildTargetWorkload,
  GPU_MILLI_PER_GPU,
  migGeometry,
  SchedulingSession,
  type ClusterNode,
  type EffectiveMode,
  type GpuDevice,
  type JobRequest,
  type Placement,
  type Rng,
  type TaskShape,
} from '../../core/index.js';
import {
  decideMode,
  type HybridGpuShape,
  type ModeDecision,
  type SharingGpuModel,
  type SharingSetting,
} from './pod-mode.js';

/** A node of the cluster: host resources and GPU count (every GPU is of the cluster's model). */
export interface HybridNode {
  readonly name: string;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly gpuCount: number;
}

/** A pod to place. `gpuCount` 0 = CPU-only (then `gpuMilli` is 0). */
export interface HybridPod extends Omit<HybridGpuShape, 'gpuCount'> {
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly gpuCount: number;
  /** Owner (one of `HybridClusterOptions.tenants`); `trace` when absent. */
  readonly tenant?: string;
}

/** Tenant of a pod that names none. */
const DEFAULT_TENANT = 'trace';

/** Settings of a hybrid cluster. */
export interface HybridClusterOptions {
  readonly nodes: readonly HybridNode[];
  /** Model of every GPU. */
  readonly gpuModel: SharingGpuModel;
  readonly sharing: SharingSetting;
  /** Tie-break rank per node, lower wins (the packing protocol's seeded ranks). */
  readonly nodeRank: Int32Array;
  /** Target workload shapes of the `default` policy (the trace's pods). */
  readonly workloadShapes: readonly TaskShape[];
  readonly rng: Rng;
  /** The tenants pods belong to; default `['trace']`. */
  readonly tenants?: readonly string[];
  /** One tenant per MPS GPU (docs/decisions/0014); default true. */
  readonly mpsOneTenantPerGpu?: boolean;
}

/** Outcome of placing one pod. */
export type HybridOutcome =
  | {
      readonly kind: 'placed';
      readonly nodeIndex: number;
      /** The mode decision (null for a CPU-only pod). */
      readonly decision: ModeDecision | null;
      /** Null for a CPU-only pod. */
      readonly placement: Placement | null;
      /** GPUs switched into MIG mode for this placement. */
      readonly migSwitches: number;
    }
  | { readonly kind: 'failed'; readonly decision: ModeDecision | null };

/** What one GPU holds (for tests and metrics). */
export interface HybridGpuState {
  readonly node: number;
  /** GPU index on its node. */
  readonly gpu: number;
  /** Mode of its jobs; null when it holds none (a GPU in MIG mode is always `mig`). */
  readonly mode: EffectiveMode | null;
  readonly migEnabled: boolean;
  /** Jobs on it. */
  readonly jobs: number;
  /** Reserved milli-GPU: accounted milli, or for a MIG GPU round(1000 × compute slices held / slices of the GPU). */
  readonly usedMilli: number;
}

/** The hybrid cluster: one scheduling session over every node, and what the figures need of its placements. */
export class HybridCluster {
  private readonly session: SchedulingSession;
  private readonly decisions = new Map<string, ModeDecision>();
  private readonly tenants: readonly string[];
  /** Compute slices per GPU of a MIG GPU (7, or 4 on an A30). */
  private readonly sliceCount: number;
  /** Compute slices held per MIG GPU, by `node × 4096 + GPU index`. */
  private readonly migSlices = new Map<number, number>();
  private readonly batch: JobRequest[] = [];
  private readonly pass = { nowMs: 0 };
  private nextJobId = 0;
  private reservedTotal = 0;

  /** @throws RangeError for `--sharing mig` on a model without MIG */
  constructor(private readonly options: HybridClusterOptions) {
    const { nodes, gpuModel, sharing } = options;
    const geometry = migGeometry(gpuModel.name);
    if (sharing === 'mig' && !geometry)
      throw new RangeError(`--sharing mig needs a MIG-capable GPU model; ${gpuModel.name} has none`);
    this.sliceCount = geometry?.computeSlices ?? 7;
    this.tenants = options.tenants ?? [DEFAULT_TENANT];
    const cluster = nodes.map((node, n): ClusterNode => ({
      name: node.name,
      hostCpuMilli: node.cpuMilli,
      hostMemoryMiB: node.hostMemoryMiB,
      gpus: Array.from({ length: node.gpuCount }, (_, j): GpuDevice => ({
        index: j,
        uuid: `GPU-sim-${n}-${j}`,
        model: gpuModel.name,
        gpuMemoryMiB: gpuModel.gpuMemoryMiB,
        migEnabled: sharing === 'mig',
        schedulable: true,
      })),
    }));
    this.session = new SchedulingSession({ nodes: cluster, active: [] }, options.rng, {
      policy: 'default',
      targetWorkload: buildTargetWorkload(options.workloadShapes),
      nodeRank: options.nodeRank,
      timesliceOvercommitRatio: 1,
      mpsOneTenantPerGpu: options.mpsOneTenantPerGpu ?? true,
      modeViews: true,
      migModeOnDemand: sharing === 'auto',
    });
  }

  /** The mode decision of a GPU pod (cached per shape). */
  decide(pod: HybridGpuShape): ModeDecision {
    const key = `${pod.gpuCount}/${pod.gpuMilli}/${pod.isolation}`;
    let decision = this.decisions.get(key);
    if (!decision) {
      decision = decideMode(pod, this.options.sharing, this.options.gpuModel);
      this.decisions.set(key, decision);
    }
    return decision;
  }

  /** milli-GPU of `slices` compute slices of a MIG GPU: round(1000 × slices / slices per GPU). */
  sliceMilli(slices: number): number {
    return Math.round((GPU_MILLI_PER_GPU * slices) / this.sliceCount);
  }

  /**
   * Places `pod` for good, or reports that it fits nowhere: one pass of the session with the pod as
   * a job of its mode (node choice on the view of that mode; for `mps` under the one-tenant rule, of
   * its tenant).
   * @throws RangeError for a pod of a tenant not in `options.tenants` under the one-tenant rule (where tenants matter)
   */
  place(pod: HybridPod): HybridOutcome {
    const tenant = pod.tenant ?? DEFAULT_TENANT;
    if ((this.options.mpsOneTenantPerGpu ?? true) && !this.tenants.includes(tenant))
      throw new RangeError(`pod of tenant ${tenant}: not one of the cluster's tenants (${this.tenants.join(', ')})`);
    const decision = pod.gpuCount === 0 ? null : this.decide(pod);
    this.batch[0] = {
      id: ++this.nextJobId,
      tenant,
      priority: 0,
      submittedAtMs: 0,
      cpuMilli: pod.cpuMilli,
      hostMemoryMiB: pod.hostMemoryMiB,
      gpu:
        decision === null
          ? { gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0, mode: 'exclusive' }
          : {
              gpuCount: pod.gpuCount,
              gpuMilli: pod.gpuMilli,
              gpuMemoryMiB: decision.gpuMemoryMiB,
              mode: decision.mode,
            },
    };
    const placed = this.session.schedule(this.batch, this.pass).placements[0];
    if (placed === undefined) return { kind: 'failed', decision };
    const nodeIndex = this.session.state.indexOf(placed.node);
    if (decision === null) return { kind: 'placed', nodeIndex, decision, placement: null, migSwitches: 0 };
    this.reservedTotal += this.reservedBy(nodeIndex, placed.placement);
    const migSwitches = placed.placement.gpus.filter((g) => g.migChanges?.enableMig === true).length;
    return { kind: 'placed', nodeIndex, decision, placement: placed.placement, migSwitches };
  }

  /** Per node and GPU: mode, MIG state, jobs and reserved milli (for tests and metrics). */
  gpuStates(): HybridGpuState[] {
    const state = this.session.state;
    return state.usage().map((u) => {
      const node = state.indexOf(u.node);
      const gpu = u.device.index;
      return {
        node,
        gpu,
        mode: u.mode,
        migEnabled: u.device.migEnabled,
        jobs: u.jobIds.length,
        usedMilli: u.device.migEnabled
          ? this.sliceMilli(this.migSlices.get(node * 4096 + gpu) ?? 0)
          : u.allocatedGpuMilli,
      };
    });
  }

  /** The GPUs of node `n` as the cluster state sees them (MIG mode included), by index. */
  nodeGpus(n: number): GpuDevice[] {
    return [...this.session.state.nodes[n]!.devices.values()].map((d) => d.device).sort((a, b) => a.index - b.index);
  }

  /** Σ reserved milli-GPU over the cluster (MIG GPUs by compute slices, as in `gpuStates`). */
  get reservedMilli(): number {
    return this.reservedTotal;
  }

  /** Times the node a mode view chose refused the pod (then the next best node was tried). */
  get refusals(): number {
    return this.session.state.viewRefusals;
  }

  /** Reserved milli-GPU a new placement on node `n` adds (a MIG GPU: the change of its compute-slice milli). */
  private reservedBy(n: number, placement: Placement): number {
    let added = 0;
    for (const gpu of placement.gpus) {
      if (gpu.mig === null) {
        added += gpu.accountedGpuMilli;
        continue;
      }
      const key = n * 4096 + gpu.index;
      const before = this.migSlices.get(key) ?? 0;
      const after = before + gpu.mig.computeSlices;
      this.migSlices.set(key, after);
      added += this.sliceMilli(after) - this.sliceMilli(before);
    }
    return added;
  }
}

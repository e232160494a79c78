/**
 * A cluster of GPU servers that share their GPUs in the core's modes — exclusive, MIG, MPS,
 * time-slicing — one mode per GPU at a time (docs/simulator.md "Hybrid sharing").
 *
 * Design: each node is one core `ClusterState` of that node alone (its GPUs, its host CPU and
 * memory), which places a job on the node's GPUs with the core's per-GPU rules: a GPU runs one mode at a time, an
 * empty GPU takes any mode, `exclusive` needs an empty GPU, MIG GPUs are accounted in slices and
 * get GPU instances from the core's MIG allocator. The node is chosen by the `default` policy on a
 * {@link ModeMirror} of the job's mode, where every GPU shows what that mode can still use of it;
 * when the server refuses (a MIG layout with free slices but no valid start), the node is masked in
 * the mirror and the next best node is tried, until one accepts or none is feasible.
 *
 * The server's fallback of a strict `auto` job to whole GPUs when no MIG instance can hold it (the
 * core's `fallbackMode`) never applies here: whole GPUs need an empty GPU, and under `auto` an empty
 * GPU can always be switched into MIG mode for the instance. So jobs are given their mode
 * explicitly.
 *
 * MIG mode of a GPU: under `--sharing mig` every GPU is in MIG mode from the start; under `auto` a
 * MIG job goes to a GPU already in MIG mode when one has room, else the lowest-index empty GPU of
 * the node is switched into MIG mode (one more if the job needs more GPUs); switches that did not
 * lead to a placement are undone and not counted. Without departures a MIG GPU never empties, so
 * no GPU is switched out of MIG mode.
 *
 * Tenants (`tenants`, `mpsOneTenantPerGpu`): an MPS GPU takes MPS pods of one tenant at a time
 * (docs/decisions/0014), so with several tenants MPS node choice uses one mirror per tenant.
 *
 * CPU-only pods take host CPU and memory only: they are placed by the `default` policy on the
 * exclusive mirror and never reach a node's cluster state (it holds GPU placements only), so the host
 * resources of a node are accounted here, and checked through the mirrors before a server is asked.
 */
import {
  buildTargetWorkload,
  ClusterState,
  findPolicy,
  GPU_MILLI_PER_GPU,
  migGeometry,
  type Assignment,
  type EffectiveMode,
  type GpuDevice,
  type NodeSpec,
  type JobRequest,
  type Placement,
  type ResourceDemand,
  type Rng,
  type TaskShape,
} from '../../core/index.js';
import { ModeMirror } from './mode-mirror.js';
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

/** Which mirror a mode's node choice uses (`mps:<tenant>`: the MPS view of one tenant, under the one-tenant rule). */
type MirrorKey = 'exclusive' | 'mig' | 'mps' | 'timeslice' | `mps:${string}`;

/** The usage of one node's GPUs, kept in step with its cluster state's placements. */
class NodeLedger {
  cpuMilli = 0;
  hostMemoryMiB = 0;
  /**
   * milli-GPU reserved per GPU: accounted milli, or for a MIG GPU round(1000 × compute slices held / slices of the
   * GPU).
   */
  readonly usedMilli: Int32Array;
  readonly computeSlices: Int32Array;
  readonly memorySlices: Int32Array;
  readonly jobs: Int32Array;
  readonly mode: (EffectiveMode | null)[];
  readonly migEnabled: boolean[];
  /** Tenant of the `mps` jobs per GPU (null: none); one per GPU under the one-tenant rule. */
  readonly mpsTenant: (string | null)[];

  constructor(gpuCount: number, migEnabled: boolean) {
    this.mpsTenant = new Array<string | null>(gpuCount).fill(null);
    this.usedMilli = new Int32Array(gpuCount);
    this.computeSlices = new Int32Array(gpuCount);
    this.memorySlices = new Int32Array(gpuCount);
    this.jobs = new Int32Array(gpuCount);
    this.mode = new Array<EffectiveMode | null>(gpuCount).fill(migEnabled ? 'mig' : null);
    this.migEnabled = new Array<boolean>(gpuCount).fill(migEnabled);
  }
}

/** The hybrid cluster: server schedulers, their usage, and the mirrors that choose nodes. */
export class HybridCluster {
  /** The placement state of each node (replaced when a GPU of the node switches MIG mode). */
  private readonly servers: ClusterState[];
  /** What each node holds (with the job's tenant), to rebuild its state after a MIG switch. */
  private readonly held: { assignment: Assignment; tenant: string }[][];
  /** True when MPS node choice uses one mirror per tenant (the one-tenant rule with several tenants). */
  private readonly mpsPerTenant: boolean;
  private readonly ledgers: readonly NodeLedger[];
  private readonly devices: GpuDevice[][];
  private readonly mirrors = new Map<MirrorKey, ModeMirror>();
  private readonly mirrorList: { key: MirrorKey; mirror: ModeMirror }[] = [];
  private readonly decisions = new Map<string, ModeDecision>();
  private readonly sliceCount: number;
  private readonly memorySliceCount: number;
  /** Server refusals of a node the mirror chose (each costs one more node choice). */
  refusals = 0;
  private nextJobId = 0;
  private reservedTotal = 0;

  /** @throws RangeError for `--sharing mig` on a model without MIG */
  constructor(private readonly options: HybridClusterOptions) {
    const { nodes, gpuModel, sharing } = options;
    const geometry = migGeometry(gpuModel.name);
    if (sharing === 'mig' && !geometry)
      throw new RangeError(`--sharing mig needs a MIG-capable GPU model; ${gpuModel.name} has none`);
    this.sliceCount = geometry?.computeSlices ?? 7;
    this.memorySliceCount = geometry?.memorySlices ?? 8;
    const startInMig = sharing === 'mig';
    this.devices = nodes.map((node, n) =>
      Array.from({ length: node.gpuCount }, (_, j): GpuDevice => ({
        index: j,
        uuid: `GPU-sim-${n}-${j}`,
        model: gpuModel.name,
        gpuMemoryMiB: gpuModel.gpuMemoryMiB,
        migEnabled: startInMig,
        schedulable: true,
      })),
    );
    this.held = nodes.map(() => []);
    this.servers = nodes.map((_, n) => this.nodeState(n));
    this.ledgers = nodes.map((node) => new NodeLedger(node.gpuCount, startInMig));

    const workload = buildTargetWorkload(options.workloadShapes);
    const policy = findPolicy('default')!;
    const tenants = options.tenants ?? [DEFAULT_TENANT];
    this.mpsPerTenant =
      (options.mpsOneTenantPerGpu ?? true) && tenants.length > 1 && (sharing === 'auto' || sharing === 'mps');
    const keys: MirrorKey[] =
      sharing === 'auto'
        ? ['exclusive', 'mig', 'mps', 'timeslice']
        : sharing === 'mig'
          ? ['exclusive', 'mig']
          : ['exclusive'];
    if (this.mpsPerTenant) keys.push(...tenants.map((t): MirrorKey => `mps:${t}`));
    for (const key of keys) {
      const specs: NodeSpec[] = nodes.map((node) => ({
        name: node.name,
        cpuMilli: node.cpuMilli,
        hostMemoryMiB: node.hostMemoryMiB,
        gpuCount: node.gpuCount,
        gpuModel: gpuModel.name,
        // The MIG mirror counts GPU "memory" in memory slices.
        gpuMemoryMiB: key === 'mig' ? this.memorySliceCount : null,
      }));
      const mirror = new ModeMirror(
        specs,
        policy.create({ nodeCount: nodes.length, targetWorkload: workload }),
        options.nodeRank,
        options.rng,
      );
      this.mirrors.set(key, mirror);
      this.mirrorList.push({ key, mirror });
    }
    // Under mps or timeslice every GPU runs that mode or exclusive, so the exclusive mirror shows
    // exactly what a sharing job can use.
    if (sharing === 'mps' || sharing === 'timeslice') this.mirrors.set(sharing, this.mirrors.get('exclusive')!);
    for (let n = 0; n < nodes.length; n++) this.syncMirrors(n);
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
   * Places `pod` for good, or reports that it fits nowhere: node choice by the `default` policy on
   * the mirror of the pod's mode (for `mps` under the one-tenant rule, the mirror of its tenant,
   * where GPUs running other tenants' MPS pods show no room), then the node's server scheduler
   * (next best node on a refusal).
   * @throws RangeError for a pod of a tenant not in `options.tenants`
   */
  place(pod: HybridPod): HybridOutcome {
    if (pod.gpuCount === 0) return this.placeCpuOnly(pod);
    const decision = this.decide(pod);
    const tenant = pod.tenant ?? DEFAULT_TENANT;
    const mirror = this.mirrors.get(decision.mode === 'mps' && this.mpsPerTenant ? `mps:${tenant}` : decision.mode);
    if (!mirror)
      throw new RangeError(
        `pod of tenant ${tenant}: not one of the cluster's tenants (` +
          `${(this.options.tenants ?? [DEFAULT_TENANT]).join(', ')})`,
      );
    const request = this.mirrorRequest(pod, decision);
    const job: JobRequest = {
      id: ++this.nextJobId,
      tenant,
      priority: 0,
      submittedAtMs: 0,
      cpuMilli: pod.cpuMilli,
      hostMemoryMiB: pod.hostMemoryMiB,
      gpu: { gpuCount: pod.gpuCount, gpuMilli: pod.gpuMilli, gpuMemoryMiB: decision.gpuMemoryMiB, mode: decision.mode },
    };
    const masked: number[] = [];
    let outcome: HybridOutcome = { kind: 'failed', decision };
    for (;;) {
      const choice = mirror.scheduler.schedule(request);
      if (choice.kind !== 'placed') break;
      const n = choice.nodeIndex;
      const placed = decision.mode === 'mig' ? this.placeMig(n, job) : this.placeOn(n, job);
      if (placed) {
        outcome = { kind: 'placed', nodeIndex: n, decision, placement: placed.placement, migSwitches: placed.switches };
        break;
      }
      this.refusals++;
      mirror.setNodeEligible(n, false);
      masked.push(n);
    }
    for (const n of masked) mirror.setNodeEligible(n, true);
    if (outcome.kind === 'placed') {
      this.record(outcome.nodeIndex, pod, outcome.placement!, tenant);
      this.syncMirrors(outcome.nodeIndex);
    }
    return outcome;
  }

  /** Per node and GPU: mode, MIG state, jobs and reserved milli (for tests and metrics). */
  gpuStates(): {
    node: number;
    gpu: number;
    mode: EffectiveMode | null;
    migEnabled: boolean;
    jobs: number;
    usedMilli: number;
  }[] {
    return this.ledgers.flatMap((l, node) =>
      Array.from(l.usedMilli, (usedMilli, gpu) => ({
        node,
        gpu,
        mode: l.mode[gpu]!,
        migEnabled: l.migEnabled[gpu]!,
        jobs: l.jobs[gpu]!,
        usedMilli,
      })),
    );
  }

  /** The GPUs of node `n` as its placement state sees them (MIG mode included). */
  nodeGpus(n: number): GpuDevice[] {
    return [...this.servers[n]!.nodes[0]!.devices.values()].map((d) => d.device).sort((a, b) => a.index - b.index);
  }

  /** Σ reserved milli-GPU over the cluster (MIG GPUs by compute slices, as in the ledgers). */
  get reservedMilli(): number {
    return this.reservedTotal;
  }

  private placeCpuOnly(pod: HybridPod): HybridOutcome {
    const mirror = this.mirrors.get('exclusive')!;
    const choice = mirror.scheduler.schedule({
      cpuMilli: pod.cpuMilli,
      hostMemoryMiB: pod.hostMemoryMiB,
      gpuCount: 0,
      gpuMilli: 0,
      gpuMemoryMiB: 0,
      allowedGpuModels: [],
    });
    if (choice.kind !== 'placed') return { kind: 'failed', decision: null };
    const ledger = this.ledgers[choice.nodeIndex]!;
    ledger.cpuMilli += pod.cpuMilli;
    ledger.hostMemoryMiB += pod.hostMemoryMiB;
    this.syncMirrors(choice.nodeIndex);
    return { kind: 'placed', nodeIndex: choice.nodeIndex, decision: null, placement: null, migSwitches: 0 };
  }

  /** The request a mirror schedules for `pod` in its mode. */
  private mirrorRequest(pod: HybridPod, decision: ModeDecision): ResourceDemand {
    const base = {
      cpuMilli: pod.cpuMilli,
      hostMemoryMiB: pod.hostMemoryMiB,
      gpuCount: pod.gpuCount,
      allowedGpuModels: [],
    };
    switch (decision.mode) {
      case 'exclusive':
        return { ...base, gpuMilli: GPU_MILLI_PER_GPU, gpuMemoryMiB: 0 };
      case 'mig':
        return {
          ...base,
          gpuMilli: this.sliceMilli(decision.migProfile!.computeSlices),
          gpuMemoryMiB: decision.migProfile!.memorySlices,
        };
      default:
        return { ...base, gpuMilli: pod.gpuMilli, gpuMemoryMiB: 0 };
    }
  }

  /**
   * The placement state of node `n` alone: its GPUs as they are now and what it holds. The `default` policy learns its
   * workload online, per node.
   */
  private nodeState(n: number): ClusterState {
    const node = this.options.nodes[n]!;
    return new ClusterState(
      {
        nodes: [
          { name: node.name, hostCpuMilli: node.cpuMilli, hostMemoryMiB: node.hostMemoryMiB, gpus: this.devices[n]! },
        ],
        active: this.held[n]!.map(({ assignment, tenant }) => ({
          request: {
            id: assignment.jobId,
            tenant,
            priority: 0,
            submittedAtMs: 0,
            cpuMilli: assignment.cpuMilli,
            hostMemoryMiB: assignment.hostMemoryMiB,
            gpu: {
              gpuCount: assignment.placement.gpus.length,
              gpuMilli: assignment.placement.gpus[0]!.gpuMilli,
              gpuMemoryMiB: null,
              mode: assignment.placement.mode,
            },
          },
          assignment,
          preemptible: false,
          startedAtMs: 0,
          preemptionCount: 0,
          stopping: false,
        })),
      },
      {
        profile: (unitCount) => findPolicy('default')!.create({ nodeCount: unitCount }),
        rng: this.options.rng,
        timesliceOvercommitRatio: 1,
        mpsOneTenantPerGpu: this.options.mpsOneTenantPerGpu ?? true,
      },
    );
  }

  /** Asks node `n`'s state to place `job` as it stands. */
  private placeOn(n: number, job: JobRequest): { placement: Placement; switches: number } | null {
    const outcome = this.servers[n]!.tryPlace(job);
    if (outcome.kind !== 'placed') return null;
    this.held[n]!.push({
      assignment: {
        jobId: job.id,
        node: outcome.node,
        cpuMilli: job.cpuMilli,
        hostMemoryMiB: job.hostMemoryMiB,
        placement: outcome.placement,
      },
      tenant: job.tenant,
    });
    return { placement: outcome.placement, switches: 0 };
  }

  /**
   * A MIG job on node `n`: on the GPUs in MIG mode first; under `auto`, then switching empty GPUs
   * into MIG mode one at a time (lowest index first). Undoes the switches when it still fails.
   */
  private placeMig(n: number, job: JobRequest): { placement: Placement; switches: number } | null {
    const first = this.placeOn(n, job);
    if (first || this.options.sharing !== 'auto') return first;
    const ledger = this.ledgers[n]!;
    const devices = this.devices[n]!;
    const switched: number[] = [];
    let result: { placement: Placement; switches: number } | null = null;
    for (let j = 0; j < devices.length && !result; j++) {
      if (ledger.migEnabled[j] || ledger.jobs[j]! > 0) continue;
      this.setMig(n, j, true);
      switched.push(j);
      result = this.placeOn(n, job);
    }
    if (!result) {
      for (const j of switched) this.setMig(n, j, false);
      return null;
    }
    // Keep only the switched GPUs the job landed on (the others were needed to find room but got nothing).
    const used = new Set(result.placement.gpus.map((g) => g.index));
    for (const j of switched) if (!used.has(j)) this.setMig(n, j, false);
    return { placement: result.placement, switches: switched.filter((j) => used.has(j)).length };
  }

  private setMig(n: number, j: number, enabled: boolean): void {
    const devices = this.devices[n]!;
    devices[j] = { ...devices[j]!, migEnabled: enabled };
    this.servers[n] = this.nodeState(n);
    const ledger = this.ledgers[n]!;
    ledger.migEnabled[j] = enabled;
    ledger.mode[j] = enabled ? 'mig' : null;
  }

  /** Books a placement of a job of `tenant` on node `n`'s ledger. */
  private record(n: number, pod: HybridPod, placement: Placement, tenant: string): void {
    const ledger = this.ledgers[n]!;
    ledger.cpuMilli += pod.cpuMilli;
    ledger.hostMemoryMiB += pod.hostMemoryMiB;
    for (const gpu of placement.gpus) {
      const j = gpu.index;
      const before = ledger.usedMilli[j]!;
      ledger.mode[j] = placement.mode;
      ledger.jobs[j]!++;
      if (placement.mode === 'mps')
        ledger.mpsTenant[j] = ledger.mpsTenant[j] === null || ledger.mpsTenant[j] === tenant ? tenant : '';
      if (gpu.mig) {
        ledger.computeSlices[j]! += gpu.mig.computeSlices;
        ledger.memorySlices[j]! += gpu.mig.size;
        ledger.usedMilli[j] = this.sliceMilli(ledger.computeSlices[j]!);
      } else {
        ledger.usedMilli[j]! += gpu.accountedGpuMilli;
      }
      this.reservedTotal += ledger.usedMilli[j]! - before;
    }
  }

  /** Shows node `n`'s usage in every mirror. */
  private syncMirrors(n: number): void {
    const ledger = this.ledgers[n]!;
    const gpus = ledger.usedMilli.length;
    const canSwitch = this.options.sharing === 'auto';
    for (const { key, mirror } of this.mirrorList) {
      const taken = new Int32Array(gpus);
      const takenMemory = new Int32Array(gpus);
      for (let j = 0; j < gpus; j++) {
        const mode = ledger.mode[j];
        if (key === 'exclusive') {
          taken[j] = ledger.usedMilli[j]!;
        } else if (key === 'mig') {
          const usable = ledger.migEnabled[j] || (canSwitch && ledger.jobs[j] === 0);
          taken[j] = usable ? ledger.usedMilli[j]! : GPU_MILLI_PER_GPU;
          takenMemory[j] = usable ? ledger.memorySlices[j]! : this.memorySliceCount;
        } else if (key.startsWith('mps:')) {
          const owner = ledger.mpsTenant[j];
          taken[j] =
            (mode === null || mode === 'mps') && (owner === null || owner === key.slice(4))
              ? ledger.usedMilli[j]!
              : GPU_MILLI_PER_GPU;
        } else {
          taken[j] = mode === null || mode === key ? ledger.usedMilli[j]! : GPU_MILLI_PER_GPU;
        }
      }
      mirror.sync(n, {
        cpuMilli: ledger.cpuMilli,
        hostMemoryMiB: ledger.hostMemoryMiB,
        gpuTakenMilli: taken,
        gpuTakenMemory: takenMemory,
      });
    }
  }
}

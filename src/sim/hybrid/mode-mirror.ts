/**
 * A "mirror" of the cluster for node choice in one sharing mode: one core `NodeState` per node and
 * a core `Scheduler` with the `default` policy over them. A mirror node's host CPU and memory are
 * the node's; each GPU shows what a job of this mode could still use of it (0 when the GPU runs
 * another mode). The mirror only picks the node; the node's `ClusterState` places the job with
 * the core's per-GPU rules (docs/simulator.md "Hybrid sharing").
 *
 * Mirror nodes change only through the core's `commit`/`uncommit`: `sync` gives back what it took
 * last time and takes the node's new usage, as one CPU/memory request and one request per used GPU.
 */
import {
  Scheduler,
  type NodeSpec,
  type NodeState,
  type ResourceDemand,
  type Rng,
  type SchedulingProfile,
  createNodeStates,
} from '../../core/index.js';

/** What a node's GPUs and host resources look like to one mode. */
export interface MirrorUsage {
  /** Host CPU in use, milli-cores. */
  readonly cpuMilli: number;
  /** Host memory in use, MiB. */
  readonly hostMemoryMiB: number;
  /** Per GPU: milli-GPU not available to this mode (used, or the whole GPU when it runs another mode). */
  readonly gpuTakenMilli: ArrayLike<number>;
  /** Per GPU: memory units not available (only in mirrors whose nodes track GPU memory; else 0). */
  readonly gpuTakenMemory: ArrayLike<number>;
}

interface Applied {
  readonly request: ResourceDemand;
  readonly gpus: readonly number[];
}

/** One mode's view of the cluster, and the core scheduler over it. */
export class ModeMirror {
  readonly nodes: readonly NodeState[];
  readonly scheduler: Scheduler;
  private readonly applied: Applied[][];

  /**
   * @param specs node specs (index = node index); `gpuMemoryMiB` null unless the mirror tracks GPU memory
   * @param profile the scheduling profile (the `default` policy)
   * @param nodeRank tie-break rank per node (lower wins)
   */
  constructor(specs: readonly NodeSpec[], profile: SchedulingProfile, nodeRank: Int32Array, rng: Rng) {
    this.nodes = createNodeStates(specs);
    this.scheduler = new Scheduler({ nodes: this.nodes, nodeRank }, profile, rng);
    this.applied = specs.map(() => []);
  }

  /** Makes node `index` show `usage`. */
  sync(index: number, usage: MirrorUsage): void {
    const applied = this.applied[index]!;
    for (const a of applied) this.scheduler.uncommit(a.request, index, a.gpus);
    applied.length = 0;
    const take = (request: ResourceDemand, gpus: readonly number[]): void => {
      this.scheduler.commit(request, index, gpus);
      applied.push({ request, gpus });
    };
    if (usage.cpuMilli > 0 || usage.hostMemoryMiB > 0) {
      take(
        {
          cpuMilli: usage.cpuMilli,
          hostMemoryMiB: usage.hostMemoryMiB,
          gpuCount: 0,
          gpuMilli: 0,
          gpuMemoryMiB: 0,
          allowedGpuModels: [],
        },
        [],
      );
    }
    for (let j = 0; j < usage.gpuTakenMilli.length; j++) {
      const milli = usage.gpuTakenMilli[j]!;
      const memory = usage.gpuTakenMemory[j]!;
      if (milli > 0 || memory > 0)
        take(
          { cpuMilli: 0, hostMemoryMiB: 0, gpuCount: 1, gpuMilli: milli, gpuMemoryMiB: memory, allowedGpuModels: [] },
          [j],
        );
    }
  }

  /** Masks every GPU of node `index` out (`false`) or back in, so the scheduler passes it over. */
  setNodeEligible(index: number, eligible: boolean): void {
    const node = this.nodes[index]!;
    for (let j = 0; j < node.gpuEligible.length; j++) node.setGpuEligible(j, eligible);
  }
}

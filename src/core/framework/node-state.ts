/**
 * A scheduling node as the framework's cycle sees it: static capacity plus mutable free amounts.
 * One per GPU model of a cluster node (framework/unit-groups.ts); the simulator's trace nodes have
 * one model each. Mutated only through `allocation.ts` (allocate/release), which keep every
 * invariant.
 */
import { InvariantViolation } from '../model/errors.js';
import { GPU_MILLI_PER_GPU, isNonNegativeInteger } from '../model/quantity.js';

/** Static description of a node. */
export interface NodeSpec {
  /** Unique node name. */
  readonly name: string;
  /** CPU capacity in milli-cores. */
  readonly cpuMilli: number;
  /** Host memory capacity in MiB (the trace's `memory_mib`). */
  readonly hostMemoryMiB: number;
  /** Number of GPUs (all of one model). */
  readonly gpuCount: number;
  /** GPU model name (catalog name or trace code); null when the node has no GPU. */
  readonly gpuModel: string | null;
  /** Memory of each GPU in MiB; null when unknown (then GPU memory requests cannot be placed here). */
  readonly gpuMemoryMiB: number | null;
}

/**
 * Live state of one node. Fields are public for speed on the scheduling hot path but must only be
 * changed by `allocate`/`release`. `version` increases on every change so caches can be keyed on it.
 */
export class NodeState {
  freeCpuMilli: number;
  freeHostMemoryMiB: number;
  /** Free milli-GPU of each GPU, by device index (0..1000). */
  readonly gpuFreeMilli: Int32Array;
  /** Free GPU memory of each GPU in MiB; -1 when the model's memory is unknown (untracked). */
  readonly gpuFreeMemoryMiB: Float64Array;
  /**
   * 1 when GPU `j` may take the request being scheduled, 0 when it is masked out (unhealthy,
   * cordoned, or running another sharing mode). All 1 unless a caller masks GPUs; the simulator
   * never does. Change only through `setGpuEligible`.
   */
  readonly gpuEligible: Uint8Array;
  /** Number of pods bound to this node. */
  podCount = 0;
  /** Incremented on every allocate/release. */
  version = 0;

  /**
   * @param index position of the node in its cluster (stable id for arrays and caches)
   * @param spec static capacity; validated here
   * @throws InvariantViolation when a capacity is not a non-negative integer
   */
  constructor(
    readonly index: number,
    readonly spec: NodeSpec,
  ) {
    for (const field of ['cpuMilli', 'hostMemoryMiB', 'gpuCount'] as const) {
      if (!isNonNegativeInteger(spec[field])) {
        throw new InvariantViolation(`node ${spec.name}: ${field} must be a non-negative integer, got ${spec[field]}`);
      }
    }
    this.freeCpuMilli = spec.cpuMilli;
    this.freeHostMemoryMiB = spec.hostMemoryMiB;
    this.gpuFreeMilli = new Int32Array(spec.gpuCount).fill(GPU_MILLI_PER_GPU);
    this.gpuFreeMemoryMiB = new Float64Array(spec.gpuCount).fill(spec.gpuMemoryMiB ?? -1);
    this.gpuEligible = new Uint8Array(spec.gpuCount).fill(1);
  }

  /**
   * Masks GPU `j` in or out for the next placements (filters and GPU selection skip masked GPUs).
   * Bumps `version` when the mask changes, so cached scores are not reused across masks.
   */
  setGpuEligible(j: number, eligible: boolean): void {
    const value = eligible ? 1 : 0;
    if (this.gpuEligible[j] === value) return;
    this.gpuEligible[j] = value;
    this.version++;
  }

  /** Σ free milli-GPU over the node's GPUs (the FGD paper's G_n). */
  idleGpuMilli(): number {
    let sum = 0;
    for (let j = 0; j < this.gpuFreeMilli.length; j++) sum += this.gpuFreeMilli[j]!;
    return sum;
  }

  /** Number of GPUs with all 1000 milli free. */
  fullyFreeGpuCount(): number {
    let n = 0;
    for (let j = 0; j < this.gpuFreeMilli.length; j++) if (this.gpuFreeMilli[j] === GPU_MILLI_PER_GPU) n++;
    return n;
  }

  /** True when no GPU of the node carries any allocation. */
  isGpuIdle(): boolean {
    return this.fullyFreeGpuCount() === this.gpuFreeMilli.length;
  }
}

/** Builds the live state of each spec, indexed by position. */
export function createNodeStates(specs: readonly NodeSpec[]): NodeState[] {
  return specs.map((spec, i) => new NodeState(i, spec));
}

/**
 * Result shapes of the hybrid-sharing packing replay (`gpushare simulate --sharing`), shared by the
 * runner, the JSON output, the console table and the HTML report.
 */
import type { EffectiveMode, IsolationLevel } from '../../core/index.js';
import type { MeanSd } from '../simulation-types.js';
import type { SharingSetting } from './pod-mode.js';

/** How the GPU pods of one isolation level were placed. */
export interface IsolationOutcome {
  /** GPU pods of this isolation that arrived. */
  readonly pods: number;
  /** Placed on MIG instances (hardware isolation). */
  readonly mig: number;
  /** Placed on whole GPUs of their own (`exclusive`). */
  readonly exclusive: number;
  /** Placed on a GPU shared by MPS or time-slicing. */
  readonly shared: number;
  readonly failed: number;
}

/** Result of one (sharing, seed) replay. */
export interface HybridRunResult {
  readonly sharing: SharingSetting;
  readonly seed: number;
  /** Tenants the pods were spread over (`--tenants`). */
  readonly tenants: number;
  /** Whether an MPS GPU took one tenant's jobs only (false with `--mps-any-tenant`). */
  readonly mpsOneTenantPerGpu: boolean;
  /** % of the arrived GPU pods that were placed. */
  readonly placedGpuPodsPct: number;
  /** GPUs running MPS jobs at the end. */
  readonly mpsGpus: number;
  /** 100 − A(100), A = reserved milli-GPU / capacity (a MIG instance reserves its compute slices / 7 of its GPU). */
  readonly unallocatedPctAt100: number;
  /** 100 − A(130). */
  readonly unallocatedPctAt130: number;
  /**
   * 100 − A′(100), A′ = requested milli-GPU of the placed pods / capacity (the share a MIG instance holds beyond its
   * pod's request counts as unallocated).
   */
  readonly unrequestedPctAt100: number;
  /** Pods that fit on no node (CPU-only ones included). */
  readonly failedPods: number;
  /** Of those, pods that ask for GPUs. */
  readonly failedGpuPods: number;
  /** Arrivals replayed (originals plus inflation copies). */
  readonly arrivals: number;
  /** GPU pods placed, and how many in each mode. */
  readonly placedGpuPods: number;
  readonly placedByMode: Readonly<Record<EffectiveMode, number>>;
  /** % of the placed GPU pods on MIG instances (hardware isolation); NaN without placed GPU pods. */
  readonly hardwareIsolatedPct: number;
  /** GPU instances created (one per GPU of each MIG placement). */
  readonly giCreations: number;
  /** GPUs switched into or out of MIG mode (under `mig`: every GPU, once, before the first arrival). */
  readonly migModeSwitches: number;
  /** giCreations + migModeSwitches. */
  readonly reconfigurations: number;
  /** GPUs that hold at least one MIG instance at the end. */
  readonly gpusWithMigJobs: number;
  /**
   * % of the placed strict pods that got a MIG instance or whole GPUs of their own (not a shared GPU); NaN when none
   * was placed.
   */
  readonly strictIsolatedPct: number;
  /** Placement of the GPU pods per isolation level. */
  readonly byIsolation: Readonly<Record<IsolationLevel, IsolationOutcome>>;
  /**
   * Times the node the view of a pod's mode chose refused it (a MIG layout without a valid start); the next node was
   * tried then.
   */
  readonly serverRefusals: number;
  readonly wallSeconds: number;
  /** A(x), x = 0..130, in % (null where the bin is empty). */
  readonly allocationPct: readonly (number | null)[];
  /** A′(x), x = 0..130, by requested milli-GPU. */
  readonly requestedAllocationPct: readonly (number | null)[];
}

/** Means over seeds of one sharing setting. */
export interface HybridSummary {
  readonly sharing: SharingSetting;
  readonly seeds: readonly number[];
  readonly unallocatedPctAt100: MeanSd;
  readonly unallocatedPctAt130: MeanSd;
  readonly unrequestedPctAt100: MeanSd;
  readonly failedPods: MeanSd;
  readonly placedGpuPodsPct: MeanSd;
  readonly mpsGpus: MeanSd;
  readonly hardwareIsolatedPct: MeanSd;
  readonly strictIsolatedPct: MeanSd;
  readonly giCreations: MeanSd;
  readonly migModeSwitches: MeanSd;
  readonly reconfigurations: MeanSd;
  /** Strict pods: mean placed on MIG, on whole GPUs, shared, failed. */
  readonly strictMig: MeanSd;
  readonly strictExclusive: MeanSd;
  readonly strictShared: MeanSd;
  readonly strictFailed: MeanSd;
  readonly meanAllocationPct: readonly (number | null)[];
  readonly meanRequestedAllocationPct: readonly (number | null)[];
}

/** Everything one `gpushare simulate --sharing` invocation produced. */
export interface HybridReport {
  readonly replay: 'packing';
  /** The `--sharing` settings, in the order given. */
  readonly sharing: readonly SharingSetting[];
  /** The catalog model every GPU was given (`--gpu-model`). */
  readonly gpuModel: string;
  readonly gpuMemoryMiB: number;
  /** Node choice policy (always `default`). */
  readonly policy: 'default';
  readonly cluster: { readonly nodes: number; readonly gpus: number };
  readonly inputs: { readonly nodesFile: string; readonly podsFile: string; readonly pods: number };
  readonly inflation: number;
  /** Tenants the pods were spread over, and whether the one-tenant-per-MPS-GPU rule applied. */
  readonly tenants: number;
  readonly mpsOneTenantPerGpu: boolean;
  /** How the trace's columns map to jobs, and how each figure is counted (plain text). */
  readonly definitions: Readonly<Record<string, string>>;
  readonly runs: readonly HybridRunResult[];
  readonly summary: readonly HybridSummary[];
  readonly generatedAt: string;
}

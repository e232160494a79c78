/**
 * The outcome of one scheduling pass (core/schedule.ts): what the caller applies, in one store
 * transaction, and what it shows for the jobs that wait. The core decides; the app acts. A Plan is
 * plain data (no Map, no closure, no getter): it survives `JSON.parse(JSON.stringify(plan))`
 * unchanged, so it can be logged, stored, sent and compared.
 */
import type { MigChanges, Placement } from '../model/assignment.js';
import type { WaitReason } from '../model/status.js';
import type { UnvisitedWaits } from '../pass/unvisited-waits.js';

/** A job placed by the pass. */
export interface PlannedPlacement {
  readonly jobId: number;
  /** Node it goes to. */
  readonly node: string;
  /** GPUs, shares and MIG instances; `gpus[].migChanges` says which GIs to destroy and create first. */
  readonly placement: Placement;
}

/** A job the pass left waiting, and why (the reason's costly figures: SchedulingSession.explainWait). */
export interface PlannedWait {
  readonly jobId: number;
  readonly reason: WaitReason;
}

/** Running jobs to stop (with the preemption signal) so that a waiting job fits. */
export interface PlannedPreemption {
  readonly preemptorId: number;
  /** Ascending job ids, never empty. */
  readonly victimIds: readonly number[];
  /**
   * GPU-equivalents × seconds of work the victims lose: counted from their attempts' starts, or
   * from their last checkpoint with the preemption setting `checkpointIntervalSeconds`.
   */
  readonly lostWorkGpuSeconds: number;
}

/** A MIG layout change the placements need, per GPU (the same facts as `migChanges`, by GPU). */
export interface MigReconfiguration {
  readonly node: string;
  readonly gpuIndex: number;
  /** The job whose instance needs it. */
  readonly jobId: number;
  readonly changes: MigChanges;
}

/** Everything one pass decided. */
export interface Plan {
  /** In the order they were made. */
  readonly placements: readonly PlannedPlacement[];
  /** At most one preemption per pass; null for none. */
  readonly preemption: PlannedPreemption | null;
  readonly migReconfigurations: readonly MigReconfiguration[];
  /** Why each pending job the pass visited and did not place waits, in queue order. */
  readonly waiting: readonly PlannedWait[];
  /**
   * Null when `waiting` holds every job that waits; else (a pass over a QueueIndex that stopped
   * early, run-pass.ts) the data of why a waiting job missing from `waiting` waits: unvisitedWait().
   */
  readonly unvisited: UnvisitedWaits | null;
  /** The first job that could not be placed for lack of capacity (the one backfill protects); null when none. */
  readonly blockedJobId: number | null;
}

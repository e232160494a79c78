/**
 * A scheduling transaction over a `ClusterState` (after KAI-Scheduler's Statement): placements and
 * evictions are made on the state as they are tried, so later tries see them; `checkpoint` and
 * `rollback` undo a try exactly (a backfill that would delay the blocked job, a what-if for
 * preemption); what is kept at the end becomes the `Plan`'s placements and MIG changes.
 */
import type { JobRequest } from '../model/request.js';
import type { ClusterState, PlaceOutcome } from './cluster-state.js';
import type { FailedSearches } from './failed-searches.js';
import type { MigReconfiguration, PlannedPlacement } from './plan.js';
import type { GpuExclusion } from './shared-placement.js';

/** A point a statement can roll back to. */
export interface Checkpoint {
  readonly position: number;
  readonly placements: number;
}

/** Placements and evictions on a cluster state, with rollback. */
export class Statement {
  private readonly made: PlannedPlacement[] = [];

  /** Starts recording the state's changes. */
  constructor(readonly state: ClusterState) {
    state.mark();
  }

  /** The current point. */
  checkpoint(): Checkpoint {
    return { position: this.state.mark(), placements: this.made.length };
  }

  /** Undoes every placement and eviction made since `checkpoint` returned `to`. */
  rollback(to: Checkpoint): void {
    this.state.undoTo(to.position);
    this.made.length = to.placements;
  }

  /** Tries to place `job` (held at once on success). See `ClusterState.tryPlace`. */
  place(job: JobRequest, failed: FailedSearches | null = null, excluded: GpuExclusion | null = null): PlaceOutcome {
    const outcome = this.state.tryPlace(job, failed, excluded);
    if (outcome.kind === 'placed') this.made.push({ jobId: job.id, node: outcome.node, placement: outcome.placement });
    return outcome;
  }

  /** Frees what job `jobId` holds (a victim, a departure). */
  evict(jobId: number): void {
    this.state.release(jobId);
  }

  /**
   * True when `job` would fit with the jobs `jobIds` evicted, leaving the state as it was (the
   * preemption planner's and backfill's oracle).
   */
  fitsWithout(job: JobRequest, jobIds: readonly number[], excluded: GpuExclusion | null = null): boolean {
    const point = this.checkpoint();
    for (const id of jobIds) this.evict(id);
    const fits = this.state.fits(job, excluded);
    this.rollback(point);
    return fits;
  }

  /** The placements kept so far, in the order they were made. */
  placements(): readonly PlannedPlacement[] {
    return this.made;
  }

  /** The MIG layout changes the kept placements need, per GPU. */
  migReconfigurations(): MigReconfiguration[] {
    return this.made.flatMap(({ jobId, node, placement }) =>
      placement.gpus
        .filter(
          (g) => g.migChanges !== undefined && (g.migChanges.destroy.length > 0 || g.migChanges.create.length > 0),
        )
        .map((g) => ({ node, gpuIndex: g.index, jobId, changes: g.migChanges! })),
    );
  }

  /** Ends the statement: keeps everything not rolled back and stops recording. */
  commit(): void {
    this.state.stopRecording();
  }
}

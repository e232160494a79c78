/**
 * Log retention: the folders of jobs that ended (`succeeded`, `failed`, `cancelled`) longer ago
 * than `logRetentionMs` are removed through the `JobFiles` port (logs, outcome files, checkpoints);
 * the jobs' records stay in the store. The control plane sweeps at least hourly.
 */
import type { Clock } from '../ports/clock.js';
import type { JobFiles } from '../ports/job-files.js';
import type { StateStore } from '../ports/state-store.js';
import type { ControlPlaneSettings } from './plane-deps.js';

/** What a sweep uses: the store to read ended jobs from, their files, the time and the retention. */
export interface RetentionDeps {
  readonly store: StateStore;
  readonly files: JobFiles;
  readonly clock: Clock;
  /** `logRetentionMs`: folders of jobs that ended longer ago than this are removed, ms. */
  readonly settings: Pick<ControlPlaneSettings, 'logRetentionMs'>;
}

/** Removes the folders of jobs that ended before the retention period. */
export class Retention {
  constructor(private readonly deps: RetentionDeps) {}

  /** How often to sweep, ms: the retention period, at most one hour. */
  get intervalMs(): number {
    return Math.min(this.deps.settings.logRetentionMs, 3_600_000);
  }

  /**
   * Removes the folder of every ended job whose `endedAtMs` is before now − logRetentionMs.
   * @returns the folders removed, in the store's order of jobs (each sweep removes them again: the
   *   store keeps a job's folder name, and removing a folder that is gone does nothing)
   */
  sweep(): string[] {
    const { store, files, clock, settings } = this.deps;
    const cutoff = clock.nowMs() - settings.logRetentionMs;
    const removed: string[] = [];
    for (const job of store.listJobs({ states: ['succeeded', 'failed', 'cancelled'] })) {
      if (job.folder === null || job.endedAtMs === null || job.endedAtMs >= cutoff) continue;
      files.remove(job.folder);
      removed.push(job.folder);
    }
    return removed;
  }
}

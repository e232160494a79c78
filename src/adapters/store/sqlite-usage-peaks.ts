/**
 * The usage-peak part of the SQLite state store (table `job_usage_peaks`, migration 12; StateStore's
 * `raiseUsagePeaks` and `getUsagePeak`; src/adapters/store/sqlite-store.ts composes it). A peak is
 * written only when one of its values rises (app/usage/raised-peak.ts), all updates of a call in one
 * transaction through the store's own wrapper.
 */
import type Database from 'better-sqlite3';
import { type JobUsagePeak, type StateStore, StoreConflictError } from '../../app/ports/state-store.js';
import { raisedPeak } from '../../app/usage/raised-peak.js';
import { deepFreeze } from './deep-freeze.js';

/** A row of `job_usage_peaks`. */
interface PeakRow {
  job_id: number;
  gpu_memory_mib: number | null;
  gpu_util_pct: number | null;
  updated_at_ms: number;
}

const peakFromRow = (row: PeakRow): JobUsagePeak => ({
  jobId: row.job_id,
  gpuMemoryMiB: row.gpu_memory_mib,
  gpuUtilizationPct: row.gpu_util_pct,
  updatedAtMs: row.updated_at_ms,
});

/**
 * The usage-peak methods over `db`.
 * @param write the store's transaction wrapper (one transaction per call, named by the method; errors mapped)
 */
export function sqliteUsagePeakMethods(
  db: Database.Database,
  write: <A extends unknown[], R>(name: string, fn: (...args: A) => R) => (...args: A) => R,
): Pick<StateStore, 'raiseUsagePeaks' | 'getUsagePeak'> {
  const sql = {
    get: db.prepare<[number], PeakRow>(
      'SELECT job_id, gpu_memory_mib, gpu_util_pct, updated_at_ms FROM job_usage_peaks WHERE job_id = ?',
    ),
    jobExists: db.prepare<[number], number>('SELECT 1 FROM jobs WHERE id = ?').pluck(),
    upsert: db.prepare<[number, number | null, number | null, number]>(
      'INSERT INTO job_usage_peaks (job_id, gpu_memory_mib, gpu_util_pct, updated_at_ms) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (job_id) DO UPDATE SET gpu_memory_mib = excluded.gpu_memory_mib, ' +
        'gpu_util_pct = excluded.gpu_util_pct, updated_at_ms = excluded.updated_at_ms',
    ),
  };
  const read = (jobId: number): JobUsagePeak | null => {
    const row = sql.get.get(jobId);
    return row === undefined ? null : peakFromRow(row);
  };
  return {
    raiseUsagePeaks: write('raiseUsagePeaks', (updates, atMs) => {
      for (const update of updates) {
        if (sql.jobExists.get(update.jobId) === undefined)
          throw new StoreConflictError(`job ${update.jobId} does not exist`);
        const next = raisedPeak(read(update.jobId), update, atMs);
        if (next !== null) sql.upsert.run(next.jobId, next.gpuMemoryMiB, next.gpuUtilizationPct, next.updatedAtMs);
      }
    }),
    getUsagePeak: (jobId) => {
      const peak = read(jobId);
      return peak === null ? null : deepFreeze(peak);
    },
  };
}

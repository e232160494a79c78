/**
 * Where an attempt's output lives: `<job dir>/attempt-<n>.stdout.log` and `.stderr.log`, the
 * names the supervisor writes (adapters/process/attempt-files.ts uses the same scheme).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StateStore } from '../ports/state-store.js';

/** Path of one stream of attempt `attempt` (1-based) in `jobDirectory`. */
export function attemptLogPath(jobDirectory: string, attempt: number, stream: 'stdout' | 'stderr'): string {
  return join(jobDirectory, `attempt-${attempt}.${stream}.log`);
}

/** Deletes the directories (logs, outcomes, checkpoints) of jobs that ended before `cutoffMs`. */
export function sweepJobDirectories(store: StateStore, jobDirectory: (jobId: number) => string, cutoffMs: number): void {
  for (const job of store.listJobs({ states: ['succeeded', 'failed', 'cancelled'] })) {
    if (job.endedAtMs !== null && job.endedAtMs < cutoffMs) rmSync(jobDirectory(job.id), { recursive: true, force: true });
  }
}

/**
 * Where an attempt's output lives: `<job dir>/attempt-<n>.stdout.log` and `.stderr.log`, the
 * names the supervisor writes (adapters/process/attempt-files.ts uses the same scheme).
 */
import { join } from 'node:path';

/** Path of one stream of attempt `attempt` (1-based) in `jobDirectory`. */
export function attemptLogPath(jobDirectory: string, attempt: number, stream: 'stdout' | 'stderr'): string {
  return join(jobDirectory, `attempt-${attempt}.${stream}.log`);
}

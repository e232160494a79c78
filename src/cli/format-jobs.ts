/**
 * Text views of jobs for `submit --wait`: the exit status it passes on and the line that says how
 * a job ended. The cells of the `jobs` table are src/contract/job-table.ts.
 */
import { constants } from 'node:os';
import type { JobView } from '../contract/api.js';
import { escapeControlCharactersDeep } from '../lib/control-characters.js';

/** Exit status of `submit --wait` for a cancelled job (as a shell's for Ctrl-C). */
export const EXIT_CANCELLED = 130;

/**
 * The exit status `submit --wait` ends with for a terminal job: 130 when cancelled, 128+N when it
 * was ended by signal N, its exit code when it has one (a failed job with code 0 gives 1), and 1
 * when it failed without one.
 */
export function jobExitStatus(job: Pick<JobView, 'state' | 'exitCode' | 'signal'>): number {
  if (job.state === 'cancelled') return EXIT_CANCELLED;
  if (job.signal !== null) {
    const number =
      (constants.signals as Record<string, number | undefined>)[job.signal.toUpperCase()] ??
      (/^\d+$/.test(job.signal) ? Number(job.signal) : undefined);
    return number === undefined ? 1 : 128 + number;
  }
  const code = job.exitCode === null ? 0 : job.exitCode & 0xff;
  return job.state === 'failed' && code === 0 ? 1 : code;
}

/** One line describing how a terminal job ended, e.g. `job 12 failed (exit code 3)`. */
export function formatJobEnd(received: JobView): string {
  const job = escapeControlCharactersDeep(received);
  const how = job.signal !== null ? `signal ${job.signal}` : job.exitCode !== null ? `exit code ${job.exitCode}` : null;
  const reason =
    job.reason !== null && job.reason !== '' && job.reason !== how && !job.reason.includes(`by ${job.signal}`)
      ? job.reason
      : null;
  const detail = [how, reason].filter((s): s is string => s !== null).join(', ');
  return `job ${job.id} ${job.state}${detail ? ` (${detail})` : ''}`;
}

/**
 * Text views of jobs shared by the client commands: the GPU request, ages, the cells of the `jobs`
 * table (job-list-output.ts lays it out), and the exit status `submit --wait` passes on.
 */
import { constants } from 'node:os';
import type { JobView } from '../contract/api.js';
import { formatGpuMilli } from './parse-quantities.js';
import { escapeControlCharactersDeep } from '../lib/control-characters.js';

/** Exit status of `submit --wait` for a cancelled job (as a shell's for Ctrl-C). */
export const EXIT_CANCELLED = 130;

/** `0.5 × 1`: the share of each GPU and the number of GPUs. */
export function formatGpuRequest(gpu: JobView['gpu']): string {
  return `${formatGpuMilli(gpu.gpuMilli)} × ${gpu.gpuCount}`;
}

/**
 * A duration in milliseconds as at most two units: `45s`, `12m`, `3h5m`, `2d4h`.
 * Negative durations (clock skew) count as 0.
 */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
}

/** Age of a job: time since it was submitted, from `nowMs` (epoch milliseconds). */
export function jobAge(job: Pick<JobView, 'submittedAt'>, nowMs: number): string {
  const at = Date.parse(job.submittedAt);
  return Number.isNaN(at) ? '?' : formatAge(nowMs - at);
}

/** The mode a job runs in (its placement's) or asked for (before placement). */
export function jobMode(job: Pick<JobView, 'placement' | 'gpu'>): string {
  return job.placement?.mode ?? job.gpu.mode;
}

/**
 * The reason the server gives a job when an attempt starts (`attempt 2 started (pid 123)`, or after a restart `attempt
 * 2 had started before the restart`).
 */
const ATTEMPT_STARTED = /^attempt \d+ (?:started|had started)\b/;

/**
 * A job's reason, or null when it has none or it only says that the running attempt started (the
 * supervisor's pid is of no use in a listing).
 */
export function jobReason(job: Pick<JobView, 'state' | 'reason'>): string | null {
  if (job.reason === null || job.reason === '') return null;
  return job.state === 'running' && ATTEMPT_STARTED.test(job.reason) ? null : job.reason;
}

/**
 * What the `jobs` table says after the age: for a running job where it runs (`on GPU 0, 1`, with
 * `attempt N` from the second attempt on), then the reason (e.g. why it is pending or preempted).
 */
export function jobNote(job: Pick<JobView, 'state' | 'placement' | 'attempt' | 'reason'>): string {
  if (job.state !== 'running' || job.placement === null) return jobReason(job) ?? '';
  const parts: string[] = [];
  if (job.state === 'running' && job.placement !== null) {
    parts.push(
      `on GPU ${job.placement.gpus.map((g) => g.index).join(', ')}${job.attempt > 1 ? `, attempt ${job.attempt}` : ''}`,
    );
  }
  const reason = jobReason(job);
  if (reason !== null) parts.push(reason);
  return parts.join('; ');
}

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

/**
 * The job table: the columns `gpushare jobs` prints and how each cell is written from a job. The
 * server builds the rows of `GET /api/v1/jobs?view=table` with it (server-side printing, as the
 * Kubernetes API server answers `kubectl get` with a Table), so every client shows the same cells
 * and a listing carries only the text it shows. No I/O, no zod: the CLI loads it on every listing.
 */
import type { JobView } from './api.js';
import type { JobField } from './job-fields.js';

/** The columns of the job table, in order. */
export const JOB_TABLE_COLUMNS = ['ID', 'NAME', 'TENANT', 'STATE', 'GPU', 'MODE', 'AGE/REASON'] as const;

/** The job fields the table's cells are written from. */
export const TABLE_FIELDS: readonly JobField[] = [
  'id',
  'name',
  'tenant',
  'state',
  'gpu',
  'placement',
  'submittedAt',
  'reason',
  'reasonCode',
  'attempt',
];

/** A job with the fields of the table. */
export type TableJob = Pick<
  JobView,
  'id' | 'name' | 'tenant' | 'state' | 'gpu' | 'placement' | 'submittedAt' | 'reason' | 'reasonCode' | 'attempt'
>;

/** Formats milli-GPU as a decimal number of GPUs: 500 → `0.5`, 1000 → `1`, 125 → `0.125`. */
export function formatGpuMilli(gpuMilli: number): string {
  return String(gpuMilli / 1000);
}

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

/** The codes of the reason a job gets when an attempt starts (`attempt 2 started (pid 123)`, or after a restart). */
const ATTEMPT_STARTED: ReadonlySet<string | null> = new Set(['attempt-started', 'attempt-recovered']);

/**
 * A job's reason, or null when it has none or it only says that the running attempt started (its
 * code `attempt-started` or `attempt-recovered`: the supervisor's pid is of no use in a listing).
 */
export function jobReason(job: Pick<JobView, 'state' | 'reason' | 'reasonCode'>): string | null {
  if (job.reason === null || job.reason === '') return null;
  return job.state === 'running' && ATTEMPT_STARTED.has(job.reasonCode) ? null : job.reason;
}

/**
 * What the `jobs` table says after the age: for a running job where it runs (`on GPU 0, 1`, with
 * `attempt N` from the second attempt on), then the reason (e.g. why it is pending or preempted).
 */
export function jobNote(job: Pick<JobView, 'state' | 'placement' | 'attempt' | 'reason' | 'reasonCode'>): string {
  if (job.state !== 'running' || job.placement === null) return jobReason(job) ?? '';
  const parts = [
    `on GPU ${job.placement.gpus.map((g) => g.index).join(', ')}${job.attempt > 1 ? `, attempt ${job.attempt}` : ''}`,
  ];
  const reason = jobReason(job);
  if (reason !== null) parts.push(reason);
  return parts.join('; ');
}

/**
 * The cells of one job's row, one per {@link JOB_TABLE_COLUMNS}: id, name, tenant, state, the GPU
 * request (`0.5 × 1`), the mode, and the age (from `nowMs`, epoch ms) followed by the note
 * ({@link jobNote}) after two spaces. Text as the job holds it: a terminal client escapes control
 * characters before it prints a cell.
 */
export function jobTableRow(job: TableJob, nowMs: number): string[] {
  const note = jobNote(job);
  const age = jobAge(job, nowMs);
  return [
    String(job.id),
    job.name,
    job.tenant,
    job.state,
    formatGpuRequest(job.gpu),
    jobMode(job),
    note ? `${age}  ${note}` : age,
  ];
}

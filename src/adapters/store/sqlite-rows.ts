/**
 * How records of the state store map to rows of the SQLite schema (see migrations.ts): scalar
 * columns for what is filtered or sorted, JSON text for nested values (command, environment, gpu
 * request, placement, process handle).
 */
import {
  statusMessage,
  type GpuRequest,
  type JobEventCode,
  type JobEventReason,
  type JobState,
  type Placement,
  type PriorityClassName,
  type StatusDetails,
} from '../../core/index.js';
import type { ProcessHandle } from '../../app/ports/process-launcher.js';
import type {
  AttemptRecord,
  JobChange,
  JobEvent,
  JobRecord,
  NewJob,
  QosTargets,
  TenantRecord,
  TokenRecord,
  TokenRole,
} from '../../app/ports/state-store.js';
import { reasonUpdate } from './plan-job-changes.js';

/** Columns of `jobs`, in the order of `JobRow`. */
export const JOB_COLUMNS = [
  'id',
  'name',
  'tenant',
  'state',
  'reason_code',
  'reason_details',
  'priority',
  'submitted_at_ms',
  'updated_at_ms',
  'command',
  'working_directory',
  'environment',
  'time_limit_seconds',
  'retries',
  'cpu_milli',
  'host_memory_mib',
  'gpu',
  'placement',
  'attempt',
  'process',
  'started_at_ms',
  'ended_at_ms',
  'exit_code',
  'signal',
  'preemptible',
  'qos',
  'report_token_digest',
  'folder',
  'submitted_by_token_id',
] as const;

/** `JOB_COLUMNS` as a select list. */
export const JOB_SELECT_LIST = JOB_COLUMNS.join(', ');

/**
 * A row of `jobs` as a raw better-sqlite3 statement returns it (an array in `JOB_COLUMNS` order;
 * raw rows are about twice as fast to read as row objects). JSON columns are text; `preemptible`
 * is 0 or 1.
 */
export type JobRow = readonly [
  id: number,
  name: string,
  tenant: string,
  state: string,
  reasonCode: string | null,
  reasonDetails: string | null,
  priority: number,
  submittedAtMs: number,
  updatedAtMs: number,
  command: string,
  workingDirectory: string,
  environment: string,
  timeLimitSeconds: number | null,
  retries: number,
  cpuMilli: number,
  hostMemoryMiB: number,
  gpu: string,
  placement: string | null,
  attempt: number,
  process: string | null,
  startedAtMs: number | null,
  endedAtMs: number | null,
  exitCode: number | null,
  signal: string | null,
  preemptible: number,
  qos: string | null,
  reportTokenDigest: string | null,
  folder: string | null,
  submittedByTokenId: number | null,
];

/** Named parameters of the job insert: every column but `id`, which SQLite assigns. */
export type JobInsertParams = Record<Exclude<(typeof JOB_COLUMNS)[number], 'id'>, string | number | null>;

/** JSON text of a value, or null for null. */
export function toJsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function parseOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** The insert parameters of a new pending job submitted at `atMs` (ms since the epoch). */
export function newJobParams(job: NewJob, atMs: number): JobInsertParams {
  return {
    name: job.name,
    tenant: job.tenant,
    state: 'pending',
    reason_code: null,
    reason_details: null,
    priority: job.priority,
    submitted_at_ms: atMs,
    updated_at_ms: atMs,
    command: JSON.stringify(job.command),
    working_directory: job.workingDirectory ?? '', // '' = the job's private directory (column is NOT NULL)
    environment: JSON.stringify(job.environment),
    time_limit_seconds: job.timeLimitSeconds,
    retries: job.retries,
    cpu_milli: job.cpuMilli,
    host_memory_mib: job.hostMemoryMiB,
    gpu: JSON.stringify(job.gpu),
    placement: null,
    attempt: 0,
    process: null,
    started_at_ms: null,
    ended_at_ms: null,
    exit_code: null,
    signal: null,
    preemptible: job.preemptible ? 1 : 0,
    qos: toJsonOrNull(job.qos ?? null),
    report_token_digest: null,
    folder: null,
    submitted_by_token_id: job.submittedByTokenId ?? null,
  };
}

/** The job record of a raw row (JSON columns parsed into fresh objects; not frozen). */
export function jobFromRow(row: JobRow): JobRecord {
  const [
    id,
    name,
    tenant,
    state,
    reasonCode,
    reasonDetails,
    priority,
    submittedAtMs,
    updatedAtMs,
    command,
    workingDirectory,
    environment,
    timeLimitSeconds,
    retries,
    cpuMilli,
    hostMemoryMiB,
    gpu,
    placement,
    attempt,
    process,
    startedAtMs,
    endedAtMs,
    exitCode,
    signal,
    preemptible,
    qos,
    reportTokenDigest,
    folder,
    submittedByTokenId,
  ] = row;
  return {
    id,
    name,
    tenant,
    command: JSON.parse(command) as string[],
    workingDirectory: workingDirectory === '' ? null : workingDirectory,
    environment: JSON.parse(environment) as Record<string, string>,
    priority,
    timeLimitSeconds,
    retries,
    preemptible: preemptible !== 0,
    cpuMilli,
    hostMemoryMiB,
    gpu: JSON.parse(gpu) as GpuRequest,
    state: state as JobState,
    reason: codedReason(reasonCode, reasonDetails),
    submittedAtMs,
    updatedAtMs,
    placement: parseOrNull<Placement>(placement),
    attempt,
    process: parseOrNull<ProcessHandle>(process),
    folder,
    startedAtMs,
    endedAtMs,
    exitCode,
    signal,
    qos: parseOrNull<QosTargets>(qos),
    reportTokenDigest,
    submittedByTokenId,
  };
}

/** Columns of `tenants`, as a select list (in the order of `TenantRow`). */
export const TENANT_SELECT_LIST =
  'name, created_at_ms, guaranteed_gpu_equivalents, limit_gpu_equivalents, max_priority_class, ' +
  'requests_per_second, request_burst, event_streams_per_token';

/** A row of `tenants`. */
export interface TenantRow {
  name: string;
  created_at_ms: number;
  guaranteed_gpu_equivalents: number;
  /** NULL = no limit. */
  limit_gpu_equivalents: number | null;
  max_priority_class: string;
  /** NULL = the server's default (also for the next two). */
  requests_per_second: number | null;
  request_burst: number | null;
  event_streams_per_token: number | null;
}

/** The tenant record of a row. */
export function tenantFromRow(row: TenantRow): TenantRecord {
  return {
    name: row.name,
    createdAtMs: row.created_at_ms,
    guaranteedGpuEquivalents: row.guaranteed_gpu_equivalents,
    limitGpuEquivalents: row.limit_gpu_equivalents,
    maxPriorityClass: row.max_priority_class as PriorityClassName,
    requestsPerSecond: row.requests_per_second,
    requestBurst: row.request_burst,
    eventStreamsPerToken: row.event_streams_per_token,
  };
}

/** A row of `tokens`. */
export interface TokenRow {
  id: number;
  digest: string;
  role: string;
  tenant: string | null;
  label: string;
  created_at_ms: number;
  expires_at_ms: number | null;
  revoked_at_ms: number | null;
  rotated_at_ms: number | null;
  created_by_server: number;
}

/** The columns of a `TokenRow`, for SELECT. */
export const TOKEN_SELECT_LIST =
  'id, digest, role, tenant, label, created_at_ms, expires_at_ms, revoked_at_ms, rotated_at_ms, created_by_server';

/** The token record of a row. */
export function tokenFromRow(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    digest: row.digest,
    role: row.role as TokenRole,
    tenant: row.tenant,
    label: row.label,
    createdAtMs: row.created_at_ms,
    expiresAtMs: row.expires_at_ms,
    revokedAtMs: row.revoked_at_ms,
    rotatedAtMs: row.rotated_at_ms,
    createdByServer: row.created_by_server === 1,
  };
}

/** A reason of its code and details columns (null when there is none). */
export function codedReason(code: string | null, details: string | null): JobEventReason | null {
  if (code === null) return null;
  return {
    code: code as JobEventCode,
    lasting: false,
    details: details === null ? {} : (JSON.parse(details) as StatusDetails),
  };
}

/** The three columns of a reason: the admin's line (for people reading the file, never read back), code, details. */
export function reasonColumns(reason: JobEventReason | null): [string | null, string | null, string | null] {
  return reason === null ? [null, null, null] : [statusMessage(reason), reason.code, JSON.stringify(reason.details)];
}

/** A row of `job_events` (without its sequence number). */
export interface EventRow {
  job_id: number;
  at_ms: number;
  from_state: string | null;
  to_state: string;
  reason_code: string | null;
  reason_details: string | null;
}

/** The event of a row. */
export function eventFromRow(row: EventRow): JobEvent {
  return {
    jobId: row.job_id,
    atMs: row.at_ms,
    fromState: row.from_state as JobState | null,
    toState: row.to_state as JobState,
    reason: codedReason(row.reason_code, row.reason_details),
  };
}

/** A row of `job_attempts`. */
export interface AttemptRow {
  job_id: number;
  attempt: number;
  started_at_ms: number;
  ended_at_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  end_reason_code: string | null;
  end_reason_details: string | null;
}

/** The attempt record of a row. */
export function attemptFromRow(row: AttemptRow): AttemptRecord {
  return {
    jobId: row.job_id,
    attempt: row.attempt,
    startedAtMs: row.started_at_ms,
    endedAtMs: row.ended_at_ms,
    exitCode: row.exit_code,
    signal: row.signal,
    endReason: codedReason(row.end_reason_code, row.end_reason_details),
  };
}

/** Named parameters of the job update for one change (`set_*` = 1 where the patch sets the field). */
export function updateParams(change: JobChange, toState: JobState): Record<string, string | number | null> {
  const patch = change.patch ?? {};
  const reason = reasonUpdate(change);
  const flag = (value: unknown): number => (value === undefined ? 0 : 1);
  return {
    id: change.jobId,
    state: toState,
    at_ms: change.atMs,
    set_reason: reason.set ? 1 : 0,
    ...(([text, code, details]) => ({ reason: text, reason_code: code, reason_details: details }))(
      reasonColumns(reason.set ? reason.reason : null),
    ),
    set_placement: flag(patch.placement),
    placement: patch.placement === undefined ? null : toJsonOrNull(patch.placement),
    set_attempt: flag(patch.attempt),
    attempt: patch.attempt ?? null,
    set_process: flag(patch.process),
    process: patch.process === undefined ? null : toJsonOrNull(patch.process),
    set_started_at_ms: flag(patch.startedAtMs),
    started_at_ms: patch.startedAtMs ?? null,
    set_ended_at_ms: flag(patch.endedAtMs),
    ended_at_ms: patch.endedAtMs ?? null,
    set_exit_code: flag(patch.exitCode),
    exit_code: patch.exitCode ?? null,
    set_signal: flag(patch.signal),
    signal: patch.signal ?? null,
    set_report_token_digest: flag(patch.reportTokenDigest),
    report_token_digest: patch.reportTokenDigest ?? null,
    set_folder: flag(patch.folder),
    folder: patch.folder ?? null,
  };
}

/**
 * How records of the state store map to rows of the SQLite schema (see migrations.ts): scalar
 * columns for what is filtered or sorted, JSON text for nested values (command, environment, gpu
 * request, placement, process handle).
 */
import type { GpuRequest, JobState, Placement } from '../../core/index.js';
import type { ProcessHandle } from '../../app/ports/process-launcher.js';
import type { AttemptRecord, JobEvent, JobRecord, NewJob, TenantRecord, TokenRecord, TokenRole } from '../../app/ports/state-store.js';

/** Columns of `jobs` in the order `JobRow` lists them. */
export const JOB_COLUMNS =
  'id, name, tenant, state, reason, priority, submitted_at_ms, updated_at_ms, command, working_directory, environment, ' +
  'time_limit_seconds, retries, cpu_milli, host_memory_mib, gpu, placement, attempt, process, started_at_ms, ' +
  'ended_at_ms, exit_code, signal';

/** A row of `jobs` as better-sqlite3 returns it. */
export interface JobRow {
  id: number;
  name: string;
  tenant: string;
  state: string;
  reason: string | null;
  priority: number;
  submitted_at_ms: number;
  updated_at_ms: number;
  command: string;
  working_directory: string;
  environment: string;
  time_limit_seconds: number | null;
  retries: number;
  cpu_milli: number;
  host_memory_mib: number;
  gpu: string;
  placement: string | null;
  attempt: number;
  process: string | null;
  started_at_ms: number | null;
  ended_at_ms: number | null;
  exit_code: number | null;
  signal: string | null;
}

/** Named parameters of the job insert (everything but the id, which SQLite assigns). */
export type JobInsertParams = Omit<JobRow, 'id'>;

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
    reason: null,
    priority: job.priority,
    submitted_at_ms: atMs,
    updated_at_ms: atMs,
    command: JSON.stringify(job.command),
    working_directory: job.workingDirectory,
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
  };
}

/** The job record of a row (JSON columns parsed into fresh objects). */
export function jobFromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    name: row.name,
    tenant: row.tenant,
    command: JSON.parse(row.command) as string[],
    workingDirectory: row.working_directory,
    environment: JSON.parse(row.environment) as Record<string, string>,
    priority: row.priority,
    timeLimitSeconds: row.time_limit_seconds,
    retries: row.retries,
    cpuMilli: row.cpu_milli,
    hostMemoryMiB: row.host_memory_mib,
    gpu: JSON.parse(row.gpu) as GpuRequest,
    state: row.state as JobState,
    reason: row.reason,
    submittedAtMs: row.submitted_at_ms,
    updatedAtMs: row.updated_at_ms,
    placement: parseOrNull<Placement>(row.placement),
    attempt: row.attempt,
    process: parseOrNull<ProcessHandle>(row.process),
    startedAtMs: row.started_at_ms,
    endedAtMs: row.ended_at_ms,
    exitCode: row.exit_code,
    signal: row.signal,
  };
}

/** A row of `tenants`. */
export interface TenantRow {
  name: string;
  created_at_ms: number;
}

/** The tenant record of a row. */
export function tenantFromRow(row: TenantRow): TenantRecord {
  return { name: row.name, createdAtMs: row.created_at_ms };
}

/** A row of `tokens`. */
export interface TokenRow {
  id: number;
  digest: string;
  role: string;
  tenant: string | null;
  label: string;
  created_at_ms: number;
}

/** The token record of a row. */
export function tokenFromRow(row: TokenRow): TokenRecord {
  return { id: row.id, digest: row.digest, role: row.role as TokenRole, tenant: row.tenant, label: row.label, createdAtMs: row.created_at_ms };
}

/** A row of `job_events` (without its sequence number). */
export interface EventRow {
  job_id: number;
  at_ms: number;
  from_state: string | null;
  to_state: string;
  reason: string | null;
}

/** The event of a row. */
export function eventFromRow(row: EventRow): JobEvent {
  return {
    jobId: row.job_id,
    atMs: row.at_ms,
    fromState: row.from_state as JobState | null,
    toState: row.to_state as JobState,
    reason: row.reason,
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
  end_reason: string | null;
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
    endReason: row.end_reason,
  };
}

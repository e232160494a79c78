/**
 * File names of one attempt in its job directory, shared by the launcher and (through the launch
 * spec) the supervisor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessOutcome } from '../../app/ports/process-launcher.js';
import { errnoCode } from './cgroup-dir.js';

/** The files of attempt `n` of a job. */
export interface AttemptFiles {
  /** `attempt-<n>.launch.json`: the supervisor's spec; the supervisor deletes it once read. */
  launchSpecPath: string;
  /** `attempt-<n>.stdout.log`: the command's stdout, appended. */
  stdoutPath: string;
  /** `attempt-<n>.stderr.log`: the command's stderr, appended. */
  stderrPath: string;
  /** `attempt-<n>.pid`: `{ "jobPid": n, "commandPid": m }` once the command runs. */
  pidPath: string;
  /** `attempt-<n>.outcome.json`: the outcome, written atomically when the command ends. */
  outcomePath: string;
}

/** The files of attempt `attempt` (1-based) in `jobDirectory`. */
export function attemptFiles(jobDirectory: string, attempt: number): AttemptFiles {
  const base = join(jobDirectory, `attempt-${attempt}`);
  return {
    launchSpecPath: `${base}.launch.json`,
    stdoutPath: `${base}.stdout.log`,
    stderrPath: `${base}.stderr.log`,
    pidPath: `${base}.pid`,
    outcomePath: `${base}.outcome.json`,
  };
}

/** The cgroup name of attempt `attempt` of job `jobId`: `job-<id>-a<attempt>`. */
export function attemptCgroupKey(jobId: number, attempt: number): string {
  return `job-${jobId}-a${attempt}`;
}

/** Reads a JSON file; undefined when it does not exist. Throws for unreadable or malformed JSON. */
function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new Error(`malformed attempt file ${path}: ${(error as Error).message}`);
  }
}

/** True when `value` is a number or null. */
const numberOrNull = (value: unknown): boolean => value === null || typeof value === 'number';
/** True when `value` is a string or null. */
const stringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';

/**
 * Reads an outcome file (`attempt-<n>.outcome.json`); null when it does not exist (yet).
 * Throws naming the file when it is malformed.
 */
export function readOutcomeFile(path: string): ProcessOutcome | null {
  const value = readJsonFile(path);
  if (value === undefined) return null;
  const o = value as Record<string, unknown>;
  if (
    typeof o !== 'object' ||
    o === null ||
    !numberOrNull(o.exitCode) ||
    !stringOrNull(o.signal) ||
    typeof o.startedAtMs !== 'number' ||
    typeof o.endedAtMs !== 'number' ||
    !stringOrNull(o.error) ||
    (o.signalDeliveredAtMs !== undefined && !numberOrNull(o.signalDeliveredAtMs))
  ) {
    throw new Error(`malformed attempt file ${path}: not an outcome`);
  }
  return {
    exitCode: o.exitCode as number | null,
    signal: o.signal as string | null,
    startedAtMs: o.startedAtMs,
    endedAtMs: o.endedAtMs,
    error: o.error as string | null,
    ...(o.signalDeliveredAtMs === undefined ? {} : { signalDeliveredAtMs: o.signalDeliveredAtMs as number | null }),
  };
}

/** Reads a pid file (`attempt-<n>.pid`); null when it does not exist (yet). Throws when malformed. */
export function readJobPidFile(path: string): number | null {
  const value = readJsonFile(path);
  if (value === undefined) return null;
  const jobPid = (value as { jobPid?: unknown } | null)?.jobPid;
  if (typeof jobPid !== 'number' || !Number.isSafeInteger(jobPid) || jobPid <= 0) {
    throw new Error(`malformed attempt file ${path}: no jobPid`);
  }
  return jobPid;
}

/**
 * The command's own host pid from a pid file (`commandPid`; in the sandbox bubblewrap's grandchild,
 * else the same as `jobPid`); null when the file does not exist (yet), predates this field, or the
 * supervisor did not find the command in time.
 */
export function readCommandPidFile(path: string): number | null {
  const value = readJsonFile(path);
  const commandPid = (value as { commandPid?: unknown } | null | undefined)?.commandPid;
  return typeof commandPid === 'number' && Number.isSafeInteger(commandPid) && commandPid > 0 ? commandPid : null;
}

/**
 * A fast check of a job in an answer against the contract, for clients that start often or read
 * thousands of jobs (the CLI's `submit` and listing): the same verdict as a zod parse with JobSchema
 * (field by field: `JobSchema.pick(fields)`), without building the zod schemas on a cold start.
 * Every field of JobSchema has its check here (the Record type makes a missing one a compile
 * error), nested objects (placement, QoS) included. job-check.test.ts holds the checks to zod's verdicts.
 */
import {
  ENFORCEMENT_LEVELS,
  ISOLATION_LEVELS,
  JOB_STATES,
  SHARING_MODES,
  JOB_REASON_CODE_VALUES,
} from '../core/index.js';
import type { JobView } from './api.js';
import { JOB_FIELDS, type JobField } from './job-fields.js';

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && !Number.isNaN(v);
const isInt: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
/** A plain object (what zod's z.object takes; a JSON answer holds no other kind). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** `check`, or null. */
export const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const oneOf = (values: readonly string[]): Check => {
  const allowed = new Set(values);
  return (v) => typeof v === 'string' && allowed.has(v);
};
const arrayOf =
  (check: Check): Check =>
  (v) => {
    if (!Array.isArray(v)) return false;
    for (const item of v) if (!check(item)) return false;
    return true;
  };
const isMode = oneOf(SHARING_MODES);
const isIsolation = oneOf(ISOLATION_LEVELS);
const isEnforcement = oneOf(ENFORCEMENT_LEVELS);
const isQosKind = oneOf(['step', 'latency']);

// The nested objects are checked property by property (z.object: other keys are left alone), which
// a cold process runs several times faster than a loop over a table of checks.

/** QOS_SECONDS of api.ts: a number above 0, finite, at most 86400. */
const isQosSeconds: Check = (v) => typeof v === 'number' && v > 0 && Number.isFinite(v) && v <= 86_400;
/** QosTargetsSchema (strict): only stepSeconds and latencySeconds, each absent or QoS seconds. */
const isQosTargets: Check = (v) =>
  isObject(v) &&
  Object.keys(v).every((key) => key === 'stepSeconds' || key === 'latencySeconds') &&
  (v.stepSeconds === undefined || isQosSeconds(v.stepSeconds)) &&
  (v.latencySeconds === undefined || isQosSeconds(v.latencySeconds));
/** QosStatusSchema. */
const isQosStatus: Check = (v) =>
  isObject(v) &&
  isQosKind(v.kind) &&
  isNumber(v.targetSeconds) &&
  (v.lastObservedSeconds === null || isNumber(v.lastObservedSeconds)) &&
  (v.lastReportAt === null || isString(v.lastReportAt)) &&
  isInt(v.reports) &&
  isBoolean(v.violating) &&
  (v.missingSince === null || isString(v.missingSince)) &&
  isInt(v.violations);
/** PlacedGpuSchema. */
const isPlacedGpu: Check = (v) =>
  isObject(v) &&
  isInt(v.index) &&
  isString(v.uuid) &&
  isInt(v.gpuMilli) &&
  isInt(v.accountedGpuMilli) &&
  isInt(v.gpuMemoryMiB) &&
  (v.migProfile === null || isString(v.migProfile)) &&
  (v.migDeviceUuid === null || isString(v.migDeviceUuid));
const isPlacedGpus = arrayOf(isPlacedGpu);
/** JobSchema's placement (without its null). */
const isPlacement: Check = (v) =>
  isObject(v) &&
  isMode(v.mode) &&
  isObject(v.enforcement) &&
  isEnforcement(v.enforcement.gpuMemory) &&
  isEnforcement(v.enforcement.compute) &&
  isBoolean(v.simulated) &&
  isPlacedGpus(v.gpus);
/** JobSchema's gpu. */
const isGpuRequest: Check = (v) =>
  isObject(v) &&
  isInt(v.gpuCount) &&
  isInt(v.gpuMilli) &&
  (v.gpuMemoryMiB === null || isInt(v.gpuMemoryMiB)) &&
  isMode(v.mode) &&
  isIsolation(v.isolation);
const isQos: Check = (v) => isObject(v) && isQosTargets(v.targets) && arrayOf(isQosStatus)(v.status);

/** The check of each job field (as JobSchema types it; `pid` and `qos` may also be absent). */
export const JOB_FIELD_CHECKS: Readonly<Record<JobField, Check>> = {
  id: isInt,
  name: isString,
  tenant: isString,
  state: oneOf(JOB_STATES),
  reason: nullable(isString),
  reasonCode: nullable(oneOf(JOB_REASON_CODE_VALUES)),
  priority: isInt,
  priorityClass: isString,
  preemptible: isBoolean,
  command: arrayOf(isString),
  workingDirectory: nullable(isString),
  timeLimitSeconds: nullable(isInt),
  retries: isInt,
  attempt: isInt,
  cpuMilli: isInt,
  hostMemoryMiB: isInt,
  gpu: isGpuRequest,
  placement: nullable(isPlacement),
  submittedAt: isString,
  startedAt: nullable(isString),
  endedAt: nullable(isString),
  exitCode: nullable(isInt),
  signal: nullable(isString),
  pid: (v) => v === undefined || v === null || isInt(v),
  qos: (v) => v === undefined || v === null || isQos(v),
};

/**
 * The first field of `job` that `fields` names (every field when undefined) and that does not hold
 * what JobSchema says; null when all do. `job` must be an object.
 */
export function badJobField(job: Record<string, unknown>, fields: readonly JobField[] = JOB_FIELDS): JobField | null {
  for (const field of fields) if (!JOB_FIELD_CHECKS[field](job[field])) return field;
  return null;
}

/**
 * Checks a parsed answer that is one job (`POST /jobs`, `POST /jobs/:id/cancel`): zod's verdict
 * with JobSchema. Keys beyond JobSchema's are left as they are.
 * @returns the job, or the first problem as `path: message` (e.g. `state: not a valid state`)
 */
export function checkJob(value: unknown): { value: JobView } | { problem: string } {
  if (!isObject(value)) return { problem: 'body: expected an object' };
  const bad = badJobField(value);
  return bad === null ? { value: value as unknown as JobView } : { problem: `${bad}: not a valid ${bad}` };
}

/**
 * A fast check of a `GET /api/v1/jobs` answer against the contract, for clients that read
 * thousands of jobs (the CLI's listing): the same verdict as `JobSchema.pick(fields)` per job, at
 * a fraction of a zod parse's cost on a cold start. Every field of JobSchema has its check here
 * (the Record type makes a missing one a compile error); the nested objects a listing rarely
 * holds (a running job's placement, QoS) are checked with JobSchema's own parts. job-page-check.test.ts
 * holds the checks to zod's verdicts.
 */
import { ISOLATION_LEVELS, JOB_STATES, SHARING_MODES } from '../core/index.js';
import { JobSchema } from './api.js';
import type { JobField, JobPage } from './job-list.js';

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isInt: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const oneOf = (values: readonly string[]): Check => {
  const allowed = new Set(values);
  return (v) => typeof v === 'string' && allowed.has(v);
};
const bySchema =
  (schema: { safeParse(value: unknown): { success: boolean } }): Check =>
  (v) =>
    schema.safeParse(v).success;
const isMode = oneOf(SHARING_MODES);
const isIsolation = oneOf(ISOLATION_LEVELS);

/** The check of each job field (as JobSchema types it; `pid` and `qos` may also be absent). */
export const JOB_FIELD_CHECKS: Readonly<Record<JobField, Check>> = {
  id: isInt,
  name: isString,
  tenant: isString,
  state: oneOf(JOB_STATES),
  reason: nullable(isString),
  reasonCode: nullable(isString),
  priority: isInt,
  priorityClass: isString,
  preemptible: isBoolean,
  command: (v) => Array.isArray(v) && v.every(isString),
  workingDirectory: nullable(isString),
  timeLimitSeconds: nullable(isInt),
  retries: isInt,
  attempt: isInt,
  cpuMilli: isInt,
  hostMemoryMiB: isInt,
  gpu: (v) =>
    isObject(v) &&
    isInt(v.gpuCount) &&
    isInt(v.gpuMilli) &&
    nullable(isInt)(v.gpuMemoryMiB) &&
    isMode(v.mode) &&
    isIsolation(v.isolation),
  placement: (v) => v === null || bySchema(JobSchema.shape.placement)(v),
  submittedAt: isString,
  startedAt: nullable(isString),
  endedAt: nullable(isString),
  exitCode: nullable(isInt),
  signal: nullable(isString),
  pid: (v) => v === undefined || v === null || isInt(v),
  qos: (v) => v === undefined || v === null || bySchema(JobSchema.shape.qos)(v),
};

/**
 * Checks a parsed answer: `{ jobs: [...], nextAfter: integer | null }`, each job holding `fields`
 * (every field when undefined) as JobSchema types them. Fields beyond those are left as they are.
 * @returns the page, or the first problem as `path: message` (e.g. `jobs.3.state: not a valid state`)
 */
export function checkJobPage(
  value: unknown,
  fields: readonly JobField[] | undefined,
): { page: JobPage } | { problem: string } {
  if (!isObject(value)) return { problem: 'body: expected an object' };
  if (!Array.isArray(value.jobs)) return { problem: 'jobs: expected an array' };
  if (!nullable(isInt)(value.nextAfter)) return { problem: 'nextAfter: expected an integer or null' };
  const checked = (
    fields === undefined ? (Object.keys(JOB_FIELD_CHECKS) as JobField[]) : ['id' as const, ...fields]
  ).map((field) => [field, JOB_FIELD_CHECKS[field]] as const);
  for (let i = 0; i < value.jobs.length; i++) {
    const job: unknown = value.jobs[i];
    if (!isObject(job)) return { problem: `jobs.${i}: expected an object` };
    for (const [field, check] of checked)
      if (!check(job[field])) return { problem: `jobs.${i}.${field}: not a valid ${field}` };
  }
  return { page: value as unknown as JobPage };
}

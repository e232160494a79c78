/**
 * The fields of a job in a listing (`GET /api/v1/jobs?fields=`) and the largest page, as plain
 * values: the CLI's listing reads them without building the zod schemas (job-list.ts, api.ts).
 * job-fields.test.ts holds JOB_FIELDS to JobSchema's keys, in order.
 */
import type { JobView } from './api.js';

/** The most jobs one page may hold (`limit`). */
export const MAX_JOB_PAGE = 5000;

/** A job field `fields=` may name: every field of JobSchema. */
export type JobField = keyof JobView;

/** Each job field once, in the order of JobSchema (the Record type makes a missing or unknown one a compile error). */
const FIELD_ORDER: Readonly<Record<JobField, true>> = {
  id: true,
  name: true,
  tenant: true,
  state: true,
  reason: true,
  reasonCode: true,
  priority: true,
  priorityClass: true,
  preemptible: true,
  command: true,
  workingDirectory: true,
  timeLimitSeconds: true,
  retries: true,
  attempt: true,
  cpuMilli: true,
  hostMemoryMiB: true,
  gpu: true,
  placement: true,
  submittedAt: true,
  startedAt: true,
  endedAt: true,
  exitCode: true,
  signal: true,
  pid: true,
  qos: true,
};

/** Every job field, in the order of JobSchema. */
export const JOB_FIELDS = Object.keys(FIELD_ORDER) as [JobField, ...JobField[]];

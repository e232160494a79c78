/**
 * Fast checks of `GET /api/v1/jobs` answers against the contract, for clients that read thousands
 * of jobs (the CLI's listing): a page of jobs (the same verdict as `JobSchema.pick(fields)` per
 * job, job-check.ts) and a page of the job table (the same verdict as JobTablePageSchema), at a
 * fraction of a zod parse's cost on a cold start.
 */
import { badJobField, isObject, JOB_FIELD_CHECKS, nullable } from './job-check.js';
import type { JobField } from './job-fields.js';
import type { JobPage, JobTablePage } from './job-list.js';

const isIntOrNull = nullable((v) => typeof v === 'number' && Number.isInteger(v));

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
  if (!isIntOrNull(value.nextAfter)) return { problem: 'nextAfter: expected an integer or null' };
  const jobs: unknown[] = value.jobs;
  const checked = fields === undefined ? undefined : [...new Set<JobField>(['id', ...fields])];
  // Field by field over all jobs first (a cold process runs that faster than job by job); only a
  // page that fails is gone through again job by job, for the first problem.
  const allHold =
    jobs.every(isObject) &&
    (checked ?? Object.keys(JOB_FIELD_CHECKS)).every((field) => {
      const check = JOB_FIELD_CHECKS[field as JobField];
      for (const job of jobs as Record<string, unknown>[]) if (!check(job[field])) return false;
      return true;
    });
  if (!allHold)
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i];
      if (!isObject(job)) return { problem: `jobs.${i}: expected an object` };
      const bad = badJobField(job, checked);
      if (bad !== null) return { problem: `jobs.${i}.${bad}: not a valid ${bad}` };
    }
  return { page: value as unknown as JobPage };
}

/**
 * Checks a parsed `view=table` answer: `{ columns: string[] (at least one), rows: string[][] (as
 * many cells as columns), nextAfter: integer | null }`, as JobTablePageSchema.
 * @returns the page, or the first problem as `path: message` (e.g. `rows.3: expected 7 cells`)
 */
export function checkJobTablePage(value: unknown): { page: JobTablePage } | { problem: string } {
  if (!isObject(value)) return { problem: 'body: expected an object' };
  const { columns, rows } = value;
  if (!Array.isArray(columns) || columns.length === 0 || !columns.every((c) => typeof c === 'string'))
    return { problem: 'columns: expected a non-empty array of strings' };
  if (!Array.isArray(rows)) return { problem: 'rows: expected an array' };
  if (!isIntOrNull(value.nextAfter)) return { problem: 'nextAfter: expected an integer or null' };
  const width = columns.length;
  for (let i = 0; i < rows.length; i++) {
    const row: unknown = rows[i];
    if (!Array.isArray(row) || row.length !== width) return { problem: `rows.${i}: expected ${width} cells` };
    for (let j = 0; j < width; j++)
      if (typeof row[j] !== 'string') return { problem: `rows.${i}.${j}: expected a string` };
  }
  return { page: value as unknown as JobTablePage };
}

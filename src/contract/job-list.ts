/**
 * `GET /api/v1/jobs`: the listing's query (selectors, page, fields or the table view) and answer (a
 * page of jobs, or with `view=table` a page of the job table's rows, and the cursor of the next).
 * Shared by the server's route, the HTTP client and the CLI.
 */
import { z } from 'zod';
import { JOB_STATES, type JobState } from '../core/index.js';
import { MAX_NAME_PATTERN_LENGTH } from '../lib/name-pattern.js';
import { decimalParameter, JobSchema, TENANT_NAME, textOfLength } from './api.js';
import { isoTimeWithZone } from './iso-time.js';
import { documented } from './openapi-notes.js';
import { JOB_FIELDS, MAX_JOB_PAGE } from './job-fields.js';

/** The states a listing shows without `state` or `all=true`: those of jobs that have not ended. */
export const ACTIVE_JOB_STATES: readonly JobState[] = ['pending', 'preempted', 'scheduled', 'running'];

/**
 * A comma-separated list of names from `allowed` (each at most once); the message names the
 * parameter and every allowed value. Parses to the list.
 */
function commaList<T extends string>(parameter: string, allowed: readonly T[], what: string) {
  const words = `${parameter}: must be one or more of ${allowed.join(', ')}, comma-separated`;
  const item = `(?:${allowed.join('|')})`;
  return documented(z.string(), { pattern: `^${item}(?:,${item})*$` })
    .superRefine((text, ctx) => {
      const unknown = text.split(',').filter((item) => !(allowed as readonly string[]).includes(item));
      if (unknown.length > 0)
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `${words}; got ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
        });
    })
    .transform((text) => [...new Set(text.split(','))] as T[])
    .describe(`${what}: ${allowed.join(', ')}, comma-separated`);
}

/** What a listing answers: jobs (JobPageSchema), or the job table's rows (JobTablePageSchema). */
export const JOB_LIST_VIEWS = ['jobs', 'table'] as const;

/** `GET /api/v1/jobs` query. */
export const ListJobsQuerySchema = z
  .object({
    all: z.enum(['true', 'false']).default('false').describe('include finished jobs (ignored when state is given)'),
    state: commaList('state', JOB_STATES, 'only jobs in these states').optional(),
    tenant: TENANT_NAME.optional().describe("only this tenant's jobs; a token of another tenant gets an empty list"),
    name: textOfLength(1, MAX_NAME_PATTERN_LENGTH, `name: a pattern of 1-${MAX_NAME_PATTERN_LENGTH} characters`)
      .optional()
      .describe('job name pattern: the whole name, * matches any run of characters, case-sensitive'),
    since: isoTimeWithZone('since: must be an ISO 8601 time with a zone, e.g. 2025-01-31T12:00:00Z')
      .transform((text) => Date.parse(text))
      .optional()
      .describe('only jobs submitted at or after this ISO 8601 time (with a zone)'),
    limit: decimalParameter(
      1,
      MAX_JOB_PAGE,
      'page size: at most this many jobs; absent: every matching job',
    ).optional(),
    after: decimalParameter(
      0,
      Number.MAX_SAFE_INTEGER,
      'only jobs with an id above this one (nextAfter of the previous page)',
    ).optional(),
    fields: commaList('fields', JOB_FIELDS, 'only these job fields (id is always included)').optional(),
    view: z
      .enum(JOB_LIST_VIEWS)
      .default('jobs')
      .describe(
        'jobs: a page of jobs; table: a page of the job table (columns and rows of text, as `gpushare jobs` prints ' +
          'them; not with fields)',
      ),
  })
  .strict();

/** A job of a listing: every field of JobSchema, or with `fields` only those (and `id`). */
export const ListedJobSchema = JobSchema.partial()
  .required({ id: true })
  .describe('a job; with fields= it holds only the chosen fields and id, else every field of a job');
/** A job of a listing (some fields absent when `fields` was given). */
export type ListedJob = z.infer<typeof ListedJobSchema>;

/** `GET /api/v1/jobs` answer. */
export const JobPageSchema = z.object({
  jobs: z.array(ListedJobSchema).describe('the page, by ascending id'),
  nextAfter: z.number().int().nullable().describe('pass as after= for the next page; null when no more jobs match'),
});
/** One page of a listing. */
export type JobPage = z.infer<typeof JobPageSchema>;

/** `GET /api/v1/jobs?view=table` answer: the job table (src/contract/job-table.ts), a page of rows. */
export const JobTablePageSchema = z
  .object({
    columns: z.array(z.string()).min(1).describe('the column titles: ID, NAME, TENANT, STATE, GPU, MODE, AGE/REASON'),
    rows: z
      .array(z.array(z.string()))
      .describe("the page, by ascending id: one row per job, one cell per column (the age from the server's clock)"),
    nextAfter: z.number().int().nullable().describe('pass as after= for the next page; null when no more jobs match'),
  })
  .superRefine((page, ctx) => {
    const i = page.rows.findIndex((row) => row.length !== page.columns.length);
    if (i >= 0)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['rows', i],
        message: `expected ${page.columns.length} cells`,
      });
  });
/** One page of the job table. */
export type JobTablePage = z.infer<typeof JobTablePageSchema>;

/**
 * API shapes of the dashboard's job list, `GET /api/v1/dashboard/jobs`: the query (a name pattern,
 * job states, a tenant, a page) and the page it answers (the jobs of the page and how many match).
 */
import { z } from 'zod';
import { JOB_STATES } from '../core/index.js';
import { MAX_NAME_PATTERN_LENGTH } from '../lib/name-pattern.js';
import { decimalParameter, JobSchema, TENANT_NAME, textOfLength } from './api.js';

/** Jobs one page holds at most (`limit`). */
export const DASHBOARD_JOB_PAGE_MAX = 500;
/** Jobs one page holds when `limit` is not given. */
export const DASHBOARD_JOB_PAGE_DEFAULT = 50;
/** Largest `offset` (jobs skipped). */
export const DASHBOARD_JOB_OFFSET_MAX = 10_000_000;

const STATE = `(?:${JOB_STATES.join('|')})`;

/** `GET /api/v1/dashboard/jobs` query. */
export const DashboardJobsQuerySchema = z
  .object({
    name: textOfLength(1, MAX_NAME_PATTERN_LENGTH, `a name pattern has 1 to ${MAX_NAME_PATTERN_LENGTH} characters`)
      .optional()
      .describe(
        'whole-name pattern: `*` matches any run of characters, every other character itself ' +
          '(case-sensitive), e.g. `train-*` or `*eval*`',
      ),
    states: z
      .string()
      .regex(
        new RegExp(`^${STATE}(?:,${STATE})*$`),
        `a comma-separated list of job states (allowed: ${JOB_STATES.join(', ')})`,
      )
      .optional()
      .describe(`only jobs in these states, comma-separated (${JOB_STATES.join(', ')}); default: every state`),
    tenant: TENANT_NAME.optional().describe("only this tenant's jobs (a tenant's token: its own tenant only)"),
    limit: decimalParameter(
      1,
      DASHBOARD_JOB_PAGE_MAX,
      `the most jobs of the page (default ${DASHBOARD_JOB_PAGE_DEFAULT})`,
    ).optional(),
    offset: decimalParameter(0, DASHBOARD_JOB_OFFSET_MAX, 'matching jobs to skip (default 0)').optional(),
  })
  .strict();

/** `GET /api/v1/dashboard/jobs` answer. */
export const DashboardJobPageSchema = z.object({
  total: z.number().int().describe('jobs matching the filter (the caller may see), all pages together'),
  unfiltered: z.number().int().describe('every job the caller may see, the filter aside'),
  offset: z.number().int().describe('matching jobs skipped before this page'),
  limit: z.number().int().describe('the most jobs this page may hold'),
  jobs: z.array(JobSchema).describe('the page: active jobs by ascending id, then ended jobs newest first'),
});

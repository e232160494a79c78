/**
 * Job listings (`GET /api/v1/jobs`): a page of the jobs a caller may see, selected in the store
 * (state, tenant, name pattern, submit time, id cursor, page size: JobFilter), shown as job views
 * (reasons written for the viewer: another tenant's job is named to admins only) with only the
 * chosen fields.
 *
 * The tenant rule: anyone but an admin sees only its own tenant's jobs; asking for another tenant
 * answers an empty page, the same answer as for a tenant without jobs, so it reveals nothing.
 */
import { type JobState, type StatusViewer } from '../../core/index.js';
import { JOB_FIELDS, type JobField } from '../../contract/job-fields.js';
import type { JobPage, JobTablePage, ListedJob } from '../../contract/job-list.js';
import { JOB_TABLE_COLUMNS, jobTableRow, type TableJob } from '../../contract/job-table.js';
import { ACTIVE_JOB_STATES } from '../../contract/job-list.js';
import type { JobView } from '../../contract/api.js';
import { authorize } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import type { JobFilter, StateStore } from '../ports/state-store.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import { jobViewBuilder } from './views.js';

/** What a listing asks for (the parsed query of `GET /api/v1/jobs`). */
export interface JobListQuery {
  /** Finished jobs too (ignored when `states` is given); default: only jobs that have not ended. */
  readonly all?: boolean;
  readonly states?: readonly JobState[];
  readonly tenant?: string;
  /** A job name pattern (src/lib/name-pattern.ts). */
  readonly namePattern?: string;
  /** Only jobs submitted at or after this time, ms since the epoch. */
  readonly submittedSinceMs?: number;
  /** Page size; absent: every matching job. */
  readonly limit?: number;
  /** Only jobs with an id above this one. */
  readonly afterId?: number;
  /** Only these fields of each job (`id` always); absent: every field. */
  readonly fields?: readonly JobField[];
}

/** What a listing reads. */
export interface JobListingDeps {
  readonly plane: ControlPlane;
  readonly store: StateStore;
}

/**
 * One page of the jobs `principal` may see, by ascending id; `nextAfter` is the last id of the
 * page when more jobs match (the store is asked for one job more than the page), else null.
 * @throws GpushareError 403 when the principal may not read jobs
 */
export function listJobPage(
  deps: JobListingDeps,
  principal: Principal,
  query: JobListQuery,
  viewer: StatusViewer,
): JobPage {
  authorize(principal, 'job.read');
  let tenant = query.tenant;
  if (principal.role !== 'admin') {
    if (tenant !== undefined && tenant !== principal.tenant) return { jobs: [], nextAfter: null };
    tenant = principal.tenant!;
  }
  const states = query.states ?? (query.all === true ? undefined : ACTIVE_JOB_STATES);
  const filter: JobFilter = {
    ...(tenant === undefined ? {} : { tenant }),
    ...(states === undefined ? {} : { states }),
    ...(query.namePattern === undefined ? {} : { namePattern: query.namePattern }),
    ...(query.submittedSinceMs === undefined ? {} : { submittedSinceMs: query.submittedSinceMs }),
    ...(query.afterId === undefined ? {} : { afterId: query.afterId }),
    ...(query.limit === undefined ? {} : { limit: query.limit + 1 }),
  };
  const records = deps.store.listJobs(filter);
  const more = query.limit !== undefined && records.length > query.limit;
  const page = more ? records.slice(0, query.limit) : records;
  const view = jobViewBuilder(deps.plane, viewer);
  const pick = query.fields === undefined ? null : fieldPicker(query.fields);
  const jobs = page.map((record): ListedJob => {
    const full = view(record);
    return pick === null ? full : pick(full);
  });
  return { jobs, nextAfter: more ? page[page.length - 1]!.id : null };
}

/**
 * One page of the job table (`view=table`): the rows of the jobs {@link listJobPage} answers (same
 * selectors and cursor; `query.fields` is ignored), each written by jobTableRow with ages from `nowMs`
 * (epoch ms). @throws GpushareError 403 when the principal may not read jobs
 */
export function listJobTablePage(
  deps: JobListingDeps,
  principal: Principal,
  query: JobListQuery,
  viewer: StatusViewer,
  nowMs: number,
): JobTablePage {
  // Rows straight from the views: picking the table's fields first would only copy them.
  const { fields: _fields, ...selectors } = query;
  const page = listJobPage(deps, principal, selectors, viewer);
  return {
    columns: [...JOB_TABLE_COLUMNS],
    rows: page.jobs.map((job) => jobTableRow(job as TableJob, nowMs)),
    nextAfter: page.nextAfter,
  };
}

/** A function that copies `id` and `fields` of a job view, in the order of JobSchema. */
function fieldPicker(fields: readonly JobField[]): (view: JobView) => ListedJob {
  const chosen = JOB_FIELDS.filter((field) => field === 'id' || fields.includes(field));
  return (view) => {
    const out: Partial<Record<JobField, unknown>> = {};
    for (const field of chosen) if (view[field] !== undefined) out[field] = view[field];
    return out as ListedJob;
  };
}

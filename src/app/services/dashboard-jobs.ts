/**
 * The dashboard's job list (`GET /api/v1/dashboard/jobs`): the jobs a caller may see that match a
 * filter (a name pattern, states, a tenant), counted whole and returned one page at a time, so a
 * deep queue is never sent whole. Only the page's jobs become views: counting 10,000 matches reads
 * their records and builds nothing else. Same visibility and redaction as `JobService.list`: anyone
 * but an admin sees its own tenant's jobs only, with reasons that never name another tenant's job.
 */
import { isTerminal, type JobState } from '../../core/index.js';
import type { JobView } from '../../contract/api.js';
import { compileNamePattern } from '../../lib/name-pattern.js';
import type { Principal } from '../auth/tokens.js';
import { authorize } from '../auth/authorize.js';
import { forbidden, invalidField } from '../errors.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import type { JobService } from './job-service.js';
import { toJobView } from './views.js';

/** What the dashboard's job list shows: each field narrows it; absent or null fields do not. */
export interface DashboardJobFilter {
  /** Whole-name pattern (src/lib/name-pattern.ts: `*` any run of characters). */
  readonly namePattern?: string | null;
  /** Only jobs in these states (at least one). */
  readonly states?: readonly JobState[] | null;
  /** Only this tenant's jobs; a non-admin may name only its own tenant. */
  readonly tenant?: string | null;
  /** Matching jobs skipped before the page (≥ 0). */
  readonly offset: number;
  /** The most jobs of the page (≥ 1). */
  readonly limit: number;
}

/** One page of the dashboard's job list. */
export interface DashboardJobPage {
  /** Every job that matches (the caller may see), all pages together. */
  readonly total: number;
  /** Every job the caller may see, the filter aside (the "of" of "1 of 10,000"). */
  readonly unfiltered: number;
  readonly offset: number;
  readonly limit: number;
  /** Active jobs by ascending id, then ended jobs newest first; `limit` at most. */
  readonly jobs: JobView[];
}

/** What `dashboardJobs` reads. */
export interface DashboardJobSources {
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly store: StateStore;
}

/** The store query of the job list: one tenant (or all), some states (or all), a name pattern (or any). */
export interface MatchingJobsQuery {
  readonly tenant?: string;
  readonly states?: readonly JobState[];
  readonly namePattern?: string;
}

/**
 * The stored jobs that match `query`, by ascending id, selected by the store (tenant, states, name
 * pattern).
 * @throws GpushareError 400 naming `name` for a pattern of 0 or over 256 characters
 */
export function listMatchingJobs(store: StateStore, query: MatchingJobsQuery): JobRecord[] {
  try {
    if (query.namePattern !== undefined) compileNamePattern(query.namePattern);
  } catch (error) {
    throw invalidField('name', (error as Error).message);
  }
  // The store matches the pattern (its literal prefix on the name index).
  return store.listJobs({
    ...(query.tenant === undefined ? {} : { tenant: query.tenant }),
    ...(query.states === undefined ? {} : { states: query.states }),
    ...(query.namePattern === undefined ? {} : { namePattern: query.namePattern }),
  });
}

/**
 * The page of `filter` that `principal` may see.
 * @throws GpushareError 403 when a non-admin names another tenant (or a report token asks); 400
 *   naming the field for a bad name pattern, offset or limit
 */
export function dashboardJobs(
  sources: DashboardJobSources,
  principal: Principal,
  filter: DashboardJobFilter,
): DashboardJobPage {
  authorize(principal, 'job.read');
  if (!Number.isInteger(filter.offset) || filter.offset < 0)
    throw invalidField('offset', `must be an integer ≥ 0, got ${filter.offset}`);
  if (!Number.isInteger(filter.limit) || filter.limit < 1)
    throw invalidField('limit', `must be an integer ≥ 1, got ${filter.limit}`);
  if (filter.states !== undefined && filter.states !== null && filter.states.length === 0)
    throw invalidField('states', 'name at least one state');
  const empty: DashboardJobPage = { total: 0, unfiltered: 0, offset: filter.offset, limit: filter.limit, jobs: [] };
  // Same visibility as JobService.list: a non-admin without a tenant sees no job.
  if (principal.role !== 'admin' && principal.tenant === null) return empty;
  const own = principal.role === 'admin' ? null : principal.tenant;
  if (own !== null && filter.tenant !== undefined && filter.tenant !== null && filter.tenant !== own) {
    throw forbidden(
      `this ${principal.role} token belongs to tenant "${own}" and sees only its jobs; tenant "` +
        `${filter.tenant}" needs an admin token`,
    );
  }
  const tenant = own ?? filter.tenant ?? undefined;
  const matching = listMatchingJobs(sources.store, {
    ...(tenant === undefined ? {} : { tenant }),
    ...(filter.states ? { states: [...new Set(filter.states)] } : {}),
    ...(filter.namePattern ? { namePattern: filter.namePattern } : {}),
  });
  // Active jobs first (ascending id: queue order), then the ended ones newest first.
  const active = matching.filter((job) => !isTerminal(job.state));
  const ended = matching.filter((job) => isTerminal(job.state)).reverse();
  const page = [...active, ...ended].slice(filter.offset, filter.offset + filter.limit);
  // Counted without building views; a second read only when the filter narrowed the list.
  const filtered = Boolean(filter.namePattern) || Boolean(filter.states) || (own === null && Boolean(filter.tenant));
  const unfiltered = filtered ? sources.store.listJobs(own === null ? {} : { tenant: own }).length : matching.length;
  const viewer = sources.jobs.viewerFor(principal);
  return {
    total: matching.length,
    unfiltered,
    offset: filter.offset,
    limit: filter.limit,
    jobs: page.map((job) => toJobView(job, sources.plane, viewer)),
  };
}

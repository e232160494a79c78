/**
 * Who reads a Status's line, and how the jobs and tenants its details name are written for them.
 * A line is always rendered for one viewer from the code and the details: an admin sees every job
 * and tenant by name; anyone else sees their own tenant's jobs by id and everything of another
 * tenant as "another tenant's job" or "another tenant" (no id, no name), so a tenant's line is
 * built without another tenant's data in the first place. A job whose tenant is unknown counts as
 * another tenant's.
 */

/** How the names in a line are written for one viewer. */
export interface StatusViewer {
  /** True for a viewer who sees every job and tenant by name (an admin). */
  readonly seesEverything: boolean;
  /** Whether the viewer may see job `jobId` by id. */
  seesJob(jobId: number): boolean;
  /** `job 7` for a job the viewer may see; `another tenant's job` otherwise. */
  job(jobId: number): string;
  /**
   * Several jobs: `job(s) 4, 5`; with hidden ones `job(s) 4 and 2 jobs of other tenants`, or
   * only `2 jobs of other tenants` (one: `another tenant's job`).
   */
  jobs(jobIds: readonly number[]): string;
  /** `tenant a` for the viewer's own tenant (or any, for an admin); `another tenant` otherwise. */
  tenant(name: string): string;
}

/** The words for `count` jobs of other tenants. */
function othersJobs(count: number): string {
  return count === 1 ? "another tenant's job" : `${count} jobs of other tenants`;
}

function viewer(
  seesEverything: boolean,
  mayName: (jobId: number) => boolean,
  mayNameTenant: (name: string) => boolean,
): StatusViewer {
  return {
    seesEverything,
    seesJob: mayName,
    job: (jobId) => (mayName(jobId) ? `job ${jobId}` : othersJobs(1)),
    jobs: (jobIds) => {
      const visible = jobIds.filter(mayName);
      const hidden = jobIds.length - visible.length;
      if (hidden === 0) return `job(s) ${visible.join(', ')}`;
      if (visible.length === 0) return othersJobs(hidden);
      return `job(s) ${visible.join(', ')} and ${othersJobs(hidden)}`;
    },
    tenant: (name) => (mayNameTenant(name) ? `tenant ${name}` : 'another tenant'),
  };
}

/** The viewer who sees everything (an admin; logs and the audit log). */
export const ADMIN_VIEWER: StatusViewer = viewer(
  true,
  () => true,
  () => true,
);

/**
 * The viewer of tenant `tenant`: jobs of `tenant` (by `tenantOfJob`, null for unknown) by id, all
 * else hidden; null `tenant` (a principal of no tenant that is not an admin) sees no job by id.
 */
export function tenantViewer(tenant: string | null, tenantOfJob: (jobId: number) => string | null): StatusViewer {
  return viewer(
    false,
    (jobId) => tenant !== null && tenantOfJob(jobId) === tenant,
    (name) => tenant !== null && name === tenant,
  );
}

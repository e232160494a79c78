/**
 * The scope of a job's report token (`GPUSHARE_JOB_TOKEN`, docs/qos.md): it authenticates only
 * `POST /api/v1/jobs/<its job id>/qos-reports`. Any other route answers 403; so does another
 * job's report route. Checked for every authenticated request before its route runs.
 */
import { forbidden } from '../errors.js';
import type { Principal } from './tokens.js';

/** Path of the report route of job `jobId`. */
export function qosReportPath(jobId: number): string {
  return `/api/v1/jobs/${jobId}/qos-reports`;
}

/**
 * Lets admin and tenant principals through (their routes check their own rules); a job principal
 * only to its own report route.
 * @param method HTTP method
 * @param url request URL (path and query)
 * @throws GpushareError 403 naming the one call a job token may make
 */
export function checkJobTokenScope(principal: Principal, method: string, url: string): void {
  if (principal.role !== 'job') return;
  const own = qosReportPath(principal.jobId ?? -1);
  const path = url.split('?')[0]!.replace(/\/+$/, '');
  if (method.toUpperCase() === 'POST' && path === own) return;
  const other = /^\/api\/v1\/jobs\/([^/]+)\/qos-reports$/.exec(path);
  if (method.toUpperCase() === 'POST' && other)
    throw forbidden(
      `this job token belongs to job ${principal.jobId} and cannot report for job ${decodeURIComponent(other[1]!)}`,
    );
  throw forbidden(
    `a job token (GPUSHARE_JOB_TOKEN) may only call POST ${own}; use a tenant or admin token for ` +
      `${method.toUpperCase()} ${path}`,
  );
}

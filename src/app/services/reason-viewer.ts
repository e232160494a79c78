/**
 * Who reads a job's reasons: an admin sees every job and tenant by name; anyone else sees their
 * own tenant's jobs by id and another tenant's job as "another tenant's job" (core
 * status-viewer.ts). Reasons are stored as codes with details (decision 0026), and every line is
 * written for its viewer from them, so a tenant's line is built without another tenant's data in
 * the first place: nothing is rewritten after the fact, nothing is parsed.
 */
import { ADMIN_VIEWER, tenantViewer, type StatusViewer } from '../../core/index.js';
import type { Principal } from '../auth/tokens.js';

/**
 * The viewer of `principal`: ADMIN_VIEWER for an admin; else one that names only jobs whose tenant
 * (`tenantOfJob`, null for unknown) is the principal's.
 */
export function viewerFor(principal: Principal, tenantOfJob: (jobId: number) => string | null): StatusViewer {
  return principal.role === 'admin' ? ADMIN_VIEWER : tenantViewer(principal.tenant, tenantOfJob);
}

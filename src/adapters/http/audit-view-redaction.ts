/**
 * Audit entries as a non-admin (a tenant-admin) sees them. The server's GPU actions (entries of
 * role `server`, app/audit/plane-audit.ts) keep a job's reason as its code and details
 * (`summary.reason`: `{ code, details }`); a tenant-admin reads its line, written for them (core
 * status-viewer.ts): another tenant's job is "another tenant's job", another tenant "another
 * tenant". A `summary.reason` of a server entry stored as text (before reasons were coded) is
 * withheld (null), not parsed. Every number of a field that names a job (`jobId`,
 * `preemptorJobId`, `victimIds`, …) of another tenant becomes null. Only a server entry's own
 * `summary.reason` is read as a reason: an object a caller sent in a request body is data, never a
 * line. Admins see entries as stored (their hashes check: `gpushare audit verify`).
 */
import { STATUS_CODES, statusMessage, type Status, type StatusViewer } from '../../core/index.js';
import type { AuditEntryView } from '../../contract/audit.js';

/** Field names whose numbers are job ids. */
const JOB_ID_KEY = /jobids?$|^victim/i;

const CODES: ReadonlySet<string> = new Set(STATUS_CODES);

/** What {@link auditEntryForViewer} needs about the reader. */
export interface AuditViewer {
  /** How the reader reads reasons. */
  readonly viewer: StatusViewer;
  /** Whether a job is the reader's tenant's. */
  readonly ownJob: (jobId: number) => boolean;
}

/** A coded reason (`{ code, details }` with a known code), or null. */
function codedReason(value: unknown): Status | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { code, details } = value as { code?: unknown; details?: unknown };
  if (typeof code !== 'string' || !CODES.has(code) || details === null || typeof details !== 'object') return null;
  return { code: code as Status['code'], lasting: false, details: details as Status['details'] };
}

/** `value` with other tenants' job ids (under a job-id key) null. */
function withoutOtherJobs(value: unknown, r: AuditViewer, jobKey: boolean): unknown {
  if (typeof value === 'number') return jobKey && !r.ownJob(value) ? null : value;
  if (Array.isArray(value)) return value.map((item) => withoutOtherJobs(item, r, jobKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, field]) => [name, withoutOtherJobs(field, r, jobKey || JOB_ID_KEY.test(name))]),
    );
  }
  return value;
}

/** An entry view as a non-admin sees it (see the module comment). */
export function auditEntryForViewer(view: AuditEntryView, r: AuditViewer): AuditEntryView {
  const summary = withoutOtherJobs(view.summary, r, false) as AuditEntryView['summary'];
  if (view.role !== 'server' || summary === null || typeof summary !== 'object' || Array.isArray(summary))
    return { ...view, summary };
  const fields = summary as Record<string, unknown>;
  if (!('reason' in fields)) return { ...view, summary };
  const reason = codedReason((view.summary as Record<string, unknown>).reason);
  return {
    ...view,
    summary: {
      ...fields,
      reason: reason === null ? null : statusMessage(reason, r.viewer),
    } as AuditEntryView['summary'],
  };
}

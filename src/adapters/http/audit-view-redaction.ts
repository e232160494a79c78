/**
 * Audit entries as their reader sees them. The server's GPU actions keep a job's reason as its
 * code and details (`{ code, details }`, app/audit/plane-audit.ts); every reader gets its line,
 * written for them (core status-viewer.ts): an admin sees every job and tenant, anyone else (a
 * tenant-admin) sees another tenant's job as "another tenant's job". For anyone but an admin,
 * every number of a field that names a job (`jobId`, `preemptorJobId`, `victimIds`, …) of
 * another tenant becomes null, and a `reason` stored as text (entries written before reasons were
 * coded) becomes null: it is withheld, not parsed.
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
  /** Whether a job is the reader's tenant's (always true for an admin). */
  readonly ownJob: (jobId: number) => boolean;
}

/** A coded reason (`{ code, details }` with a known code), or null. */
function codedReason(value: unknown): Status | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { code, details } = value as { code?: unknown; details?: unknown };
  if (typeof code !== 'string' || !CODES.has(code) || details === null || typeof details !== 'object') return null;
  return { code: code as Status['code'], lasting: false, details: details as Status['details'] };
}

/** `value` for the reader: coded reasons as their line, other tenants' job ids (under a job-id key) null. */
function forViewer(value: unknown, r: AuditViewer, key: string, jobKey: boolean): unknown {
  if (key === 'reason') {
    const reason = codedReason(value);
    if (reason !== null) return statusMessage(reason, r.viewer);
    if (typeof value === 'string' && !r.viewer.seesEverything) return null;
  }
  if (typeof value === 'number') return jobKey && !r.ownJob(value) ? null : value;
  if (Array.isArray(value)) return value.map((item) => forViewer(item, r, '', jobKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, field]) => [name, forViewer(field, r, name, jobKey || JOB_ID_KEY.test(name))]),
    );
  }
  return value;
}

/** An entry view as its reader sees it (see the module comment). */
export function auditEntryForViewer(view: AuditEntryView, r: AuditViewer): AuditEntryView {
  return { ...view, summary: forViewer(view.summary, r, '', false) as AuditEntryView['summary'] };
}

/**
 * Audit entries as a non-admin (a tenant-admin) sees them: a GPU action of its own job may name
 * another tenant's job (`job.preempt` carries `preemptorJobId` and a reason like `preempted by job
 * 12 (priority 1000, tenant team-b)`). Every string of the summary and outcome goes through the
 * same redaction as job views (app/services/reason-redaction.ts), and every number of a field
 * that names a job (`jobId`, `preemptorJobId`, `victimIds`, …) of another tenant becomes null.
 * Admins see entries unchanged.
 */
import type { ReasonRedactor } from '../../app/services/reason-redaction.js';
import type { AuditEntryView } from '../../contract/audit.js';

/** Field names whose numbers are job ids. */
const JOB_ID_KEY = /jobids?$|^victim/i;

/** What {@link redactAuditView} needs about the viewer. */
export interface AuditViewRedaction {
  /** The job-view redactor of the viewer (`reasonRedactor`). */
  readonly redact: ReasonRedactor;
  /** Whether a job is the viewer's tenant's. */
  readonly ownJob: (jobId: number) => boolean;
}

/** `value` with its strings redacted and other tenants' job ids (under a job-id key) null. */
function redactValue(value: unknown, r: AuditViewRedaction, jobKey: boolean): unknown {
  if (typeof value === 'string') return r.redact(value);
  if (typeof value === 'number') return jobKey && !r.ownJob(value) ? null : value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, r, jobKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [key, redactValue(field, r, jobKey || JOB_ID_KEY.test(key))]),
    );
  }
  return value;
}

/** An entry view as a non-admin sees it (see the module comment). */
export function redactAuditView(view: AuditEntryView, r: AuditViewRedaction): AuditEntryView {
  return {
    ...view,
    target: r.redact(view.target) ?? view.target,
    summary: redactValue(view.summary, r, false) as AuditEntryView['summary'],
    outcome: { ...view.outcome, message: r.redact(view.outcome.message) },
  };
}

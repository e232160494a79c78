/**
 * Reasons as a non-admin sees them: a waiting reason, a preemption reason or a transition's reason
 * may name other jobs (`preempted by job 7 (…)`, `waiting behind job 3: …`, `preempting job(s) 4,
 * 5: …`, `job 9 misses its QoS target`). The store keeps the truth, which admins see; for anyone
 * else every mention of another tenant's job becomes "another tenant's job" (its id never shows,
 * and no reason carries a job's name). A job whose tenant is unknown counts as another tenant's.
 */
import type { JobDetailView, JobView } from '../../contract/api.js';
import type { Principal } from '../auth/tokens.js';

/** Rewrites one reason for one viewer; null stays null. */
export type ReasonRedactor = (text: string | null) => string | null;

/** `job 7`, `jobs 3, 4`, `job(s) 3, 4`, `job #7`: the forms gpushare's reasons name jobs in. */
const JOB_MENTION = /\bjob(\(s\)|s)? #?(\d+(?:, #?\d+)*)\b/g;

/** The words for `count` jobs of other tenants. */
function others(count: number): string {
  return count === 1 ? "another tenant's job" : `${count} jobs of other tenants`;
}

/**
 * The redactor for `principal`: the identity for an admin; else one that replaces mentions of jobs
 * whose tenant (`tenantOfJob`) is not the principal's.
 */
export function reasonRedactor(principal: Principal, tenantOfJob: (jobId: number) => string | null): ReasonRedactor {
  if (principal.role === 'admin') return (text) => text;
  const own = principal.tenant;
  return (text) => {
    if (text === null) return null;
    return text.replace(JOB_MENTION, (mention: string, plural: string | undefined, list: string) => {
      const ids = list.split(', ').map((id) => Number(id.replace('#', '')));
      const visible = ids.filter((id) => own !== null && tenantOfJob(id) === own);
      if (visible.length === ids.length) return mention;
      const hidden = others(ids.length - visible.length);
      if (visible.length === 0) return hidden;
      return `job${plural ?? ''} ${visible.join(', ')} and ${hidden}`;
    });
  };
}

/** A job view with its reason redacted. */
export function redactJobView<V extends JobView>(view: V, redact: ReasonRedactor): V {
  return { ...view, reason: redact(view.reason) };
}

/** A job's detail with its reason, its transitions' reasons and its attempts' end reasons redacted. */
export function redactJobDetail(view: JobDetailView, redact: ReasonRedactor): JobDetailView {
  return {
    ...redactJobView(view, redact),
    events: view.events.map((e) => ({ ...e, reason: redact(e.reason) })),
    attempts: view.attempts.map((a) => ({ ...a, endReason: redact(a.endReason) })),
  };
}

/**
 * `GET /api/v1/audit`: audit log entries (docs/security.md "Audit log"): every entry for an admin,
 * its own tenant's for a tenant-admin.
 */
import { authorize } from '../../../app/auth/authorize.js';
import type { AuditEntry } from '../../../app/ports/audit-log.js';
import { AuditListSchema, AuditQuerySchema, type AuditEntryView } from '../../../contract/audit.js';
import type { AuditServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** An entry as the API shows it. */
function entryView(entry: AuditEntry): AuditEntryView {
  return {
    seq: entry.seq, at: new Date(entry.atMs).toISOString(), actor: entry.actor, role: entry.role, tenant: entry.tenant, action: entry.action, target: entry.target,
    summary: entry.summary, outcome: entry.outcome, prevHash: entry.prevHash, hash: entry.hash,
  };
}

/** Registers the audit route. */
export function registerAuditRoutes(api: Api, audit: AuditServices): void {
  api.get('/audit', {
    schema: { tags: ['admin'], summary: 'Audit log entries in seq order (admin; a tenant-admin its tenant\'s): the newest `limit`, or pages with afterSeq', querystring: AuditQuerySchema, response: { 200: AuditListSchema } },
  }, async (request) => {
    const { principal } = request;
    authorize(principal, 'audit.read', { tenant: request.query.tenant ?? principal.tenant });
    const { since, afterSeq, limit, newest } = request.query;
    // A tenant-admin reads its own tenant's entries only, whatever it asks for.
    const tenant = principal.role === 'admin' ? request.query.tenant : principal.tenant!;
    const entries = audit.log.list({
      limit, newest: newest === 'true',
      ...(since === undefined ? {} : { sinceMs: Date.parse(since) }),
      ...(afterSeq === undefined ? {} : { afterSeq }),
      ...(tenant === undefined ? {} : { tenant }),
    });
    return { entries: entries.map(entryView) };
  });
}

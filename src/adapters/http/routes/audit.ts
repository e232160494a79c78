/**
 * `GET /api/v1/audit`: audit log entries (docs/security.md "Audit log"): every entry for an admin,
 * its own tenant's for a tenant-admin, with other tenants' job ids redacted (audit-view-redaction.ts).
 */
import { authorize } from '../../../app/auth/authorize.js';
import { viewerFor } from '../../../app/services/reason-viewer.js';
import type { AuditEntry } from '../../../app/ports/audit-log.js';
import { AuditListSchema, AuditQuerySchema, type AuditEntryView } from '../../../contract/audit.js';
import { auditEntryForViewer } from '../audit-view-redaction.js';
import type { AuditServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** An entry as the API shows it. */
function entryView(entry: AuditEntry): AuditEntryView {
  return {
    seq: entry.seq,
    at: new Date(entry.atMs).toISOString(),
    actor: entry.actor,
    role: entry.role,
    tenant: entry.tenant,
    action: entry.action,
    target: entry.target,
    summary: entry.summary,
    outcome: entry.outcome,
    prevHash: entry.prevHash,
    hash: entry.hash,
  };
}

/** Registers the audit route. */
export function registerAuditRoutes(api: Api, audit: AuditServices): void {
  api.get(
    '/audit',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Audit log entries in seq order (admin; a tenant-admin its tenant's): the oldest `limit` " +
          'matching entries (paging with afterSeq), or the newest `limit` with newest=true; a ' +
          "tenant-admin sees no other tenant's job ids",
        querystring: AuditQuerySchema,
        response: { 200: AuditListSchema },
      },
    },
    async (request) => {
      const { principal } = request;
      authorize(principal, 'audit.read', { tenant: request.query.tenant ?? principal.tenant });
      const { since, afterSeq, limit, newest } = request.query;
      // A tenant-admin reads its own tenant's entries only, whatever it asks for.
      const tenant = principal.role === 'admin' ? request.query.tenant : principal.tenant!;
      const entries = audit.log.list({
        limit,
        newest: newest === 'true',
        ...(since === undefined ? {} : { sinceMs: Date.parse(since) }),
        ...(afterSeq === undefined ? {} : { afterSeq }),
        ...(tenant === undefined ? {} : { tenant }),
      });
      // An admin reads the entries as stored (their hashes check).
      if (principal.role === 'admin') return { entries: entries.map(entryView) };
      // Anyone else: reasons written for them, no other tenant's job ids (audit-view-redaction.ts).
      const reader = {
        viewer: viewerFor(principal, audit.jobTenant),
        ownJob: (id: number) => principal.tenant !== null && audit.jobTenant(id) === principal.tenant,
      };
      return { entries: entries.map((e) => auditEntryForViewer(entryView(e), reader)) };
    },
  );
}

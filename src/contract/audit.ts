/**
 * The audit log's API shapes (zod): `GET /api/v1/audit` (docs/security.md "Audit log").
 */
import { z } from 'zod';
import { isoTimeWithZone } from './iso-time.js';
import { textOfLength } from './api.js';

/** Most entries one `GET /api/v1/audit` returns. */
export const AUDIT_PAGE_MAX = 10_000;

/** `GET /api/v1/audit` query. */
export const AuditQuerySchema = z
  .object({
    since: isoTimeWithZone('since must be an ISO 8601 time with a zone, e.g. 2025-01-31T12:00:00Z')
      .optional()
      .describe('only entries at or after this time'),
    afterSeq: z.coerce
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('only entries with a larger seq (paging)'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(AUDIT_PAGE_MAX)
      .default(100)
      .describe(`at most this many entries (1-${AUDIT_PAGE_MAX}, default 100)`),
    newest: z
      .enum(['true', 'false'])
      .default('false')
      .describe('true: the newest `limit` matching entries; false: the oldest (paging with afterSeq)'),
    tenant: textOfLength(0, 63, 'tenant: at most 63 characters').optional().describe('only entries of this tenant'),
  })
  .strict();

/** One audit entry as the API shows it. */
export const AuditEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string().describe('ISO 8601 time'),
  actor: z.string(),
  role: z.string(),
  tenant: z.string().nullable(),
  action: z.string(),
  target: z.string(),
  summary: z.record(z.unknown()),
  outcome: z.object({
    result: z
      .enum(['ok', 'denied', 'rejected', 'failed', 'unreadable'])
      .describe('unreadable: the stored outcome is not a JSON object (an edited row); message holds its text'),
    httpStatus: z.number().int().nullable(),
    message: z.string().nullable(),
  }),
  prevHash: z.string(),
  hash: z.string(),
});
/** An audit entry (API view). */
export type AuditEntryView = z.infer<typeof AuditEntrySchema>;

/** `GET /api/v1/audit` answer. */
export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema) });

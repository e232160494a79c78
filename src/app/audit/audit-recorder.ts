/**
 * Recording into the audit log without ever breaking, or hiding the failure of, the action being
 * recorded: an append that throws (a full disk, a closed store) is reported to the server's log
 * with the entry's action and target, and the action itself goes on.
 */
import type { Principal } from '../auth/tokens.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { AuditLog, AuditResult, NewAuditEntry } from '../ports/audit-log.js';

/** Records an entry; never throws. */
export type AuditRecord = (entry: NewAuditEntry) => void;

/** An {@link AuditRecord} over `log` whose failures go to `logger` (level error). */
export function safeAuditRecorder(log: AuditLog, logger: Pick<Logger, 'error'>): AuditRecord {
  return (entry) => {
    try {
      log.append(entry);
    } catch (error) {
      logger.error(
        { err: error, action: entry.action, target: entry.target, actor: entry.actor },
        `audit log: could not record ${entry.action} on ${entry.target}`,
      );
    }
  };
}

/**
 * Who a principal is, in words: `admin token 1`, `tenant-admin token 7 of team-a`, `job 12's
 * report token`; with the token's label when `label` gives one (`admin token 1 (ci)`).
 */
export function auditActor(principal: Principal, label: (tokenId: number) => string | null = () => null): string {
  if (principal.role === 'job') return `job ${principal.jobId ?? '?'}'s report token`;
  const id = principal.tokenId;
  const named = id === undefined ? null : label(id);
  const token =
    `${principal.role} token${id === undefined ? '' : ` ${id}`}` +
    `${principal.tenant === null ? '' : ` of ${principal.tenant}`}`;
  return named ? `${token} (${named})` : token;
}

/**
 * The result an HTTP status stands for: `ok` below 400, `denied` for 403, `rejected` for another 4xx, `failed` for 5xx.
 */
export function auditResultOf(httpStatus: number): AuditResult {
  if (httpStatus < 400) return 'ok';
  if (httpStatus === 403) return 'denied';
  return httpStatus < 500 ? 'rejected' : 'failed';
}

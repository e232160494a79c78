/**
 * The audit log: an append-only, hash-chained record of every state-changing API call and every
 * GPU action the control plane takes (docs/security.md "Audit log", decision 0016). Implementations:
 * SQLite (src/adapters/store/sqlite-audit-log.ts, the `audit_log` table of the store database) and
 * in memory (src/adapters/store/memory-audit-log.ts, tests). Both chain entries with
 * src/app/audit/audit-chain.ts.
 */

/** A JSON value as a summary holds it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * How an action ended: `ok` (done), `denied` (403: the caller may not), `rejected` (another 4xx: bad
 * input, unknown target, conflict), `failed` (5xx: the server could not); `unreadable` only when
 * listing a stored row whose outcome text is not a JSON object (an edited row; never recorded).
 */
export type AuditResult = 'ok' | 'denied' | 'rejected' | 'failed' | 'unreadable';

/** The outcome of an audited action. */
export interface AuditOutcome {
  readonly result: AuditResult;
  /** The HTTP status answered; null for actions of the control plane itself. */
  readonly httpStatus: number | null;
  /**
   * The error message answered (cut to a few hundred characters); when `ok`, null, or for a bulk action what it did
   * (docs/security.md "Audit log").
   */
  readonly message: string | null;
}

/** An entry as recorded by its author, before the log numbers and chains it. */
export interface NewAuditEntry {
  /** When the action happened, ms since the epoch. */
  readonly atMs: number;
  /**
   * Who acted, in words: `admin token 1`, `tenant-admin token 7 of team-a`, `job 12's report token`, `scheduler`,
   * `server`.
   */
  readonly actor: string;
  /** The actor's role: a token role, `job`, or `server` for the control plane. */
  readonly role: string;
  /** The tenant acted for or on; null when none (a GPU, the server). */
  readonly tenant: string | null;
  /** What was done, e.g. `job.submit`, `gpu.cordon`, `token.create`, `gpu.allocate`, `mig.reconfigure`. */
  readonly action: string;
  /** What it was done to, e.g. `job 12`, `gpu 0`, `tenant team-a`, `token 7`, `server`. */
  readonly target: string;
  /** The request in brief (method, route, params, body without secrets) or the action's details. */
  readonly summary: { readonly [key: string]: JsonValue };
  readonly outcome: AuditOutcome;
}

/** A recorded entry: numbered from 1 without gaps, chained to the previous one by its hash. */
export interface AuditEntry extends NewAuditEntry {
  readonly seq: number;
  /** The previous entry's hash (64 zeros for the first), lower-case hex. */
  readonly prevHash: string;
  /** SHA-256 over `prevHash` and the entry's fields (audit-chain.ts `auditEntryHash`), lower-case hex. */
  readonly hash: string;
}

/** Which entries `list` returns. */
export interface AuditFilter {
  /** Only entries at or after this time, ms since the epoch. */
  readonly sinceMs?: number;
  /** Only entries with a larger seq (paging). */
  readonly afterSeq?: number;
  /** Only entries of this tenant. */
  readonly tenant?: string;
  /** At most this many entries (1 or more). */
  readonly limit: number;
  /** Take the newest `limit` matching entries instead of the oldest; the result is still in seq order. */
  readonly newest?: boolean;
}

/** The last entry's seq and hash; seq 0 and 64 zeros for an empty log. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

/** The append-only audit log. */
export interface AuditLog {
  /**
   * Numbers, chains and stores `entry` in one transaction.
   * @returns the stored entry
   * @throws the storage error (a full disk, a closed store); nothing is stored then
   */
  append(entry: NewAuditEntry): AuditEntry;
  /** Entries matching `filter`, in seq order. */
  list(filter: AuditFilter): AuditEntry[];
  /** The last entry's seq and hash. */
  head(): AuditHead;
}

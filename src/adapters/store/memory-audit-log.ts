/**
 * The audit log in memory (tests): the same numbering and hash chain as the SQLite one
 * (src/app/audit/audit-chain.ts), kept in an array.
 */
import { auditEntryOfRow, chainAuditEntry, GENESIS_HASH, type StoredAuditRow } from '../../app/audit/audit-chain.js';
import type { AuditEntry, AuditFilter, AuditLog, NewAuditEntry } from '../../app/ports/audit-log.js';

/** An in-memory audit log; `rows()` gives the stored rows (to verify or tamper with in tests). */
export interface MemoryAuditLog extends AuditLog {
  /** The stored rows, in seq order (a copy). */
  rows(): StoredAuditRow[];
}

/** A new, empty in-memory audit log. */
export function createMemoryAuditLog(
  options: { readonly onAppend?: (entry: AuditEntry) => void } = {},
): MemoryAuditLog {
  const rows: StoredAuditRow[] = [];
  const head = () => {
    const last = rows.at(-1);
    return last === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: last.seq, hash: last.hash };
  };
  return {
    append: (entry: NewAuditEntry): AuditEntry => {
      const row = chainAuditEntry(head(), entry);
      rows.push(row);
      const stored = auditEntryOfRow(row);
      options.onAppend?.(stored);
      return stored;
    },
    list: (filter: AuditFilter): AuditEntry[] => {
      const matching = rows.filter(
        (r) =>
          (filter.tenant === undefined || r.tenant === filter.tenant) &&
          (filter.sinceMs === undefined || r.atMs >= filter.sinceMs) &&
          (filter.afterSeq === undefined || r.seq > filter.afterSeq),
      );
      const limit = Math.max(1, Math.floor(filter.limit));
      return (filter.newest === true ? matching.slice(-limit) : matching.slice(0, limit)).map(auditEntryOfRow);
    },
    head,
    rows: () => [...rows],
  };
}

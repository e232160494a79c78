/**
 * The server's audit log (docs/security.md "Audit log"): the `audit_log` table of the store
 * database, the head journal `<data-dir>/audit-head`, the control plane's GPU actions recorded from
 * its events, and what the HTTP API needs to record calls and list entries.
 */
import { join } from 'node:path';
import type { Logger } from '../app/scheduling/plane-deps.js';
import type { PlaneEvents } from '../app/scheduling/plane-events.js';
import { safeAuditRecorder } from '../app/audit/audit-recorder.js';
import { diskAwareAuditRecorder, type DiskRefusalBacklog } from '../app/audit/disk-refusals.js';
import { auditPlaneEvents } from '../app/audit/plane-audit.js';
import type { AuditLog } from '../app/ports/audit-log.js';
import type { Clock } from '../app/ports/clock.js';
import type { AuditServices } from '../adapters/http/server-services.js';
import {
  openAuditHeadJournal,
  readAuditHeadJournal,
  type AuditHeadJournal,
} from '../adapters/store/audit-head-journal.js';
import { createSqliteAuditLog } from '../adapters/store/sqlite-audit-log.js';
import type { SqliteStateStore } from '../adapters/store/sqlite-store.js';

/** The head journal's file name in the data directory. */
export const AUDIT_HEAD_FILE = 'audit-head';

/** The open audit log of a server. */
export interface ServerAuditLog {
  readonly services: AuditServices;
  /** Stops recording plane events, writes the journal's last lines (fsync) and closes it. Idempotent. */
  close(): void;
}

/**
 * Records the server's own token actions at start (actor and role `server`): `token.create` for
 * an admin token it made (the first start, or the admin-token file missing or not an active admin
 * token) and `token.revoke` for each earlier server admin token that new one replaced.
 */
export function recordServerAdminToken(
  audit: AuditServices,
  made: {
    readonly id: number;
    readonly created: boolean;
    readonly revokedIds: readonly number[];
    readonly fileState: 'missing' | 'unknown' | 'valid';
  },
): void {
  if (!made.created) return;
  const OK = { result: 'ok', httpStatus: null, message: null } as const;
  const because =
    made.fileState === 'missing'
      ? 'the admin-token file was missing'
      : 'the admin-token file held no active admin token';
  audit.record({
    atMs: audit.nowMs(),
    actor: 'server',
    role: 'server',
    tenant: null,
    action: 'token.create',
    target: `token ${made.id}`,
    summary: { role: 'admin', reason: `server start: ${because}` },
    outcome: OK,
  });
  for (const revokedId of made.revokedIds) {
    audit.record({
      atMs: audit.nowMs(),
      actor: 'server',
      role: 'server',
      tenant: null,
      action: 'token.revoke',
      target: `token ${revokedId}`,
      summary: { reason: `replaced by admin token ${made.id} at server start` },
      outcome: OK,
    });
  }
}

/**
 * Writes the journal lines of the store's entries after `lastSeq` (the batch a crash kept from the
 * journal), so that later lines leave no gap: verify names a seq the journal skips `unwitnessed`.
 */
function catchUpJournal(log: AuditLog, journal: AuditHeadJournal, lastSeq: number, logger: Logger): void {
  const firstSeq = lastSeq + 1;
  let seq = lastSeq;
  for (let page = 0; page < 1000; page++) {
    const entries = log.list({ afterSeq: seq, limit: 10_000 });
    if (entries.length === 0) break;
    for (const entry of entries) journal.record(entry.seq, entry.hash);
    seq = entries.at(-1)!.seq;
  }
  journal.flush();
  logger.warn(
    { fromSeq: firstSeq, toSeq: seq },
    `audit log: entries ${firstSeq}–${seq} were not yet in the audit-head journal (a crash?); recorded them now`,
  );
}

/**
 * Opens the audit log on the store's connection and its journal, and subscribes to `events`. A
 * journal whose last entry the store does not have (or has with another hash) is logged as an
 * error: the store lost or rewrote entries (`gpushare audit verify` names the first). With `disk`,
 * refused calls (507) and entries a full disk keeps out are held in its backlog (disk-refusals.ts).
 */
export function openServerAuditLog(
  dataDir: string,
  store: SqliteStateStore,
  events: PlaneEvents,
  clock: Clock,
  logger: Logger,
  disk?: { readonly backlog: DiskRefusalBacklog; readonly noteError: (error: unknown) => boolean },
): ServerAuditLog {
  const journalPath = join(dataDir, AUDIT_HEAD_FILE);
  const witnessed = readAuditHeadJournal(journalPath);
  const journal = openAuditHeadJournal(journalPath, {
    onError: (err) => logger.error({ err }, `audit log: cannot write ${journalPath}`),
  });
  const log = createSqliteAuditLog(store.database, { onAppend: (entry) => journal.record(entry.seq, entry.hash) });
  if (witnessed !== null && witnessed.lastSeq > 0) {
    const head = log.head();
    const stored = log.list({ afterSeq: witnessed.lastSeq - 1, limit: 1 })[0];
    if (head.seq < witnessed.lastSeq || stored?.hash !== witnessed.hashes.get(witnessed.lastSeq)) {
      logger.error(
        { journalSeq: witnessed.lastSeq, storeSeq: head.seq },
        'audit log: the store does not match the audit-head journal (entries deleted or rewritten, or a ' +
          'backup restored); run `gpushare audit verify`',
      );
    } else if (head.seq > witnessed.lastSeq) {
      catchUpJournal(log, journal, witnessed.lastSeq, logger);
    }
  }
  const record = disk
    ? diskAwareAuditRecorder({ log, logger, backlog: disk.backlog, noteError: disk.noteError })
    : safeAuditRecorder(log, logger);
  const unsubscribe = events.on(
    auditPlaneEvents({ record, job: (id) => store.getJob(id), nowMs: () => clock.nowMs() }),
  );
  let closed = false;
  return {
    services: {
      log,
      record,
      nowMs: () => clock.nowMs(),
      jobTenant: (id) => store.getJob(id)?.tenant ?? null,
      logError: (err, call) => logger.error({ err, call }, 'audit log: could not build the entry of a call'),
    },
    close: () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      journal.close();
    },
  };
}

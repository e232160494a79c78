/**
 * The server's audit log (docs/security.md "Audit log"): the `audit_log` table of the store
 * database, the head journal `<data-dir>/audit-head` (checked at start: audit-start-check.ts), the
 * anchor command, the control plane's GPU actions recorded from its events, and what the HTTP API
 * needs to record calls and list entries.
 */
import { join } from 'node:path';
import type { Logger } from '../app/scheduling/plane-deps.js';
import type { PlaneEvents } from '../app/scheduling/plane-events.js';
import { safeAuditRecorder } from '../app/audit/audit-recorder.js';
import { diskAwareAuditRecorder, type DiskRefusalBacklog } from '../app/audit/disk-refusals.js';
import { auditPlaneEvents } from '../app/audit/plane-audit.js';
import type { AuditLog } from '../app/ports/audit-log.js';
import type { Clock } from '../app/ports/clock.js';
import type { CrashPoints } from '../app/ports/crash-points.js';
import type { AuditServices } from '../adapters/http/server-services.js';
import { AUDIT_ANCHORED_FILE } from '../adapters/audit-anchor/anchored-head-file.js';
import { startAuditAnchor, type AuditAnchor, type AuditAnchorStatus } from '../adapters/audit-anchor/audit-anchor.js';
import { openAuditHeadJournal, type AuditHeadJournal } from '../adapters/store/audit-head-journal.js';
import { createSqliteAuditLog } from '../adapters/store/sqlite-audit-log.js';
import type { SqliteStateStore } from '../adapters/store/sqlite-store.js';
import { checkAuditAtStart, recordAcceptedAuditProblems } from './audit-start-check.js';

/** The head journal's file name in the data directory. */
export const AUDIT_HEAD_FILE = 'audit-head';

/** The open audit log of a server. */
export interface ServerAuditLog {
  readonly services: AuditServices;
  /** What the anchor command is doing (/healthz, metrics); null without `--audit-anchor-command`. */
  readonly anchorStatus: (() => AuditAnchorStatus) | null;
  /** Stops recording plane events, writes the journal's last lines (fsync) and closes it. Idempotent. */
  close(): void;
}

/** The anchor's state as `/healthz` shows it: whether it runs, the last head it took, the entries after that. */
export function auditAnchorHealth(status: AuditAnchorStatus): {
  up: boolean;
  anchoredSeq: number;
  unanchoredEntries: number;
} {
  return { up: status.up, anchoredSeq: status.anchoredSeq, unanchoredEntries: status.headSeq - status.anchoredSeq };
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

/** Options of {@link openServerAuditLog}. */
export interface ServerAuditOptions {
  /** `--accept-audit-problems`: start on a log that fails the start check (recorded; see audit-start-check.ts). */
  readonly acceptProblems: boolean;
  /** `--audit-anchor-command`: the shell command that receives each new head; null: none. */
  readonly anchorCommand: string | null;
  /** The disk's refusal backlog (disk-refusals.ts) and how a write error is told to the disk watch; absent: none. */
  readonly disk?: { readonly backlog: DiskRefusalBacklog; readonly noteError: (error: unknown) => boolean };
  /** Told of every append's commit and journal write (tests of crashes only, docs/crash-testing.md); absent: none. */
  readonly crashPoints?: CrashPoints;
}

/**
 * Checks the audit log (audit-start-check.ts: the server refuses to start on a problem unless
 * `acceptProblems`), opens it on the store's connection with its journal, starts the anchor command
 * when one is given, and subscribes to `events`. With `disk`, refused calls (507) and entries a full
 * disk keeps out are held in its backlog (disk-refusals.ts).
 * @throws AuditStartRefusedError naming the problems; Error of the system when the journal cannot be written
 */
export function openServerAuditLog(
  dataDir: string,
  store: SqliteStateStore,
  events: PlaneEvents,
  clock: Clock,
  logger: Logger,
  options: ServerAuditOptions,
): ServerAuditLog {
  const journalPath = join(dataDir, AUDIT_HEAD_FILE);
  const start = checkAuditAtStart(store.database, journalPath, dataDir, options.acceptProblems, clock.nowMs());
  if (start.accepted.length > 0)
    logger.warn(
      { problems: start.accepted.map((p) => p.problem), journalKeptAs: start.journalKeptAs },
      `audit log: started with --accept-audit-problems on ${start.accepted.length} problem(s); the journal was ` +
        `written anew from the store (recorded as audit.accept-problems)`,
    );
  const witnessed = start.journal;
  const journal = openAuditHeadJournal(journalPath, {
    onError: (err) => logger.error({ err }, `audit log: cannot write ${journalPath}`),
    ...(witnessed === null ? {} : { truncateToBytes: witnessed.completeLength }),
    ...(options.crashPoints ? { crashPoints: options.crashPoints } : {}),
  });
  let anchor: AuditAnchor | null = null;
  const log = createSqliteAuditLog(store.database, {
    ...(options.crashPoints ? { crashPoints: options.crashPoints } : {}),
    onAppend: (entry) => {
      journal.record(entry.seq, entry.hash);
      anchor?.offer(entry.seq, entry.hash);
    },
  });
  // The start check passed: the store leads the journal by at most one batch (a crash lost it).
  if (witnessed !== null && log.head().seq > witnessed.lastSeq) catchUpJournal(log, journal, witnessed.lastSeq, logger);
  if (options.anchorCommand !== null)
    anchor = startAuditAnchor({
      command: options.anchorCommand,
      statePath: join(dataDir, AUDIT_ANCHORED_FILE),
      logger,
      head: log.head(),
    });
  const disk = options.disk;
  const record = disk
    ? diskAwareAuditRecorder({ log, logger, backlog: disk.backlog, noteError: disk.noteError })
    : safeAuditRecorder(log, logger);
  const unsubscribe = events.on(
    auditPlaneEvents({ record, job: (id) => store.getJob(id), nowMs: () => clock.nowMs() }),
  );
  let closed = false;
  const services: AuditServices = {
    log,
    record,
    nowMs: () => clock.nowMs(),
    jobTenant: (id) => store.getJob(id)?.tenant ?? null,
    logError: (err, call) => logger.error({ err, call }, 'audit log: could not build the entry of a call'),
  };
  recordAcceptedAuditProblems(services, start);
  return {
    services,
    anchorStatus: anchor === null ? null : () => anchor.status(),
    close: () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      journal.close();
      anchor?.close();
    },
  };
}

/**
 * What the audit log does while the data directory's disk is full or below its threshold
 * (docs/security.md "Audit log", decision 0032): a call refused for want of space (507) is not
 * written one by one, nor is an entry whose append fails because the disk is full; both are counted
 * in a bounded backlog (per action, tenant, result and HTTP status; at most `maxGroups` groups, the
 * rest counted as overflow), and once there is room again one `audit.backlog` entry summarizes them.
 * Refused calls are also counted for good by reason (`disk-full`, `disk-low`) for the metric
 * `gpushare_disk_refused_calls_total`.
 */
import { isDiskFullError } from '../errors.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { AuditLog, NewAuditEntry } from '../ports/audit-log.js';
import type { AuditRecord } from './audit-recorder.js';

/** Default most groups a backlog keeps. */
const DEFAULT_MAX_GROUPS = 100;

/** Entries of one kind held back: how many, and the first and last time. */
interface BacklogGroup {
  readonly action: string;
  readonly tenant: string | null;
  readonly result: string;
  readonly httpStatus: number | null;
  count: number;
  firstAtMs: number;
  lastAtMs: number;
}

/** The refused calls and unrecorded entries of one episode of a full or low disk, bounded. */
export class DiskRefusalBacklog {
  private readonly groups = new Map<string, BacklogGroup>();
  private overflow = 0;
  private held = 0;
  private readonly refusedByReason = new Map<string, number>();

  /** @param maxGroups most groups kept (1 or more); entries of further kinds are only counted */
  constructor(private readonly maxGroups: number = DEFAULT_MAX_GROUPS) {}

  /** Counts one call refused for want of space, by the error's reason code (`disk-full`, `disk-low`). */
  noteRefused(reason: string): void {
    this.refusedByReason.set(reason, (this.refusedByReason.get(reason) ?? 0) + 1);
  }

  /** Calls refused for want of space since the server started, by reason. */
  refusedTotals(): ReadonlyMap<string, number> {
    return this.refusedByReason;
  }

  /** Entries held back now (0 once a summary was recorded). */
  get size(): number {
    return this.held;
  }

  /** Holds back one entry. */
  add(entry: NewAuditEntry): void {
    this.held += 1;
    const key = JSON.stringify([entry.action, entry.tenant, entry.outcome.result, entry.outcome.httpStatus]);
    const group = this.groups.get(key);
    if (group) {
      group.count += 1;
      group.lastAtMs = Math.max(group.lastAtMs, entry.atMs);
      group.firstAtMs = Math.min(group.firstAtMs, entry.atMs);
    } else if (this.groups.size < this.maxGroups) {
      this.groups.set(key, {
        action: entry.action,
        tenant: entry.tenant,
        result: entry.outcome.result,
        httpStatus: entry.outcome.httpStatus,
        count: 1,
        firstAtMs: entry.atMs,
        lastAtMs: entry.atMs,
      });
    } else {
      this.overflow += 1;
    }
  }

  /**
   * The `audit.backlog` entry (actor and role `server`, target `server`) summarizing what is held:
   * `summary.entries` (all held), `summary.groups` (action, tenant, result, httpStatus, count, first
   * and last time as ISO 8601, most first), `summary.overflowEntries` (held beyond `maxGroups`
   * groups); null when nothing is held.
   */
  summaryEntry(nowMs: number): NewAuditEntry | null {
    if (this.held === 0) return null;
    const groups = [...this.groups.values()].sort((a, b) => b.count - a.count || a.firstAtMs - b.firstAtMs);
    return {
      atMs: nowMs,
      actor: 'server',
      role: 'server',
      tenant: null,
      action: 'audit.backlog',
      target: 'server',
      summary: {
        reason: 'disk-space',
        entries: this.held,
        groups: groups.map((g) => ({
          action: g.action,
          tenant: g.tenant,
          result: g.result,
          httpStatus: g.httpStatus,
          count: g.count,
          first: new Date(g.firstAtMs).toISOString(),
          last: new Date(g.lastAtMs).toISOString(),
        })),
        overflowEntries: this.overflow,
        maxGroups: this.maxGroups,
      },
      outcome: { result: 'ok', httpStatus: null, message: null },
    };
  }

  /** Forgets what is held (after its summary was recorded). */
  clear(): void {
    this.groups.clear();
    this.overflow = 0;
    this.held = 0;
  }
}

/** What {@link diskAwareAuditRecorder} uses. */
export interface DiskAwareRecorderDeps {
  readonly log: AuditLog;
  readonly backlog: DiskRefusalBacklog;
  readonly logger: Pick<Logger, 'error' | 'warn'>;
  /** Reports a failed append; true when it was a full disk (the DiskSpace port's noteError). */
  readonly noteError: (error: unknown) => boolean;
}

/**
 * An {@link AuditRecord} that holds back refused calls (HTTP 507) and entries a full disk keeps
 * from the log (logged once per episode, not per entry), and records anything else at once; other
 * failures are logged as `audit log: could not record …` (audit-recorder.ts). Never throws.
 */
export function diskAwareAuditRecorder(deps: DiskAwareRecorderDeps): AuditRecord {
  const { log, backlog, logger } = deps;
  return (entry) => {
    if (entry.outcome.httpStatus === 507) {
      backlog.add(entry);
      return;
    }
    try {
      log.append(entry);
    } catch (error) {
      if (deps.noteError(error) || isDiskFullError(error)) {
        if (backlog.size === 0)
          logger.warn(
            { action: entry.action, target: entry.target },
            'audit log: the disk is full; entries are counted and summarized in one entry once there is room',
          );
        backlog.add(entry);
        return;
      }
      logger.error(
        { err: error, action: entry.action, target: entry.target, actor: entry.actor },
        `audit log: could not record ${entry.action} on ${entry.target}`,
      );
    }
  };
}

/**
 * Records the backlog's summary entry, then forgets the backlog; when the append fails (the disk
 * full again), keeps it for the next time. @returns true when a summary was recorded
 */
export function flushDiskRefusals(
  log: AuditLog,
  backlog: DiskRefusalBacklog,
  nowMs: number,
  noteError: (error: unknown) => boolean,
): boolean {
  const entry = backlog.summaryEntry(nowMs);
  if (entry === null) return false;
  try {
    log.append(entry);
  } catch (error) {
    noteError(error);
    return false;
  }
  backlog.clear();
  return true;
}

/**
 * What the HTTP routes call: the application's services, built by the composition root
 * (src/main/serve.ts) and handed to `buildServer`.
 */
import type { ApiLimits } from '../../app/auth/api-limits.js';
import type { Principal } from '../../app/auth/tokens.js';
import type { AdminService } from '../../app/services/admin-service.js';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import type { DashboardSnapshot } from '../../app/services/dashboard-snapshot.js';
import type { DashboardJobFilter, DashboardJobPage } from '../../app/services/dashboard-jobs.js';
import type { JobService } from '../../app/services/job-service.js';
import type { ServerStatus } from '../../app/services/server-status.js';
import type { UsageHistory } from '../../app/services/usage-history.js';
import type { QosService } from '../../app/qos/qos-service.js';
import type { AuditRecord } from '../../app/audit/audit-recorder.js';
import type { AuditLog } from '../../app/ports/audit-log.js';
import type { DiskProblem } from '../../app/ports/disk-space.js';

/** The audit log as the API uses it: records calls (audit-hook.ts) and lists entries (`GET /api/v1/audit`). */
export interface AuditServices {
  /** The log, for listing. */
  readonly log: AuditLog;
  /** Records an entry; never throws (a failure goes to the server's log). */
  readonly record: AuditRecord;
  /** The tenant of job `id`, null when unknown. */
  readonly jobTenant: (id: number) => string | null;
  /** A stored token's label (named in the actor), null when none. */
  readonly tokenLabel?: (tokenId: number) => string | null;
  /** The clock, ms since the epoch. */
  readonly nowMs: () => number;
  /** Where an error while building an entry goes (the server's log). */
  readonly logError: (error: Error, call: string) => void;
}

/** The Prometheus exposition `GET /metrics` serves (adapters/metrics provides it). */
export interface MetricsExposition {
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** The exposition text of one scrape. */
  render(): Promise<string>;
}

/** What the routes call. */
export interface ServerServices {
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly admin: AdminService;
  readonly version: string;
  /** `GET /api/v1/status` for a caller (app/services/server-status.ts). */
  readonly status: (principal: Principal) => ServerStatus;
  /** The dashboard's data for a caller (app/services/dashboard-snapshot.ts). */
  readonly dashboard: (principal: Principal) => DashboardSnapshot;
  /** The dashboard's filtered, paged job list for a caller (app/services/dashboard-jobs.ts). */
  readonly dashboardJobs: (principal: Principal, filter: DashboardJobFilter) => DashboardJobPage;
  /** Progress reports of running jobs (docs/qos.md). */
  readonly qos: QosService;
  /** Called by `POST /api/v1/drain` once no job runs (the server then exits). */
  readonly onDrained: () => void;
  /** Prometheus metrics served at `GET /metrics` (docs/metrics.md); no route when absent. */
  readonly metrics?: MetricsExposition;
  /** `GET /metrics` is served without a token (config `metricsOpen`). Default false: it needs an admin token. */
  readonly metricsOpen?: boolean;
  /** Per-token request-rate and event-stream limits (app/auth/api-limits.ts); none when absent. */
  readonly limits?: ApiLimits;
  /** The uid a tenant's jobs run under in the sandbox (allocated on first use); absent or null: no sandbox. */
  readonly tenantUid?: (tenant: string) => number | null;
  /**
   * The data directory's disk problem now (full, or below `--min-free-disk-mib`), null when none: `/healthz` then
   * answers 503 with its reason code and numbers, and below the threshold submits are refused (507 `disk-low`).
   */
  readonly diskProblem?: () => DiskProblem | null;
  /** Told the reason code (`disk-full`, `disk-low`) of every API call refused for want of space (507). */
  readonly onDiskRefusal?: (reason: string) => void;
  /**
   * The audit anchor command's state (`--audit-anchor-command`), shown by `/healthz` as `auditAnchor`; absent: no
   * anchor command. Its being down does not make `/healthz` 503 (docs/security.md).
   */
  readonly auditAnchor?: () => {
    readonly up: boolean;
    readonly anchoredSeq: number;
    readonly unanchoredEntries: number;
  };
  /** Samples of allocation and utilization over time (the dashboard's charts). */
  readonly usageHistory: UsageHistory;
  /**
   * The audit log (docs/security.md "Audit log"); absent: calls are not recorded and `GET /api/v1/audit` does not
   * exist.
   */
  readonly audit?: AuditServices;
}

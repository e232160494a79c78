/**
 * What the web dashboard renders, in one object: GPUs with their jobs, active and recent jobs, the
 * queue, quotas, a status summary and the newest usage sample. Built through JobService and
 * AdminService, so a tenant's snapshot holds exactly what the JSON routes show that tenant: only its
 * own jobs (other tenants' shares count in each GPU's totals, unnamed) and only its own quota.
 */
import { TERMINAL_STATES, type JobState } from '../../core/index.js';
import type { GpuView, JobView, UsageSampleView } from '../../contract/api.js';
import type { Principal } from '../auth/tokens.js';
import type { AdminService } from './admin-service.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import type { JobService } from './job-service.js';
import { quotaUse, type QuotaUse } from './quota-use.js';
import type { UsageHistory, UsageSample } from './usage-history.js';
import type { Clock } from '../ports/clock.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import { toJobView } from './views.js';

/** Ended jobs a snapshot lists (the newest). */
export const RECENT_ENDED_JOBS = 20;
/**
 * Most waiting jobs one snapshot lists (a deep queue is counted, not sent whole every 500 ms; the dashboard's job list,
 * dashboard-jobs.ts, filters and pages them all).
 */
export const MAX_LISTED_WAITING = 50;

/** The dashboard's data at one moment. */
export interface DashboardSnapshot {
  /** When it was built (ISO-8601). */
  readonly at: string;
  readonly status: {
    readonly version: string;
    readonly draining: boolean;
    readonly gpuSource: 'nvidia-smi' | 'simulated';
    /** Active jobs the caller may see, by state. */
    readonly jobs: Record<string, number>;
    readonly you: { readonly role: Principal['role']; readonly tenant: string | null };
  };
  readonly gpus: GpuView[];
  /**
   * Scheduled and running jobs, then the newest `RECENT_ENDED_JOBS` ended ones; by ascending id within each (waiting
   * jobs are in `queue`).
   */
  readonly jobs: JobView[];
  /** The first `MAX_LISTED_WAITING` pending and preempted jobs (with their waiting reason), by ascending id. */
  readonly queue: JobView[];
  /** Every waiting job the caller may see (the queue list may show fewer). */
  readonly queueLength: number;
  readonly quotas: QuotaUse[];
  /** The newest usage sample, or null before the first. */
  readonly usage: UsageSampleView | null;
}

/** A usage sample as the API shows it (time as ISO-8601). */
export function toUsageSampleView(sample: UsageSample): UsageSampleView {
  return {
    at: new Date(sample.atMs).toISOString(),
    allocationRatio: sample.allocationRatio,
    meanUtilizationRatio: sample.meanUtilizationRatio,
    gpus: sample.gpus.map((g) => ({ ...g })),
  };
}

/** What `dashboardSnapshot` reads. */
export interface DashboardSources {
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly admin: AdminService;
  readonly usageHistory: UsageHistory;
  readonly version: string;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly gpuSource: 'nvidia-smi' | 'simulated';
}

/** Builds the snapshot `principal` may see. */
export function dashboardSnapshot(sources: DashboardSources, principal: Principal): DashboardSnapshot {
  const { plane, jobs, admin, usageHistory, store } = sources;
  // Same visibility as JobService.list: anyone but an admin sees its own tenant's jobs only.
  const visible = (states: readonly JobState[], newest?: number) =>
    principal.role !== 'admin' && principal.tenant === null
      ? []
      : store.listJobs({
          ...(principal.role !== 'admin' ? { tenant: principal.tenant! } : {}),
          states,
          ...(newest === undefined ? {} : { newest }),
        });
  const placed = visible(['scheduled', 'running']);
  const waiting = visible(['pending', 'preempted']);
  // Reasons never name another tenant's job for anyone but an admin (reason-viewer.ts).
  const viewer = jobs.viewerFor(principal);
  const view = (j: JobRecord) => toJobView(j, plane, viewer);
  const queue = waiting.slice(0, MAX_LISTED_WAITING).map(view);
  const running = placed.map(view);
  const ended = visible(TERMINAL_STATES, RECENT_ENDED_JOBS).map(view);
  const counts: Record<string, number> = {};
  for (const job of [...placed, ...waiting]) counts[job.state] = (counts[job.state] ?? 0) + 1;
  const latest = usageHistory.latest();
  return {
    at: new Date(sources.clock.nowMs()).toISOString(),
    status: {
      version: sources.version,
      draining: plane.draining,
      gpuSource: sources.gpuSource,
      jobs: counts,
      you: { role: principal.role, tenant: principal.tenant },
    },
    gpus: jobs.gpus(principal),
    jobs: [...running, ...ended],
    queue,
    queueLength: waiting.length,
    // The caller's tenants only, so the jobs it may see are all quotaUse needs.
    quotas: quotaUse(admin.listTenants(principal), placed, waiting, plane.roster.devices()),
    usage: latest && toUsageSampleView(latest),
  };
}

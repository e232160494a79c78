/**
 * The host limits every job gets by default (docs/processes.md "Host limits"): a process limit, a
 * host-memory limit (the job's own `hostMemoryMiB`, else its tenant's default, else the server's
 * default; the scheduler reserves that default as if the job had asked for it) and a CPU weight;
 * a job's `cpuMilli` stays a CFS quota. When a job meets one, the limit's coded reason
 * (`process-limit`, `host-memory-limit`) says so.
 */
import { JOB_EVENT_CODES, jobEventReason, type JobEventReason } from '../../core/index.js';
import type { HostLimitEvents, LimitEnforcement } from '../ports/process-launcher.js';
import type { JobRecord } from '../ports/state-store.js';

/** The server's default host limits of a job (config keys `jobPidsMax`, `defaultHostMemoryMiB`, ...). */
export interface JobHostLimitSettings {
  /** Most processes and threads one job may have at once; 0 = no process limit. */
  readonly pidsMax: number;
  /** Host memory of a job that asks for none, MiB; 0 = such a job gets no memory limit and reserves none. */
  readonly defaultHostMemoryMiB: number;
  /** Per tenant: its own default instead of `defaultHostMemoryMiB`, MiB. */
  readonly tenantDefaultHostMemoryMiB: Readonly<Record<string, number>>;
  /** CPU weight of each job's cgroup (1-10000; 100 = the weight of the server's own cgroup); 0 = none. */
  readonly cpuWeight: number;
}

/** No default limits (a control plane built without settings for them, as in-memory tests do). */
export const NO_JOB_HOST_LIMITS: JobHostLimitSettings = {
  pidsMax: 0,
  defaultHostMemoryMiB: 0,
  tenantDefaultHostMemoryMiB: {},
  cpuWeight: 0,
};

/** Where a job's host memory figure comes from: its request, a default, or neither (no limit). */
export type HostMemorySource = 'request' | 'tenant-default' | 'server-default' | 'none';

/**
 * The host memory a job holds and is limited to, MiB, and where the figure comes from: its own
 * `hostMemoryMiB` when it asked (> 0), else its tenant's default, else the server's (0: none).
 */
export function hostMemoryOf(
  job: Pick<JobRecord, 'tenant' | 'hostMemoryMiB'>,
  settings: JobHostLimitSettings,
): { readonly hostMemoryMiB: number; readonly source: HostMemorySource } {
  if (job.hostMemoryMiB > 0) return { hostMemoryMiB: job.hostMemoryMiB, source: 'request' };
  const tenant = Object.hasOwn(settings.tenantDefaultHostMemoryMiB, job.tenant)
    ? settings.tenantDefaultHostMemoryMiB[job.tenant]
    : undefined;
  if (tenant !== undefined && tenant > 0) return { hostMemoryMiB: tenant, source: 'tenant-default' };
  if (settings.defaultHostMemoryMiB > 0)
    return { hostMemoryMiB: settings.defaultHostMemoryMiB, source: 'server-default' };
  return { hostMemoryMiB: 0, source: 'none' };
}

/** The host limits enforced on one job on this host: null for a limit not enforced (off, or no cgroup controller). */
export interface EnforcedHostLimits {
  /** Process limit (`pids.max`). */
  readonly pidsMax: number | null;
  /** Memory limit, MiB. */
  readonly hostMemoryMiB: number | null;
  /** Where the memory figure comes from (`none` with no limit). */
  readonly hostMemorySource: HostMemorySource;
  /** CPU weight (v1 `cpu.shares` = weight × 1024 / 100). */
  readonly cpuWeight: number | null;
  /** CPU quota, milli-cores (`cpuMilli` as a CFS quota). */
  readonly cpuQuotaMilli: number | null;
}

/** The host limits `job` runs under on this host (`enforcement`: what its cgroup controllers allow). */
export function enforcedHostLimits(
  job: Pick<JobRecord, 'tenant' | 'hostMemoryMiB' | 'cpuMilli'>,
  settings: JobHostLimitSettings,
  enforcement: LimitEnforcement,
): EnforcedHostLimits {
  const memory = hostMemoryOf(job, settings);
  const memoryEnforced = enforcement.hostMemoryMiB && memory.hostMemoryMiB > 0;
  return {
    pidsMax: enforcement.pidsMax === true && settings.pidsMax > 0 ? settings.pidsMax : null,
    hostMemoryMiB: memoryEnforced ? memory.hostMemoryMiB : null,
    hostMemorySource: memoryEnforced ? memory.source : 'none',
    cpuWeight: enforcement.cpuWeight === true && settings.cpuWeight > 0 ? settings.cpuWeight : null,
    cpuQuotaMilli: enforcement.cpuMilli && job.cpuMilli > 0 ? job.cpuMilli : null,
  };
}

/**
 * The reason a job ends for, when the kernel counted it against a limit that ends a job: the
 * process limit (a refused fork) first, then the memory limit (an OOM kill); null when neither.
 * CPU limits hold a job, never end it.
 */
export function hostLimitReason(events: HostLimitEvents | null, limits: EnforcedHostLimits): JobEventReason | null {
  if (events === null) return null;
  if (events.pidsMaxHits > 0 && limits.pidsMax !== null)
    return jobEventReason(JOB_EVENT_CODES.processLimit, { pidsMax: limits.pidsMax, forksRefused: events.pidsMaxHits });
  if (events.oomKills > 0 && limits.hostMemoryMiB !== null)
    return jobEventReason(JOB_EVENT_CODES.hostMemoryLimit, {
      hostMemoryMiB: limits.hostMemoryMiB,
      oomKills: events.oomKills,
    });
  return null;
}

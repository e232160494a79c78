/**
 * The host limits every job gets by default (docs/processes.md "Host limits", decision 0031): their
 * config-file keys (flags `--job-pids-max`, `--default-host-memory-mib`, `--job-cpu-weight`; the
 * per-tenant default only in the file) and how the merged settings resolve, checked against the
 * host memory offered to jobs.
 */
import { z } from 'zod';

/** Default of `jobPidsMax`: processes and threads one job may have at once. */
const DEFAULT_JOB_PIDS_MAX = 4096;
/** Default of `defaultHostMemoryMiB`: host memory of a job that asks for none, MiB. */
const DEFAULT_JOB_HOST_MEMORY_MIB = 1024;
/** Default of `jobCpuWeight` (the kernel's default weight: a job weighs as much as the server's own cgroup). */
const DEFAULT_JOB_CPU_WEIGHT = 100;
/** Largest `jobPidsMax` (the kernel's largest pid_max). */
const JOB_PIDS_MAX_LIMIT = 4_194_304;

/** The config-file keys of the default host limits (spread into the server's file schema). */
export const JOB_HOST_LIMIT_KEYS = {
  /**
   * Most processes and threads one job may have at once (pids cgroup `pids.max`; a fork past it fails and the job
   * ends `process-limit`); 0 = no limit. Default 4096.
   */
  jobPidsMax: z.number().int().min(0).max(JOB_PIDS_MAX_LIMIT).optional(),
  /**
   * Host memory of a job that asks for none (`--host-memory`), MiB: its memory cgroup limit, reserved by the
   * scheduler like a request (over it the job ends `host-memory-limit`); 0 = such jobs get no limit. Default 1024.
   */
  defaultHostMemoryMiB: z.number().int().min(0).optional(),
  /** Per tenant name: its own `defaultHostMemoryMiB`, MiB (> 0). */
  tenantDefaultHostMemoryMiB: z.record(z.string(), z.number().int().min(1)).optional(),
  /**
   * CPU weight of each job's cgroup (v2 `cpu.weight`, v1 `cpu.shares` = weight × 1024 / 100) against the server and
   * the other jobs, whatever its number of processes; 0 = none. Default 100.
   */
  jobCpuWeight: z.number().int().min(0).max(10_000).optional(),
};

/** The settings of {@link JOB_HOST_LIMIT_KEYS}, merged from the file and the flags. */
type JobHostLimitSettings = {
  readonly [K in keyof typeof JOB_HOST_LIMIT_KEYS]?: z.infer<(typeof JOB_HOST_LIMIT_KEYS)[K]>;
};

/** The host limits every job gets by default; 0 = that limit off. */
export interface JobHostLimitsConfig {
  /** Process limit of each job (`pids.max`). */
  readonly pidsMax: number;
  /** Host memory of a job that asks for none, MiB. */
  readonly defaultHostMemoryMiB: number;
  /** Per tenant: its own default host memory, MiB. */
  readonly tenantDefaultHostMemoryMiB: Readonly<Record<string, number>>;
  /** CPU weight of each job's cgroup (1-10000). */
  readonly cpuWeight: number;
}

/**
 * The default host limits of merged settings over `hostMemoryMiB` (the memory offered to jobs, MiB).
 * @throws Error naming defaultHostMemoryMiB or tenantDefaultHostMemoryMiB when a default exceeds the memory offered
 *   (no job with it could ever run)
 */
export function resolveJobHostLimits(merged: JobHostLimitSettings, hostMemoryMiB: number): JobHostLimitsConfig {
  const defaultHostMemoryMiB = merged.defaultHostMemoryMiB ?? Math.min(DEFAULT_JOB_HOST_MEMORY_MIB, hostMemoryMiB);
  if (defaultHostMemoryMiB > hostMemoryMiB)
    throw new Error(
      `defaultHostMemoryMiB (--default-host-memory-mib) must be between 0 and hostMemoryMiB (${hostMemoryMiB}), ` +
        `got ${defaultHostMemoryMiB}`,
    );
  const tenants = merged.tenantDefaultHostMemoryMiB ?? {};
  for (const [tenant, mib] of Object.entries(tenants)) {
    if (mib > hostMemoryMiB)
      throw new Error(
        `tenantDefaultHostMemoryMiB.${tenant} must be between 1 and hostMemoryMiB (${hostMemoryMiB}), got ${mib}`,
      );
  }
  return {
    pidsMax: merged.jobPidsMax ?? DEFAULT_JOB_PIDS_MAX,
    defaultHostMemoryMiB,
    tenantDefaultHostMemoryMiB: tenants,
    cpuWeight: merged.jobCpuWeight ?? DEFAULT_JOB_CPU_WEIGHT,
  };
}

/**
 * `GET /api/v1/status`: the server's version and state, the caller's active jobs by state, how
 * jobs are enforced (host limits: cgroup controllers; GPU limits: per sharing mode, MPS by whether
 * the host has nvidia-cuda-mps-control) and checkpointed on this host, and the durations of recent
 * scheduling passes.
 */
import type { z } from 'zod';
import { enforcementOf } from '../../core/index.js';
import type { StatusSchema } from '../../contract/api.js';
import type { Principal } from '../auth/tokens.js';
import type { FreezerKind, JobIsolation, LimitEnforcement } from '../ports/process-launcher.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import type { JobService } from './job-service.js';
import type { JobHostLimitSettings } from '../scheduling/job-host-limits.js';

/** The status as the API shows it. */
export type ServerStatus = z.infer<typeof StatusSchema>;

/** What the status is made of. */
export interface StatusSources {
  readonly version: string;
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly gpuSource: 'nvidia-smi' | 'simulated';
  readonly freezer: FreezerKind;
  readonly enforcement: LimitEnforcement;
  readonly isolation: JobIsolation;
  /** How preemption victims are checkpointed here (detected at start). */
  readonly checkpoint: { readonly method: 'signal'; readonly transparentAvailable: boolean; readonly detail: string };
}

/**
 * The host limits every job gets here, each null when off or not enforced on this host; the tenants' own defaults
 * only the caller's for a non-admin.
 */
function jobDefaultsOf(
  limits: JobHostLimitSettings,
  enforcement: LimitEnforcement,
  principal: Principal,
): NonNullable<ServerStatus['enforcement']['host']['jobDefaults']> {
  const tenants = Object.entries(limits.tenantDefaultHostMemoryMiB).filter(
    ([tenant]) => principal.role === 'admin' || tenant === principal.tenant,
  );
  return {
    pidsMax: enforcement.pidsMax === true && limits.pidsMax > 0 ? limits.pidsMax : null,
    defaultHostMemoryMiB:
      enforcement.hostMemoryMiB && limits.defaultHostMemoryMiB > 0 ? limits.defaultHostMemoryMiB : null,
    tenantDefaultHostMemoryMiB: enforcement.hostMemoryMiB ? Object.fromEntries(tenants) : {},
    cpuWeight: enforcement.cpuWeight === true && limits.cpuWeight > 0 ? limits.cpuWeight : null,
  };
}

/** The status `principal` may see (job counts of its own jobs only, for a tenant). */
export function serverStatus(sources: StatusSources, principal: Principal): ServerStatus {
  const counts = sources.jobs.activeCounts(principal);
  return {
    version: sources.version,
    draining: sources.plane.draining,
    gpuSource: sources.gpuSource,
    jobs: counts,
    freezer: sources.freezer,
    enforcement: {
      host: {
        cpuMilli: sources.enforcement.cpuMilli,
        hostMemoryMiB: sources.enforcement.hostMemoryMiB,
        jobDefaults: jobDefaultsOf(sources.plane.jobHostLimits, sources.enforcement, principal),
      },
      gpu: {
        exclusive: enforcementOf('exclusive', false),
        mig: enforcementOf('mig', false),
        mps: enforcementOf('mps', sources.plane.mpsAvailable),
        timeslice: enforcementOf('timeslice', false),
      },
    },
    isolation: { ...sources.isolation },
    scheduler: sources.plane.passStats.summary(),
    checkpoint: { ...sources.checkpoint },
    migReconfigurations: sources.plane.migReconfigurations,
    you: { role: principal.role, tenant: principal.tenant },
  };
}

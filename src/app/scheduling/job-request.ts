import type { JobRequest } from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';
import { hostMemoryOf, NO_JOB_HOST_LIMITS, type JobHostLimitSettings } from './job-host-limits.js';

/**
 * The core's view of a stored job: what the scheduler places (tenant, priority, submit time, CPU,
 * host memory, the GPU request and the time limit), field by field, so that nothing else of the
 * record (command, environment) reaches the core. A job that asks for no host memory holds its
 * default (`hostLimits`, job-host-limits.ts), as if it had asked for it.
 */
export function jobRequestOf(job: JobRecord, hostLimits: JobHostLimitSettings = NO_JOB_HOST_LIMITS): JobRequest {
  return {
    id: job.id,
    tenant: job.tenant,
    priority: job.priority,
    submittedAtMs: job.submittedAtMs,
    cpuMilli: job.cpuMilli,
    hostMemoryMiB: hostMemoryOf(job, hostLimits).hostMemoryMiB,
    gpu: job.gpu,
    timeLimitSeconds: job.timeLimitSeconds,
  };
}

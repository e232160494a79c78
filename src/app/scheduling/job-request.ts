import type { JobRequest } from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';

/**
 * The core's view of a stored job: what the scheduler places (tenant, priority, submit time, CPU,
 * host memory, the GPU request and the time limit), field by field, so that nothing else of the
 * record (command, environment) reaches the core.
 */
export function jobRequestOf(job: JobRecord): JobRequest {
  return {
    id: job.id,
    tenant: job.tenant,
    priority: job.priority,
    submittedAtMs: job.submittedAtMs,
    cpuMilli: job.cpuMilli,
    hostMemoryMiB: job.hostMemoryMiB,
    gpu: job.gpu,
    timeLimitSeconds: job.timeLimitSeconds,
  };
}

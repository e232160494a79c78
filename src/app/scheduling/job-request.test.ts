/** The core's view of a stored job: the fields the scheduler places by, and nothing else. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { sampleJob } from '../../adapters/store/store-fixtures.js';
import { jobRequestOf } from './job-request.js';

describe('jobRequestOf', () => {
  it('copies id, tenant, priority, submit time, CPU, host memory, GPU request and time limit; no command', () => {
    const store = createMemoryStore();
    store.createTenant('acme', 0);
    const gpu = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 8192, mode: 'mps' as const };
    const job = store.insertJob(
      sampleJob('acme', { priority: 700, cpuMilli: 1500, hostMemoryMiB: 2048, gpu, timeLimitSeconds: 60 }),
      4_000,
    );
    expect(jobRequestOf(job)).toEqual({
      id: job.id,
      tenant: 'acme',
      priority: 700,
      submittedAtMs: 4_000,
      cpuMilli: 1500,
      hostMemoryMiB: 2048,
      gpu,
      timeLimitSeconds: 60,
    });
  });
});

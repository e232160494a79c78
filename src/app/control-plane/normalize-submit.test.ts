import { describe, expect, it } from 'vitest';
import { SeededRng, ServerScheduler, type GpuDevice } from '../../core/index.js';
import { SubmitJobSchema } from '../../contract/api.js';
import { normalizeSubmit, type SubmitContext } from './normalize-submit.js';

const A10_MIB = 24 * 1024;
const gpus: GpuDevice[] = Array.from({ length: 8 }, (_, index) => ({ index, uuid: `GPU-a10-${index}`, model: 'A10', gpuMemoryMiB: A10_MIB, migEnabled: false, schedulable: true }));
const ctx: SubmitContext = {
  principal: { role: 'admin', tenant: null, },
  knownTenants: ['default'], defaultWorkingDirectory: '/tmp', directoryExists: () => true,
  resolveExecutable: () => '/bin/sleep', serverPath: '/bin', gpus, host: { cpuMilli: 64_000, hostMemoryMiB: 256 * 1024 },
};

describe('normalizeSubmit: memory-only requests', () => {
  it('gives an 8 GiB request on 24 GiB GPUs 333 milli-GPU, so three share one GPU', () => {
    const job = normalizeSubmit(SubmitJobSchema.parse({ command: ['sleep', '60'], gpu: { gpuMemoryMiB: 8192 } }), ctx);
    expect(job.gpu).toMatchObject({ gpuCount: 1, gpuMilli: 333, gpuMemoryMiB: 8192 });
  });

  it('20 jobs of 8 GiB on 8 × A10 (24 GiB) are all placed in one pass', () => {
    const scheduler = new ServerScheduler(gpus, { hostCpuMilli: 64_000, hostMemoryMiB: 256 * 1024, timesliceOvercommitRatio: 1, rng: new SeededRng(1) });
    const pending = Array.from({ length: 20 }, (_, i) => {
      const job = normalizeSubmit(SubmitJobSchema.parse({ command: ['sleep', '60'], gpu: { gpuMemoryMiB: 8192 } }), ctx);
      return { id: i + 1, tenant: job.tenant, priority: job.priority, submittedAtMs: i, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, gpu: job.gpu };
    });
    const { placed, waiting } = scheduler.runPass(pending);
    expect(placed.length).toBe(20);
    expect(waiting.size).toBe(0);
    const perGpu = scheduler.usage().map((u) => u.jobIds.length);
    expect(perGpu.reduce((a, b) => a + b, 0)).toBe(20);
    expect(Math.max(...perGpu)).toBe(3);
    expect(scheduler.usage().every((u) => u.allocatedGpuMemoryMiB <= A10_MIB && u.allocatedGpuMilli <= 1000)).toBe(true);
  });
});

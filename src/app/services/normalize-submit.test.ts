import { describe, expect, it } from 'vitest';
import type { GpuDevice } from '../../core/index.js';
import { SubmitJobSchema } from '../../contract/api.js';
import { normalizeSubmit, type SubmitContext } from './normalize-submit.js';

const A10_MIB = 24 * 1024;
const gpus: GpuDevice[] = Array.from({ length: 8 }, (_, index) => ({
  index,
  uuid: `GPU-a10-${index}`,
  model: 'A10',
  gpuMemoryMiB: A10_MIB,
  migEnabled: false,
  schedulable: true,
}));
const ctx: SubmitContext = {
  principal: { role: 'admin', tenant: null },
  knownTenants: ['default'],
  workingDirectoryProblem: () => null,
  resolveExecutable: () => '/bin/sleep',
  serverPath: '/bin',
  gpus,
  host: { cpuMilli: 64_000, hostMemoryMiB: 256 * 1024 },
};

describe('normalizeSubmit: memory-only requests', () => {
  it('gives an 8 GiB request on 24 GiB GPUs 333 milli-GPU, so three share one GPU', () => {
    const { job } = normalizeSubmit(
      SubmitJobSchema.parse({ command: ['sleep', '60'], gpu: { gpuMemoryMiB: 8192 } }),
      ctx,
    );
    expect(job.gpu).toMatchObject({ gpuCount: 1, gpuMilli: 333, gpuMemoryMiB: 8192 });
  });
});

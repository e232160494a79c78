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

describe('normalizeSubmit: the working directory of a submit from a folder', () => {
  const unwritable: SubmitContext = {
    ...ctx,
    workingDirectoryProblem: (path) => `"${path}" is not writable by uid 200000, which runs tenant default's jobs`,
  };
  const body = (extra: object): ReturnType<typeof SubmitJobSchema.parse> =>
    SubmitJobSchema.parse({
      command: ['./run.sh', '1'],
      workingDirectory: '/srv/repo',
      gpu: { gpuMilli: 500 },
      ...extra,
    });

  it('falls back to a private one with a workdir-not-writable note when the body allows it', () => {
    const { job, workingDirectoryReason } = normalizeSubmit(body({ workingDirectoryFallback: 'private' }), unwritable);
    expect(job.workingDirectory).toBeNull();
    // A relative program still means the folder it was submitted from.
    expect(job.command).toEqual(['/srv/repo/run.sh', '1']);
    expect(workingDirectoryReason).toEqual({
      code: 'workdir-not-writable',
      lasting: false,
      details: {
        requestedDirectory: '/srv/repo',
        problem: `"/srv/repo" is not writable by uid 200000, which runs tenant default's jobs`,
      },
    });
  });

  it('refuses a named folder (no fallback) with a 400 naming workingDirectory, and keeps a usable one', () => {
    expect(() => normalizeSubmit(body({}), unwritable)).toThrow(
      /^workingDirectory: "\/srv\/repo" is not writable by uid 200000/,
    );
    const usable = normalizeSubmit(body({ workingDirectoryFallback: 'private' }), ctx);
    expect(usable.job.workingDirectory).toBe('/srv/repo');
    expect(usable.job.command).toEqual(['./run.sh', '1']);
    expect(usable.workingDirectoryReason).toBeNull();
  });
});

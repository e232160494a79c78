/**
 * End-to-end: mode selection from isolation on a real server with simulated GPUs. A strict job with
 * 15 GiB gets a 3g.20gb MIG instance on an A100-40GB in MIG mode (not 1g.5gb or 2g.10gb), a whole
 * GPU on a T4 (no MIG), and the reason is shown; standard gets MPS and none time-slicing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupServe, cli, startServe, waitForJob, type ServeHandle } from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const submit = (handle: ServeHandle, args: string[]) => {
  const run = cli(handle, ['submit', ...args, '--', 'sh', '-c', 'echo $CUDA_VISIBLE_DEVICES']);
  expect(run.code, run.stderr).toBe(0);
  return Number(run.stdout.trim().split('\n').at(-1));
};

describe('gpushare serve: isolation picks the mode', () => {
  it('strict 15 GiB → 3g.20gb on an A100-40GB in MIG mode, with the reason', async () => {
    server = await startServe({ simulateGpus: '1xA100-40GB:mig' });
    const id = submit(server, ['--isolation', 'strict', '--gpu-memory', '15GiB']);
    const job = await waitForJob(server, id, (j) => j.state === 'succeeded');
    expect(job.placement.mode).toBe('mig');
    expect(job.placement.enforcement).toEqual({ gpuMemory: 'hardware', compute: 'hardware' });
    expect(job.placement.gpus.map((g: { migProfile: string }) => g.migProfile)).toEqual(['3g.20gb']);
    expect(job.gpu.gpuMilli).toBe(375); // compute share from memory: floor(1000 × 15360 / 40960)
    expect(job.events.find((e: { to: string }) => e.to === 'scheduled').reason).toBe(
      'placed on GPU 0 (3g.20gb) in mode mig: strict isolation: 3g.20gb is the smallest MIG profile of ' +
        'A100-40GB with ≥ 15360 MiB (20090 usable) and ≥ 3 compute slice(s)',
    );
    expect(cli(server, ['logs', String(id)]).stdout.trim()).toBe(job.placement.gpus[0].migDeviceUuid);
  });

  it('strict 15 GiB → a whole T4 (no MIG); standard → MPS; none → time-slicing', async () => {
    server = await startServe({ simulateGpus: '3xT4' });
    const strict = await waitForJob(
      server,
      submit(server, ['--isolation', 'strict', '--gpu', '0.2', '--gpu-memory', '15GiB']),
      (j) => j.state === 'succeeded',
    );
    expect([
      strict.placement.mode,
      strict.placement.gpus[0].accountedGpuMilli,
      strict.placement.gpus[0].gpuMemoryMiB,
    ]).toEqual(['exclusive', 1000, 16384]);
    expect(strict.events.find((e: { to: string }) => e.to === 'scheduled').reason).toMatch(
      /: strict isolation: T4 has no MIG, so a whole GPU$/,
    );
    const standard = await waitForJob(server, submit(server, ['--gpu', '0.2']), (j) => j.state === 'succeeded');
    expect([standard.placement.mode, standard.gpu.isolation]).toEqual(['mps', 'standard']);
    const none = await waitForJob(
      server,
      submit(server, ['--gpu', '0.2', '--isolation', 'none']),
      (j) => j.state === 'succeeded',
    );
    expect(none.placement.mode).toBe('timeslice');
    const bad = await api(server, 'POST', '/api/v1/jobs', {
      command: ['true'],
      workingDirectory: '/tmp',
      gpu: { isolation: 'paranoid' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/gpu\.isolation.*allowed: strict, standard, none/);
  });
});

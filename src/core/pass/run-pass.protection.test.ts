import { describe, expect, it } from 'vitest';
import { SeededRng } from '../random/rng.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import type { TestPassOptions } from '../testing/one-node-cluster.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';

const gpu = (index: number, extra: Partial<GpuDevice> = {}): GpuDevice => ({
  index,
  uuid: `GPU-${index}`,
  model: 'A100-80GB',
  gpuMemoryMiB: 81920,
  migEnabled: false,
  schedulable: true,
  ...extra,
});

function job(id: number, priority: number, request: Partial<GpuRequest>): JobRequest {
  return {
    id,
    tenant: 'team',
    priority,
    submittedAtMs: 1_000 + id,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto', ...request },
  };
}

const scheduler = (gpus: readonly GpuDevice[]): OneNodeCluster =>
  new OneNodeCluster(gpus, {
    hostCpuMilli: 64_000,
    hostMemoryMiB: 256 * 1024,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(42),
  });

/** Job 1 (priority 900) violates its QoS target on GPU 0: jobs of lower priority keep off GPU 0. */
const protectGpu0: TestPassOptions['protectedGpus'] = (j) => (j.priority < 900 ? new Map([[0, 1]]) : null);

const share = { gpuMilli: 300, gpuMemoryMiB: 20480 };

describe('OneNodeCluster: protected GPUs (QoS isolation)', () => {
  it('without protection the policy packs a new share onto the busy GPU 0', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    s.runPass([job(1, 900, { gpuMilli: 500, gpuMemoryMiB: 40960 })]);
    const pass = s.runPass([job(2, 100, share)]);
    expect(pass.placed.map((p) => [p.jobId, p.placement.gpus.map((g) => g.index)])).toEqual([[2, [0]]]);
  });

  it('places a lower-priority job on GPU 1 and an equal-priority one on GPU 0', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    s.runPass([job(1, 900, { gpuMilli: 500, gpuMemoryMiB: 40960 })]);
    const pass = s.runPass([job(2, 100, share), job(3, 900, share)], { protectedGpus: protectGpu0 });
    expect(pass.placed.map((p) => [p.jobId, p.placement.gpus.map((g) => g.index)]).sort()).toEqual([
      [2, [1]],
      [3, [0]],
    ]);
    expect(pass.waiting.size).toBe(0);
    expect(pass.protectedWaiting.size).toBe(0);
  });

  it('keeps a lower-priority job waiting with the protection reason when only GPU 0 would take it', () => {
    const s = scheduler([gpu(0)]);
    s.runPass([job(1, 900, { gpuMilli: 500, gpuMemoryMiB: 40960 })]);
    const pass = s.runPass([job(2, 100, share), job(4, 950, { gpuMilli: 200, gpuMemoryMiB: 10240 })], {
      protectedGpus: protectGpu0,
    });
    expect(pass.placed.map((p) => [p.jobId, p.placement.gpus.map((g) => g.index)])).toEqual([[4, [0]]]);
    expect([...pass.waiting]).toEqual([[2, 'GPU 0 is protected: job 1 misses its QoS target']]);
    expect([...pass.protectedWaiting]).toEqual([2]);
    // It blocks nobody: backfill has no blocked job.
    expect(pass.blockedJobId).toBeNull();
    expect(s.isHeld(2)).toBe(false);
  });

  it('gives the ordinary capacity reason when the job would not fit even on the protected GPU', () => {
    const s = scheduler([gpu(0)]);
    s.runPass([job(1, 900, { gpuMilli: 500, gpuMemoryMiB: 40960 })]);
    const pass = s.runPass([job(2, 100, { gpuMilli: 600, gpuMemoryMiB: 20480 })], { protectedGpus: protectGpu0 });
    expect(pass.placed).toEqual([]);
    expect([...pass.waiting]).toEqual([
      [
        2,
        'waiting for 1 GPU(s) of one model with 600 free milli-GPU and 20480 MiB free memory in mode ' +
          'mps; at most 0 qualify now',
      ],
    ]);
    expect(pass.protectedWaiting.size).toBe(0);
    expect(pass.blockedJobId).toBe(2);
  });

  it('places the job once the protection is lifted', () => {
    const s = scheduler([gpu(0)]);
    s.runPass([job(1, 900, { gpuMilli: 500, gpuMemoryMiB: 40960 })]);
    expect(s.runPass([job(2, 100, share)], { protectedGpus: protectGpu0 }).placed).toEqual([]);
    const pass = s.runPass([job(2, 100, share)], { protectedGpus: () => null });
    expect(pass.placed.map((p) => [p.jobId, p.placement.gpus.map((g) => g.index)])).toEqual([[2, [0]]]);
  });
});

import { describe, expect, it } from 'vitest';
import { SeededRng } from '../random/rng.js';
import { waitReason, WAIT_CODES } from '../model/status.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import type { TestPassOptions } from '../testing/one-node-cluster.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';

const gpu = (index: number): GpuDevice => ({
  index,
  uuid: `GPU-${index}`,
  model: 'A100-80GB',
  gpuMemoryMiB: 81920,
  migEnabled: false,
  schedulable: true,
});
const job = (id: number, request: Partial<GpuRequest>, priority = 500): JobRequest => ({
  id,
  tenant: 't',
  priority,
  submittedAtMs: id,
  cpuMilli: 0,
  hostMemoryMiB: 0,
  gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto', ...request },
});
const NOW = 1_000_000;

/** Two GPUs: job 1 holds GPU 0 until NOW + 600 s (its time limit), job 2 holds 0.5 of GPU 1 with no limit. */
function busyServer(): { s: OneNodeCluster; running: { jobId: number; expectedEndMs: number | null }[] } {
  const s = new OneNodeCluster([gpu(0), gpu(1)], {
    hostCpuMilli: 8000,
    hostMemoryMiB: 65536,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(1),
  });
  expect(s.tryPlace(job(1, {})).kind).toBe('placed');
  expect(s.tryPlace(job(2, { gpuMilli: 500 })).kind).toBe('placed');
  return {
    s,
    running: [
      { jobId: 1, expectedEndMs: NOW + 600_000 },
      { jobId: 2, expectedEndMs: null },
    ],
  };
}

describe('OneNodeCluster.runPass with EASY backfill', () => {
  it('lets a job start ahead of a blocked whole-GPU job only if its time limit ends before the reserved start', () => {
    const { s, running } = busyServer();
    const limits = new Map<number, number | null>([
      [10, null],
      [11, 300],
      [12, 900],
      [13, null],
    ]);
    const options: TestPassOptions = {
      backfill: { nowMs: NOW, running, timeLimitSecondsOf: (j) => limits.get(j.id) ?? null },
    };
    // 10 (whole GPU) is blocked until job 1 ends at NOW + 600 s; 11 (0.2, 300 s) ends before that;
    // 12 (0.2, 900 s) would not; 13 (0.2, no limit) never passes a blocked job.
    const pass = s.runPass(
      [job(10, {}), job(11, { gpuMilli: 200 }), job(12, { gpuMilli: 200 }), job(13, { gpuMilli: 200 })],
      options,
    );
    expect(pass.blockedJobId).toBe(10);
    expect(pass.placed.map((p) => p.jobId)).toEqual([11]);
    expect(pass.waiting.get(12)).toBe(
      'waiting behind job 10: a 900 s time limit would not end before its reserved start at 1970-01-01T00:26:40.000Z',
    );
    expect(pass.waiting.get(13)).toBe(
      'waiting behind job 10: only jobs with a time limit may start ahead of a blocked job',
    );
  });

  it('without backfill, every job that fits is placed in queue order', () => {
    const { s } = busyServer();
    const pass = s.runPass([
      job(10, {}),
      job(11, { gpuMilli: 200 }),
      job(12, { gpuMilli: 200 }),
      job(13, { gpuMilli: 200 }),
    ]);
    expect(pass.placed.map((p) => p.jobId)).toEqual([11, 12]);
    expect(pass.waiting.has(13)).toBe(true);
  });

  it('admit refusals (quota) keep a job waiting without blocking later jobs', () => {
    const { s, running } = busyServer();
    const options: TestPassOptions = {
      admit: (j) =>
        j.id === 10
          ? waitReason(WAIT_CODES.quota, {
              tenant: 'a',
              usedGpuEquivalents: 1,
              sizeGpuEquivalents: 0.1,
              limitGpuEquivalents: 1,
            })
          : null,
      backfill: { nowMs: NOW, running, timeLimitSecondsOf: () => null },
    };
    const pass = s.runPass([job(10, { gpuMilli: 100 }), job(11, { gpuMilli: 200 })], options);
    expect(pass.waiting.get(10)).toBe(
      "quota: tenant a: 1 GPU-equivalents in use + 0.1 requested exceeds the tenant's limit of 1",
    );
    expect(pass.placed.map((p) => p.jobId)).toEqual([11]);
    expect(pass.blockedJobId).toBeNull();
  });

  it('uses the given queue order', () => {
    const { s, running } = busyServer();
    const byPriority: TestPassOptions = {
      compare: (a, b) => b.priority - a.priority || a.id - b.id,
      backfill: { nowMs: NOW, running, timeLimitSecondsOf: () => null },
    };
    const pass = s.runPass([job(20, { gpuMilli: 300 }, 100), job(21, { gpuMilli: 300 }, 900)], byPriority);
    expect(pass.placed.map((p) => p.jobId)).toEqual([21]);
    expect(pass.blockedJobId).toBe(20);
  });
});

describe('EASY backfill only protects the GPUs the blocked job can use', () => {
  it('a job waiting for the T4 does not hold up a MIG job on the MIG GPU', () => {
    const t4: GpuDevice = {
      index: 0,
      uuid: 'GPU-t4',
      model: 'T4',
      gpuMemoryMiB: 16384,
      migEnabled: false,
      schedulable: true,
    };
    const mig: GpuDevice = {
      index: 1,
      uuid: 'GPU-a',
      model: 'A100-80GB',
      gpuMemoryMiB: 81920,
      migEnabled: true,
      schedulable: true,
    };
    const s = new OneNodeCluster([t4, mig], {
      hostCpuMilli: 8000,
      hostMemoryMiB: 65536,
      timesliceOvercommitRatio: 1,
      rng: new SeededRng(1),
    });
    expect(s.tryPlace(job(1, { gpuMilli: 300, isolation: 'none' })).kind).toBe('placed'); // the T4 now runs timeslice
    const options: TestPassOptions = {
      backfill: { nowMs: NOW, running: [{ jobId: 1, expectedEndMs: null }], timeLimitSecondsOf: () => null },
    };
    const pass = s.runPass(
      [job(2, { gpuMilli: 300 }), job(3, { gpuMilli: 300, mode: 'mig' }), job(4, { gpuMilli: 300, isolation: 'none' })],
      options,
    );
    expect(pass.blockedJobId).toBe(2); // mps cannot join the time-sliced T4, and the A100 is in MIG mode
    expect(s.gpusUsableBy(job(2, { gpuMilli: 300 }))).toEqual(new Set([0]));
    expect(pass.placed.map((p) => p.jobId)).toEqual([3]); // the MIG GPU is not the blocked job's
    expect(pass.waiting.get(4)).toBe(
      'waiting behind job 2: only jobs with a time limit may start ahead of a blocked job',
    );
  });
});

import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { describe, expect, it } from 'vitest';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { GpuUsageSample, GpuUsageSampler } from '../ports/gpu-usage.js';
import { LatestUsage } from './latest-usage.js';
import { measuredGpu } from './measured-gpu.js';
import { simulatedUsageSample } from './simulated-usage.js';
import { UsagePoller } from './usage-poller.js';
import { recordingLogger } from '../testing/recording-logger.js';

const UUID0 = 'GPU-00000000-0000-0000-0000-000000000000';
const UUID1 = 'GPU-00000000-0000-0000-0000-000000000001';

describe('simulatedUsageSample', () => {
  it('utilization = min(1, allocated / 1000); job memory = its allocation; GPU memory = Σ its jobs', () => {
    const sample = simulatedUsageSample(
      {
        gpus: [
          { index: 0, uuid: UUID0, allocatedGpuMilli: 800 },
          { index: 1, uuid: UUID1, allocatedGpuMilli: 1500 },
        ],
        jobs: [
          { jobId: 1, jobPid: 11, gpus: [{ index: 0, gpuMemoryMiB: 32768 }] },
          {
            jobId: 2,
            jobPid: null,
            gpus: [
              { index: 0, gpuMemoryMiB: 16384 },
              { index: 1, gpuMemoryMiB: 16384 },
            ],
          },
          { jobId: 3, jobPid: 13, gpus: [{ index: 5, gpuMemoryMiB: 99 }] },
        ],
      },
      7,
    );
    expect(sample).toEqual({
      atMs: 7,
      source: 'simulated',
      gpus: [
        { index: 0, uuid: UUID0, utilizationRatio: 0.8, memoryUsedMiB: 49152 },
        { index: 1, uuid: UUID1, utilizationRatio: 1, memoryUsedMiB: 16384 },
      ],
      jobs: [
        { jobId: 1, index: 0, uuid: UUID0, memoryUsedMiB: 32768 },
        { jobId: 2, index: 0, uuid: UUID0, memoryUsedMiB: 16384 },
        { jobId: 2, index: 1, uuid: UUID1, memoryUsedMiB: 16384 },
      ],
    });
  });
});

describe('measuredGpu', () => {
  const gpu = (utilizationGpuPct: number | null, memoryUsedMiB: number | null, simulated = false): InventoryGpu => ({
    index: 0,
    uuid: UUID0,
    name: 'x',
    model: 'A100-80GB',
    gpuMemoryMiB: 81920,
    migEnabled: false,
    migDevices: [],
    simulated,
    healthy: true,
    healthReason: null,
    utilizationGpuPct,
    memoryUsedMiB,
  });
  const sample: GpuUsageSample = {
    atMs: 0,
    source: 'nvidia-smi',
    gpus: [{ index: 0, uuid: UUID0, utilizationRatio: 0.25, memoryUsedMiB: 1000 }],
    jobs: [],
  };

  it('prefers the inventory for the API and the sample for metrics; fills gaps from the other', () => {
    expect(measuredGpu(gpu(50, 2000), sample, 'inventory')).toEqual({
      utilizationRatio: 0.5,
      memoryUsedMiB: 2000,
      source: 'nvidia-smi',
    });
    expect(measuredGpu(gpu(50, 2000), sample, 'sample')).toEqual({
      utilizationRatio: 0.25,
      memoryUsedMiB: 1000,
      source: 'nvidia-smi',
    });
    expect(measuredGpu(gpu(null, null, true), { ...sample, source: 'simulated' }, 'inventory')).toEqual({
      utilizationRatio: 0.25,
      memoryUsedMiB: 1000,
      source: 'simulated',
    });
    expect(measuredGpu(gpu(null, null), null, 'sample')).toEqual({
      utilizationRatio: null,
      memoryUsedMiB: null,
      source: null,
    });
  });

  it("ignores a simulated GPU's stand-in figures (a simulated MIG GPU's nvidia-smi says 0 MiB used)", () => {
    expect(measuredGpu(gpu(null, 0, true), { ...sample, source: 'simulated' }, 'inventory')).toEqual({
      utilizationRatio: 0.25,
      memoryUsedMiB: 1000,
      source: 'simulated',
    });
    expect(measuredGpu(gpu(null, 0, true), null, 'inventory')).toEqual({
      utilizationRatio: null,
      memoryUsedMiB: null,
      source: null,
    });
  });

  it('ignores a sample entry of another GPU at the same index (different UUID)', () => {
    expect(measuredGpu({ ...gpu(null, null), uuid: UUID1 }, sample, 'sample')).toEqual({
      utilizationRatio: null,
      memoryUsedMiB: null,
      source: null,
    });
  });
});

describe('UsagePoller', () => {
  it('stores each sample; a failure clears it and is logged once until a success', async () => {
    const results: (GpuUsageSample | Error)[] = [
      { atMs: 1, source: 'simulated', gpus: [], jobs: [] },
      new Error('a'),
      new Error('b'),
      { atMs: 4, source: 'simulated', gpus: [], jobs: [] },
    ];
    const sampler: GpuUsageSampler = {
      source: 'simulated',
      sample: async () => {
        const r = results.shift()!;
        if (r instanceof Error) throw r;
        return r;
      },
    };
    const sink = new LatestUsage();
    const log = recordingLogger();
    const poller = new UsagePoller({
      sampler,
      input: () => ({ gpus: [], jobs: [] }),
      sink,
      intervalMs: 60_000,
      clock: new ManualClock(),
      logger: log,
    });
    await poller.pollOnce();
    expect(sink.latest()?.atMs).toBe(1);
    await poller.pollOnce();
    expect(sink.latest()).toBeNull();
    await poller.pollOnce();
    await poller.pollOnce();
    expect(sink.latest()?.atMs).toBe(4);
    expect(log.lines).toEqual([
      'warn measuring GPU usage failed; usage metrics fall back to the inventory until it works again',
      'info GPU usage measurement works again',
    ]);
    await poller.stop();
  });

  it('joins a poll in flight instead of starting another, and rejects a bad interval', async () => {
    let calls = 0;
    let release!: () => void;
    const sampler: GpuUsageSampler = {
      source: 'simulated',
      sample: () => {
        calls++;
        return new Promise((r) => (release = () => r({ atMs: 9, source: 'simulated', gpus: [], jobs: [] })));
      },
    };
    const sink = new LatestUsage();
    const poller = new UsagePoller({
      sampler,
      input: () => ({ gpus: [], jobs: [] }),
      sink,
      intervalMs: 60_000,
      clock: new ManualClock(),
      logger: recordingLogger(),
    });
    const a = poller.pollOnce();
    const b = poller.pollOnce();
    release();
    await Promise.all([a, b]);
    expect(calls).toBe(1);
    expect(sink.latest()?.atMs).toBe(9);
    expect(
      () =>
        new UsagePoller({
          sampler,
          input: () => ({ gpus: [], jobs: [] }),
          sink,
          intervalMs: 0,
          clock: new ManualClock(),
          logger: recordingLogger(),
        }),
    ).toThrow(new RangeError('usage poll interval must be a positive number of ms, got 0'));
  });
});

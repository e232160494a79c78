import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { sampleJob } from '../../adapters/store/store-fixtures.js';
import type { GpuUsageSample, UsageInput } from '../ports/gpu-usage.js';
import type { StateStore, UsagePeakUpdate } from '../ports/state-store.js';
import { LatestUsage } from './latest-usage.js';
import { measuredPeaks, UsagePeaks } from './usage-peaks.js';
import { UsagePoller } from './usage-poller.js';
import { recordingLogger } from '../testing/recording-logger.js';

const uuid = (i: number): string => `GPU-0000000${i}`;

/** GPU 0: jobs 1 and 2; GPU 1: job 3 alone; GPU 2 (MIG, no utilization): job 4 alone; GPUs 3 and 4: job 5. */
const INPUT: UsageInput = {
  gpus: [0, 1, 2, 3, 4].map((index) => ({ index, uuid: uuid(index), allocatedGpuMilli: 500 })),
  jobs: [
    { jobId: 1, jobPid: 11, gpus: [{ index: 0, gpuMemoryMiB: 4096 }] },
    { jobId: 2, jobPid: 12, gpus: [{ index: 0, gpuMemoryMiB: 4096 }] },
    { jobId: 3, jobPid: 13, gpus: [{ index: 1, gpuMemoryMiB: 40960 }] },
    { jobId: 4, jobPid: 14, gpus: [{ index: 2, gpuMemoryMiB: 10240 }] },
    {
      jobId: 5,
      jobPid: 15,
      gpus: [
        { index: 3, gpuMemoryMiB: 1024 },
        { index: 4, gpuMemoryMiB: 1024 },
      ],
    },
  ],
};

/** An nvidia-smi sample of INPUT's GPUs at `atMs`; `job3MiB` is job 3's memory. */
function sample(atMs: number, job3MiB = 30_000, source: GpuUsageSample['source'] = 'nvidia-smi'): GpuUsageSample {
  const utilization = [0.9, 0.455, null, 0.3, 0.6];
  return {
    atMs,
    source,
    gpus: utilization.map((utilizationRatio, index) => ({
      index,
      uuid: uuid(index),
      utilizationRatio,
      memoryUsedMiB: 50_000,
    })),
    jobs: [
      { jobId: 1, index: 0, uuid: uuid(0), memoryUsedMiB: 1000.4 },
      { jobId: 2, index: 0, uuid: uuid(0), memoryUsedMiB: 2000 },
      { jobId: 3, index: 1, uuid: uuid(1), memoryUsedMiB: job3MiB },
      { jobId: 5, index: 3, uuid: uuid(3), memoryUsedMiB: 100 },
      { jobId: 5, index: 4, uuid: uuid(4), memoryUsedMiB: 500 },
    ],
  };
}

/** A memory store with jobs 1..5 whose raiseUsagePeaks calls are recorded. */
function countingStore(): { store: StateStore; writes: UsagePeakUpdate[][] } {
  const store = createMemoryStore();
  store.createTenant('acme', 0);
  for (let i = 0; i < 5; i++) store.insertJob(sampleJob('acme'), 0);
  const writes: UsagePeakUpdate[][] = [];
  const raise = store.raiseUsagePeaks.bind(store);
  store.raiseUsagePeaks = (updates, atMs) => {
    writes.push([...updates]);
    raise(updates, atMs);
  };
  return { store, writes };
}

describe('measuredPeaks', () => {
  it("takes each job's largest memory on one GPU, and a GPU's utilization only for a job alone on it", () => {
    expect(measuredPeaks(INPUT, sample(7))).toEqual([
      { jobId: 1, gpuMemoryMiB: 1000, gpuUtilizationPct: null },
      { jobId: 2, gpuMemoryMiB: 2000, gpuUtilizationPct: null },
      { jobId: 3, gpuMemoryMiB: 30_000, gpuUtilizationPct: 45.5 },
      { jobId: 5, gpuMemoryMiB: 500, gpuUtilizationPct: 60 },
    ]);
  });

  it('ignores entries of jobs the input does not name; a GPU a job left alone counts for the other', () => {
    const input = { ...INPUT, jobs: INPUT.jobs.filter((j) => j.jobId !== 3 && j.jobId !== 2) };
    expect(measuredPeaks(input, sample(7)).map((u) => [u.jobId, u.gpuMemoryMiB, u.gpuUtilizationPct])).toEqual([
      [1, 1000, 90],
      [5, 500, 60],
    ]);
  });

  it('measures nothing from simulated GPUs', () => {
    expect(measuredPeaks(INPUT, sample(7, 30_000, 'simulated'))).toEqual([]);
  });
});

describe('UsagePeaks', () => {
  it('writes the store only when a peak rises, one transaction per sample', () => {
    const { store, writes } = countingStore();
    const peaks = new UsagePeaks(store, recordingLogger());
    peaks.observe(INPUT, sample(1_000));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.map((u) => u.jobId)).toEqual([1, 2, 3, 5]);
    peaks.observe(INPUT, sample(2_000));
    peaks.observe(INPUT, sample(3_000, 29_000));
    expect(writes).toHaveLength(1);
    peaks.observe(INPUT, sample(4_000, 31_000));
    expect(writes).toEqual([expect.anything(), [{ jobId: 3, gpuMemoryMiB: 31_000, gpuUtilizationPct: 45.5 }]]);
    expect(store.getUsagePeak(3)).toEqual({
      jobId: 3,
      gpuMemoryMiB: 31_000,
      gpuUtilizationPct: 45.5,
      updatedAtMs: 4_000,
    });
    expect(store.getUsagePeak(5)).toEqual({ jobId: 5, gpuMemoryMiB: 500, gpuUtilizationPct: 60, updatedAtMs: 1_000 });
    expect(store.getUsagePeak(4)).toBeNull();
    // Simulated samples record nothing, however high.
    peaks.observe(INPUT, sample(5_000, 80_000, 'simulated'));
    expect(writes).toHaveLength(2);
  });

  it('keeps the larger of reported and measured values', () => {
    const { store, writes } = countingStore();
    const peaks = new UsagePeaks(store, recordingLogger());
    peaks.observe(INPUT, sample(1_000));
    expect(peaks.report({ jobId: 3, gpuMemoryMiB: 40_000, gpuUtilizationPct: 20 }, 1_500)).toEqual({
      peak: { jobId: 3, gpuMemoryMiB: 40_000, gpuUtilizationPct: 45.5, updatedAtMs: 1_500 },
      raised: true,
    });
    peaks.observe(INPUT, sample(2_000, 35_000));
    expect(peaks.report({ jobId: 3, gpuMemoryMiB: 39_000, gpuUtilizationPct: null }, 2_500)).toEqual({
      peak: { jobId: 3, gpuMemoryMiB: 40_000, gpuUtilizationPct: 45.5, updatedAtMs: 1_500 },
      raised: false,
    });
    expect(writes).toHaveLength(2);
    // A job reports before any sample: its peak is read from the store first.
    expect(peaks.report({ jobId: 4, gpuMemoryMiB: null, gpuUtilizationPct: 99.5 }, 3_000)).toEqual({
      peak: { jobId: 4, gpuMemoryMiB: null, gpuUtilizationPct: 99.5, updatedAtMs: 3_000 },
      raised: true,
    });
  });

  it('reads a stored peak again after a restart, and forgets jobs that no longer run', () => {
    const { store, writes } = countingStore();
    store.raiseUsagePeaks([{ jobId: 3, gpuMemoryMiB: 50_000, gpuUtilizationPct: 90 }], 500);
    writes.length = 0;
    const peaks = new UsagePeaks(store, recordingLogger());
    peaks.observe(INPUT, sample(1_000));
    expect(writes[0]!.map((u) => u.jobId)).toEqual([1, 2, 5]);
    // Job 3 ends (its entry in a sample is ignored); a peak written behind the tracker's back is read
    // again when it runs once more.
    peaks.observe({ ...INPUT, jobs: INPUT.jobs.filter((j) => j.jobId !== 3) }, sample(2_000, 70_000));
    store.raiseUsagePeaks([{ jobId: 3, gpuMemoryMiB: 60_000, gpuUtilizationPct: null }], 2_500);
    writes.length = 0;
    peaks.observe(INPUT, sample(3_000, 55_000));
    expect(writes).toEqual([]);
  });

  it('logs a store failure once, never throws, and tries the same values again', () => {
    const { store, writes } = countingStore();
    const log = recordingLogger();
    const peaks = new UsagePeaks(store, log);
    const raise = store.raiseUsagePeaks;
    store.raiseUsagePeaks = () => {
      throw new Error('disk full');
    };
    peaks.observe(INPUT, sample(1_000));
    peaks.observe(INPUT, sample(2_000));
    store.raiseUsagePeaks = raise;
    peaks.observe(INPUT, sample(3_000));
    expect(writes.map((w) => w.length)).toEqual([4]);
    expect(store.getUsagePeak(1)?.updatedAtMs).toBe(3_000);
    expect(log.lines).toEqual([
      'warn storing measured GPU usage peaks failed',
      'info storing measured GPU usage peaks works again',
    ]);
  });

  it('gets each poll from the usage poller, with the input it measured', async () => {
    const { store } = countingStore();
    const peaks = new UsagePeaks(store, recordingLogger());
    const poller = new UsagePoller({
      sampler: {
        source: 'nvidia-smi',
        sample: async (input) => ({ ...sample(8_000), gpus: sample(0).gpus.slice(0, input.gpus.length) }),
      },
      input: () => INPUT,
      sink: new LatestUsage(),
      onSample: (input, s) => peaks.observe(input, s),
      intervalMs: 60_000,
      clock: new ManualClock(),
      logger: recordingLogger(),
    });
    await poller.pollOnce();
    await poller.stop();
    expect(store.getUsagePeak(3)).toEqual({
      jobId: 3,
      gpuMemoryMiB: 30_000,
      gpuUtilizationPct: 45.5,
      updatedAtMs: 8_000,
    });
  });
});

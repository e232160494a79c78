import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { describe, expect, it } from 'vitest';
import { sampleGpu } from '../../adapters/http-client/testing/api-fixtures.js';
import { UsageHistory, usageSample, type UsageSample } from './usage-history.js';

const at = (atMs: number, allocationRatio = 0): UsageSample => ({
  atMs,
  allocationRatio,
  meanUtilizationRatio: null,
  gpus: [],
});

describe('usageSample', () => {
  it('divides the allocation of schedulable GPUs by 1000 per schedulable GPU and averages measured utilization', () => {
    const gpus = [
      sampleGpu({ index: 0, allocatedGpuMilli: 800, utilizationGpuPct: 40 }),
      sampleGpu({ index: 1, allocatedGpuMilli: 300, utilizationGpuPct: null }),
      sampleGpu({ index: 2, allocatedGpuMilli: 500, schedulable: false, cordoned: true, utilizationGpuPct: 90 }),
    ];
    expect(usageSample(gpus, 1_000)).toEqual({
      atMs: 1_000,
      allocationRatio: 0.55, // (800 + 300) / 2000; the cordoned GPU is left out
      meanUtilizationRatio: 0.65, // (40 + 90) / 2 / 100: every GPU that reports one
      gpus: [
        { index: 0, allocatedGpuMilli: 800 },
        { index: 1, allocatedGpuMilli: 300 },
        { index: 2, allocatedGpuMilli: 500 },
      ],
    });
  });

  it('is 0 with no schedulable GPU and null utilization when none is measured', () => {
    expect(usageSample([sampleGpu({ schedulable: false, utilizationGpuPct: null })], 5)).toMatchObject({
      allocationRatio: 0,
      meanUtilizationRatio: null,
    });
    expect(usageSample([], 5)).toEqual({ atMs: 5, allocationRatio: 0, meanUtilizationRatio: null, gpus: [] });
  });
});

describe('UsageHistory', () => {
  it('keeps the newest `capacity` samples, oldest first', () => {
    const history = new UsageHistory(5000, 3);
    expect(history.samples()).toEqual([]);
    expect(history.latest()).toBeNull();
    for (let i = 1; i <= 5; i += 1) history.record(at(i));
    expect(history.samples().map((s) => s.atMs)).toEqual([3, 4, 5]);
    expect(history.latest()?.atMs).toBe(5);
    history.record(at(6));
    expect(history.samples().map((s) => s.atMs)).toEqual([4, 5, 6]);
  });

  it('tells listeners about each sample until removed; a throwing listener does not stop recording', () => {
    const history = new UsageHistory(5000, 10);
    const seen: number[] = [];
    history.onSample(() => {
      throw new Error('broken listener');
    });
    const off = history.onSample((s) => seen.push(s.atMs));
    history.record(at(1));
    off();
    history.record(at(2));
    expect(seen).toEqual([1]);
    expect(history.samples().map((s) => s.atMs)).toEqual([1, 2]);
  });

  it('samples at once and then every interval until stopped', () => {
    const history = new UsageHistory(20, 100);
    const clock = new ManualClock();
    let n = 0;
    const stop = history.startSampling(clock, () => at((n += 1)));
    expect(history.samples()).toHaveLength(1);
    clock.advance(50);
    // every 20 ms: at 0, 20 and 40 ms
    expect(history.samples().map((s) => s.atMs)).toEqual([1, 2, 3]);
    stop();
    clock.advance(1000);
    expect(history.samples()).toHaveLength(3);
  });

  it('rejects a capacity that is not a positive integer and an interval that is not positive', () => {
    expect(() => new UsageHistory(5000, 0)).toThrow('capacity must be a positive integer, got 0');
    expect(() => new UsageHistory(0)).toThrow('intervalMs must be positive, got 0');
  });
});

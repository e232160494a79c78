/**
 * The usage-peak part of the StateStore contract (store.contract.ts calls it): peaks rise, never
 * fall, are written only when a value rises, and a batch naming an unknown job writes nothing.
 */
import { expect, it } from 'vitest';
import { type StateStore, StoreConflictError } from '../../app/ports/state-store.js';
import { sampleJob } from './store-fixtures.js';

/**
 * Declares the usage-peak cases.
 * @param store the store of the current test (fresh and empty for each)
 * @param t0 a base time, ms since the epoch
 */
export function describeUsagePeaks(store: () => StateStore, t0: number): void {
  const twoJobs = (): [number, number] => {
    store().createTenant('acme', t0);
    return [store().insertJob(sampleJob('acme'), t0).id, store().insertJob(sampleJob('acme'), t0).id];
  };

  it('keeps the highest value of each kind, and the time it last rose', () => {
    const [a, b] = twoJobs();
    expect(store().getUsagePeak(a)).toBeNull();
    store().raiseUsagePeaks([{ jobId: a, gpuMemoryMiB: 10_240, gpuUtilizationPct: null }], t0 + 1);
    expect(store().getUsagePeak(a)).toEqual({
      jobId: a,
      gpuMemoryMiB: 10_240,
      gpuUtilizationPct: null,
      updatedAtMs: t0 + 1,
    });
    // Lower memory, a first utilization: only the utilization rises.
    store().raiseUsagePeaks(
      [
        { jobId: a, gpuMemoryMiB: 8_000, gpuUtilizationPct: 37.5 },
        { jobId: b, gpuMemoryMiB: 512, gpuUtilizationPct: 90 },
      ],
      t0 + 2,
    );
    expect(store().getUsagePeak(a)).toEqual({
      jobId: a,
      gpuMemoryMiB: 10_240,
      gpuUtilizationPct: 37.5,
      updatedAtMs: t0 + 2,
    });
    expect(store().getUsagePeak(b)).toEqual({
      jobId: b,
      gpuMemoryMiB: 512,
      gpuUtilizationPct: 90,
      updatedAtMs: t0 + 2,
    });
    // Nothing rises: the stored peak, its time included, stays as it was.
    store().raiseUsagePeaks([{ jobId: a, gpuMemoryMiB: 10_240, gpuUtilizationPct: 12 }], t0 + 3);
    store().raiseUsagePeaks([{ jobId: a, gpuMemoryMiB: null, gpuUtilizationPct: null }], t0 + 4);
    expect(store().getUsagePeak(a)?.updatedAtMs).toBe(t0 + 2);
    store().raiseUsagePeaks([{ jobId: a, gpuMemoryMiB: 20_480, gpuUtilizationPct: 37.5 }], t0 + 5);
    expect(store().getUsagePeak(a)).toEqual({
      jobId: a,
      gpuMemoryMiB: 20_480,
      gpuUtilizationPct: 37.5,
      updatedAtMs: t0 + 5,
    });
  });

  it('writes nothing of a batch that names an unknown job', () => {
    const [a] = twoJobs();
    expect(() =>
      store().raiseUsagePeaks(
        [
          { jobId: a, gpuMemoryMiB: 100, gpuUtilizationPct: 50 },
          { jobId: a + 99, gpuMemoryMiB: 100, gpuUtilizationPct: 50 },
        ],
        t0 + 1,
      ),
    ).toThrow(StoreConflictError);
    expect(store().getUsagePeak(a)).toBeNull();
  });
}

/**
 * Usage over time for the web dashboard's charts: a bounded ring of samples of the cluster's
 * allocation ratio, its mean measured utilization and each GPU's allocated milli-GPU, taken from
 * the GPU views (`toGpuViews`, the same figures `GET /api/v1/gpus` shows) at a fixed interval.
 * Kept in memory only: a restart starts a new history.
 */
import type { Clock } from '../ports/clock.js';
import type { GpuView } from '../../contract/api.js';

/** Samples kept by default: 720 × 5 s = one hour. */
export const DEFAULT_USAGE_HISTORY_CAPACITY = 720;

/** One point of the usage history. */
export interface UsageSample {
  /** When it was taken, ms since the epoch. */
  readonly atMs: number;
  /**
   * Σ allocated milli-GPU of the schedulable GPUs / (1000 × schedulable GPUs), 0..1; 0 when no GPU
   * is schedulable. MIG GPUs count their instances' compute slices (as `allocatedGpuMilli` does).
   */
  readonly allocationRatio: number;
  /** Mean of the measured utilization (0..1) over the GPUs that report one; null when none does. */
  readonly meanUtilizationRatio: number | null;
  /** Every GPU's allocated milli-GPU at that time, by GPU index. */
  readonly gpus: readonly { readonly index: number; readonly allocatedGpuMilli: number }[];
}

/**
 * One sample from the GPU views at `atMs` (pure). Unschedulable GPUs (unhealthy, vanished,
 * cordoned) are left out of the allocation ratio but still listed in `gpus`.
 */
export function usageSample(gpus: readonly GpuView[], atMs: number): UsageSample {
  const schedulable = gpus.filter((g) => g.schedulable);
  const allocated = schedulable.reduce((sum, g) => sum + Math.min(1000, g.allocatedGpuMilli), 0);
  const measured = gpus.map((g) => g.utilizationGpuPct).filter((u): u is number => u !== null);
  return {
    atMs,
    allocationRatio: schedulable.length === 0 ? 0 : allocated / (1000 * schedulable.length),
    meanUtilizationRatio: measured.length === 0 ? null : measured.reduce((a, b) => a + b, 0) / measured.length / 100,
    gpus: gpus.map((g) => ({ index: g.index, allocatedGpuMilli: g.allocatedGpuMilli })),
  };
}

/** A bounded ring of usage samples, oldest first; the oldest is dropped when it is full. */
export class UsageHistory {
  private readonly ring: UsageSample[] = [];
  private next = 0;
  private readonly listeners = new Set<(sample: UsageSample) => void>();

  /**
   * @param intervalMs time between samples when `startSampling` runs, ms
   * @param capacity samples kept
   * @throws RangeError when `intervalMs` is not positive or `capacity` is not a positive integer
   */
  constructor(
    readonly intervalMs: number,
    readonly capacity: number = DEFAULT_USAGE_HISTORY_CAPACITY,
  ) {
    if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be positive, got ${intervalMs}`);
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** Adds a sample, dropping the oldest when the ring is full, and tells the listeners. */
  record(sample: UsageSample): void {
    if (this.ring.length < this.capacity) this.ring.push(sample);
    else this.ring[this.next] = sample;
    this.next = (this.next + 1) % this.capacity;
    for (const listener of this.listeners) {
      try {
        listener(sample);
      } catch {
        // A listener's failure must not stop sampling.
      }
    }
  }

  /** Calls `listener` with every new sample; returns the function that removes it. */
  onSample(listener: (sample: UsageSample) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every kept sample, oldest first. */
  samples(): UsageSample[] {
    if (this.ring.length < this.capacity) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** The newest sample, or null before the first. */
  latest(): UsageSample | null {
    if (this.ring.length === 0) return null;
    return this.ring[(this.next - 1 + this.capacity) % this.capacity] ?? null;
  }

  /**
   * Records `take()` now and then every `intervalMs` ms on `clock`; returns the function that
   * stops it. A `take` that throws skips that sample.
   */
  startSampling(clock: Clock, take: () => UsageSample): () => void {
    const tick = (): void => {
      try {
        this.record(take());
      } catch {
        // A failed sample leaves a gap in the chart; it must never stop the server.
      }
    };
    tick();
    const timer = clock.every(this.intervalMs, tick);
    return () => timer.cancel();
  }
}

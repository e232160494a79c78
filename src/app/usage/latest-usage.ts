/**
 * The latest GPU usage sample of a server, kept by the usage poller (usage-poller.ts) and read by
 * the GPU views and `/metrics`. Reading never measures anything: scrapes and API calls only see
 * what the poller measured last.
 */
import type { GpuUsageSample } from '../ports/gpu-usage.js';

/** Holder of the latest sample. */
export class LatestUsage {
  private current: GpuUsageSample | null = null;

  /** The latest sample; null before the first one and after a failed measurement. */
  latest(): GpuUsageSample | null {
    return this.current;
  }

  /** Replaces the sample (null: none is valid now). */
  set(sample: GpuUsageSample | null): void {
    this.current = sample;
  }
}

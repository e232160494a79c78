/**
 * Memo of the GPU searches that failed during one scheduling pass. A search depends only on the
 * GPU request (mode, gpuCount, gpuMilli, gpuMemoryMiB) and the GPU state, and one that fails
 * changes nothing (no policy call, no rng draw), so a request equal to one that failed since the
 * last placement fails again with the same reason; any placement clears the memo. On a busy server
 * most of a long queue waits, and its jobs come in few shapes, so this saves most searches (MIG
 * searches check layouts per GPU and start) and most reason strings.
 */
import type { EffectiveMode, GpuRequest } from '../model/request.js';

const MODE_KEY: Readonly<Record<EffectiveMode, number>> = { exclusive: 0, mps: 1, timeslice: 2, mig: 3 };

/**
 * One number per (gpuCount, gpuMilli, mode), unique for gpuMilli 0..1000; null for other requests,
 * which are not memoized.
 */
function shapeKey(mode: EffectiveMode, gpu: GpuRequest): number | null {
  const { gpuCount, gpuMilli } = gpu;
  return Number.isSafeInteger(gpuCount) && Number.isInteger(gpuMilli) && gpuMilli >= 0 && gpuMilli <= 1000 ? (gpuCount * 1001 + gpuMilli) * 4 + MODE_KEY[mode] : null;
}

/** Waiting reasons of the GPU searches that failed since the last placement of a pass. */
export class FailedSearches {
  /** By gpuMemoryMiB (null included), then by `shapeKey`. */
  private readonly byMemory = new Map<number | null, Map<number, string>>();

  /** The reason an equal search failed with since the last `clear`; undefined when none did (or the request is not memoized). */
  reasonFor(mode: EffectiveMode, gpu: GpuRequest): string | undefined {
    const key = shapeKey(mode, gpu);
    return key === null ? undefined : this.byMemory.get(gpu.gpuMemoryMiB)?.get(key);
  }

  /** Records that the search for `gpu` in `mode` failed with `reason` (a no-op for a request that is not memoized). */
  record(mode: EffectiveMode, gpu: GpuRequest, reason: string): void {
    const key = shapeKey(mode, gpu);
    if (key === null) return;
    const memo = this.byMemory.get(gpu.gpuMemoryMiB);
    if (memo) memo.set(key, reason);
    else this.byMemory.set(gpu.gpuMemoryMiB, new Map([[key, reason]]));
  }

  /** Forgets every failed search (after a placement: the GPU state changed). */
  clear(): void {
    this.byMemory.clear();
  }
}

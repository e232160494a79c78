/**
 * Memo of the searches that failed during one scheduling pass. A search depends only on the
 * request's shape (mode, GPU count, per-GPU compute and memory, host CPU and memory, allowed GPU
 * models; for `mps` also the tenant, as MPS GPUs take one tenant's jobs) and the cluster's state, and one that fails
 * changes nothing (no policy call, no rng
 * draw), so a request equal to one that failed since the last placement fails again with the same
 * reason; any placement clears the memo. On a busy cluster most of a long queue waits, and its
 * jobs come in few shapes, so this saves most searches (MIG searches check layouts per GPU and
 * start) and most reasons.
 */
import type { EffectiveMode, JobRequest } from '../model/request.js';
import type { WaitReason } from '../model/status.js';

/** The memo key of a search for `job` in `mode`. */
function shapeKey(mode: EffectiveMode, job: JobRequest): string {
  const { gpu } = job;
  const shape =
    `${mode}|${gpu.gpuCount}|${gpu.gpuMilli}|${gpu.gpuMemoryMiB}|${job.cpuMilli}|${job.hostMemoryMiB}|` +
    `${gpu.allowedGpuModels?.join(',') ?? ''}`;
  return mode === 'mps' ? `${shape}|${job.tenant}` : shape;
}

/** Waiting reasons of the searches that failed since the last placement of a pass. */
export class FailedSearches {
  private readonly reasons = new Map<string, WaitReason>();

  /** The reason an equal search failed with since the last `clear`; undefined when none did. */
  reasonFor(mode: EffectiveMode, job: JobRequest): WaitReason | undefined {
    return this.reasons.size === 0 ? undefined : this.reasons.get(shapeKey(mode, job));
  }

  /** Records that the search for `job` in `mode` failed with `reason`. */
  record(mode: EffectiveMode, job: JobRequest, reason: WaitReason): void {
    this.reasons.set(shapeKey(mode, job), reason);
  }

  /** Forgets every failed search (after a placement: the cluster changed). */
  clear(): void {
    this.reasons.clear();
  }
}

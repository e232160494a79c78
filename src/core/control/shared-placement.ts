/**
 * Placement of `exclusive`, `mps` and `timeslice` jobs on GPUs not in MIG mode: finds the model
 * groups with enough GPUs that qualify now (capacity, health, mode), then lets the core's `default`
 * policy choose the group and the GPUs. Each GPU runs one sharing mode at a time: an empty GPU
 * takes any mode; a GPU with jobs takes only jobs of the same mode; `exclusive` needs an empty GPU.
 */
import { InvariantViolation } from '../model/errors.js';
import type { ResourceDemand } from '../framework/resource-demand.js';
import type { PlacedGpu, Placement } from '../model/assignment.js';
import type { EffectiveMode, JobRequest } from '../model/request.js';
import type { ModelGroup, ModelGroups } from './model-groups.js';
import { accountedGpuMilli, reservedGpuMemoryMiB } from '../sharing/share-accounting.js';

/**
 * Finds where `job` goes in `mode` (not `mig`). Leaves the groups' GPU eligibility set for this
 * search; holds nothing.
 * @param timesliceOvercommitRatio how far `timeslice` GPUs may overcommit compute (≥ 1)
 * @param excluded GPUs (by device index) the job must not use; null for none
 * @returns the placement (not yet held), or the reason the job waits
 * @throws InvariantViolation when the core rejects a placement its filter allowed
 */
export function placeShared(job: JobRequest, mode: EffectiveMode, groups: ModelGroups, timesliceOvercommitRatio: number, excluded: ReadonlyMap<number, unknown> | null = null): Placement | string {
  const qualifies = (g: ModelGroups, index: number, m: EffectiveMode): boolean => excluded?.has(index) !== true && qualifiesNow(g, index, m);
  const { gpuCount, gpuMilli } = job.gpu;
  const accounted = accountedGpuMilli(mode, gpuMilli, timesliceOvercommitRatio);
  // 1. Which model groups have enough GPUs that qualify now (same test as the core's filter).
  const candidates: { group: ModelGroup; request: ResourceDemand }[] = [];
  let bestCount = 0;
  for (const group of groups.groups) {
    const modelMemoryMiB = group.node.spec.gpuMemoryMiB ?? 0;
    // An explicit memory request must fit the model also where the whole GPU is reserved (exclusive).
    if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
    const memory = reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB);
    let count = 0;
    for (let local = 0; local < group.deviceIndices.length; local++) {
      // Capacity first: it is two array reads, and on a busy server it rules most GPUs out.
      const ok = group.node.gpuFreeMilli[local]! >= accounted && group.node.gpuFreeMemoryMiB[local]! >= memory && qualifies(groups, group.deviceIndices[local]!, mode);
      if (ok) count++;
    }
    bestCount = Math.max(bestCount, count);
    if (count >= gpuCount) candidates.push({ group, request: { cpuMilli: 0, hostMemoryMiB: 0, gpuCount, gpuMilli: accounted, gpuMemoryMiB: memory, allowedGpuModels: [] } });
  }
  if (candidates.length === 0) {
    return `waiting for ${gpuCount} GPU(s) of one model with ${accounted} free milli-GPU and ${job.gpu.gpuMemoryMiB ?? 'proportional'}${job.gpu.gpuMemoryMiB === null ? '' : ' MiB'} free memory in mode ${mode}; at most ${bestCount} qualify now`;
  }
  // 2. Requests whose memory follows the GPU differ per model: take the smallest model that fits.
  //    Otherwise the policy chooses among all qualifying models.
  const perModel = mode === 'exclusive' || job.gpu.gpuMemoryMiB === null;
  const chosen = perModel ? [candidates[0]!] : candidates;
  for (const group of groups.groups) {
    const enabled = chosen.some((c) => c.group === group);
    for (let local = 0; local < group.deviceIndices.length; local++) {
      group.node.setGpuEligible(local, enabled && qualifies(groups, group.deviceIndices[local]!, mode));
    }
  }
  const decision = groups.scheduler.schedule(chosen[0]!.request);
  if (decision.kind !== 'placed') throw new InvariantViolation(`job ${job.id}: the core rejected a placement its filter allowed`);
  const group = groups.groups[decision.nodeIndex]!;
  const request = chosen.find((c) => c.group === group)!.request;
  const gpus: PlacedGpu[] = decision.gpuIndices.map((local) => {
    const device = groups.devices.get(group.deviceIndices[local]!)!.device;
    return { index: device.index, uuid: device.uuid, gpuMilli, accountedGpuMilli: accounted, gpuMemoryMiB: request.gpuMemoryMiB, mig: null };
  });
  return { mode, gpus: gpus.sort((a, b) => a.index - b.index) };
}

/** Mode and health rules of one non-MIG device (capacity is the core's business). */
function qualifiesNow(groups: ModelGroups, index: number, mode: EffectiveMode): boolean {
  const state = groups.devices.get(index)!;
  if (!state.device.schedulable) return false;
  if (mode === 'exclusive') return state.jobs.size === 0;
  return state.mode === null || state.mode === mode;
}

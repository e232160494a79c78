/**
 * Validation of an assignment before the cluster state holds it (a placement just made, or a
 * running job re-adopted after a restart): the rules every held assignment keeps, checked against
 * what the node's GPUs hold now. Nothing here changes any state.
 */
import { InvariantViolation } from '../model/errors.js';
import type { Assignment } from '../model/assignment.js';
import type { MigLayouts } from './mig-layouts.js';
import type { DeviceState } from './unit-groups.js';

/**
 * Throws, changing nothing, when `allocation` cannot be held: the job is held already, the
 * placement names no GPU, a GPU twice or an unknown GPU, a GPU runs another mode, `exclusive`
 * meets a GPU with jobs, a share differs between its GPUs, or a GPU's compute, memory or MIG
 * slices would be over-committed.
 * @param held the assignments held now, by job id
 * @param devices the state of every GPU of the assignment's node, by GPU index
 * @param mig the MIG instances of that node
 * @throws InvariantViolation naming the job and the broken rule
 */
export function checkHold(
  allocation: Assignment,
  held: ReadonlyMap<number, Assignment>,
  devices: ReadonlyMap<number, DeviceState>,
  mig: MigLayouts,
): void {
  const { jobId, placement } = allocation;
  if (held.has(jobId)) throw new InvariantViolation(`job ${jobId} is already held`);
  const first = placement.gpus[0];
  if (first === undefined) throw new InvariantViolation(`job ${jobId}: placement without GPUs`);
  const seen = new Set<number>();
  for (const gpu of placement.gpus) {
    if (seen.has(gpu.index)) throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} listed twice`);
    seen.add(gpu.index);
    const state = devices.get(gpu.index);
    if (!state) throw new InvariantViolation(`job ${jobId}: no GPU ${gpu.index}`);
    if (state.mode !== null && state.mode !== placement.mode)
      throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} runs ${state.mode}, not ${placement.mode}`);
    if (placement.mode === 'mig') continue;
    if (!state.unit)
      throw new InvariantViolation(
        `job ${jobId}: GPU ${gpu.index} is in MIG mode; it cannot hold a ${placement.mode} share`,
      );
    if (placement.mode === 'exclusive' && state.jobs.size > 0)
      throw new InvariantViolation(`job ${jobId}: GPU ${gpu.index} is not empty; exclusive needs the whole GPU`);
    if (gpu.accountedGpuMilli !== first.accountedGpuMilli || gpu.gpuMemoryMiB !== first.gpuMemoryMiB)
      throw new InvariantViolation(
        `job ${jobId}: the share on GPU ${gpu.index} differs from that on GPU ${first.index}`,
      );
    const node = state.unit.state;
    if (
      node.gpuFreeMilli[state.local]! < gpu.accountedGpuMilli ||
      (gpu.gpuMemoryMiB > 0 && node.gpuFreeMemoryMiB[state.local]! < gpu.gpuMemoryMiB)
    ) {
      throw new InvariantViolation(
        `job ${jobId}: GPU ${gpu.index} has ${node.gpuFreeMilli[state.local]} milli-GPU and ` +
          `${node.gpuFreeMemoryMiB[state.local]} MiB free, the job holds ${gpu.accountedGpuMilli} and ` +
          `${gpu.gpuMemoryMiB}`,
      );
    }
  }
  if (placement.mode === 'mig') mig.check(jobId, placement.gpus, (i) => devices.get(i)!.device);
}

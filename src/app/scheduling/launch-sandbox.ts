/**
 * What one attempt's sandbox is built from (docs/security.md): the job's tenant, the device-node
 * minors of its GPUs, the ids of its MIG instances, the directories it owns and the ones it shares,
 * and the clean environment a sandboxed job starts from (nothing of the server's).
 */
import type { Placement } from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { LaunchSandboxSpec } from '../ports/process-launcher.js';

/** PATH of a sandboxed job that sets none (Debian's default for users, plus the sbin folders). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The base environment of a sandboxed job: fixed values, nothing taken from the server's. */
export function sandboxBaseEnvironment(workingDirectory: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: workingDirectory, LANG: 'C.UTF-8', TMPDIR: '/tmp' };
}

/** What {@link launchSandboxSpec} reads. */
export interface LaunchSandboxInput {
  readonly tenant: string;
  readonly placement: Placement;
  /** The device names of the placement (CUDA_VISIBLE_DEVICES order): MIG device UUIDs for MIG. */
  readonly visibleDevices: readonly string[];
  readonly inventory: ReadonlyMap<number, InventoryGpu>;
  /** Directories the job owns: its working directory when private, its checkpoint directory. */
  readonly ownedDirectories: readonly string[];
  /** Directories it may write without owning them (its MPS pipe directory). */
  readonly sharedDirectories: readonly string[];
}

/**
 * The sandbox part of a launch spec. A GPU's device minor is the inventory's (`nvidia-smi -q -x`
 * `<minor_number>`), else its index; a MIG instance's ids come from the inventory entry whose UUID
 * the job was given (simulated instances have none, so no capability nodes).
 */
export function launchSandboxSpec(input: LaunchSandboxInput): LaunchSandboxSpec {
  const gpuMinors: number[] = [];
  const migInstances: { gpuMinor: number; gpuInstanceId: number; computeInstanceId: number }[] = [];
  input.placement.gpus.forEach((gpu, i) => {
    const inventoryGpu = input.inventory.get(gpu.index);
    const gpuMinor = inventoryGpu?.deviceMinor ?? gpu.index;
    gpuMinors.push(gpuMinor);
    if (!gpu.mig) return;
    const device = inventoryGpu?.migDevices.find((d) => d.uuid === input.visibleDevices[i]);
    if (device && device.gpuInstanceId !== null && device.computeInstanceId !== null) {
      migInstances.push({ gpuMinor, gpuInstanceId: device.gpuInstanceId, computeInstanceId: device.computeInstanceId });
    }
  });
  return {
    tenant: input.tenant,
    gpuMinors,
    migInstances,
    ownedDirectories: [...input.ownedDirectories],
    sharedDirectories: [...input.sharedDirectories],
  };
}

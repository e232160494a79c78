/**
 * The control plane's side of MIG: reads the GPU instances that exist when the server starts, and
 * before a `mig` job launches applies the layout changes its placement needs (destroy idle GIs,
 * create GIs) through the MIG manager, then finds the MIG device UUID of the job's instance
 * (docs/mig.md). One apply per GPU that changes; each counts as one reconfiguration.
 */
import { findMigProfile, type GpuDevice, type MigInstance, type Placement, type PlacedGpu } from '../../core/index.js';
import type { MigInstanceState, MigManager } from '../ports/mig-manager.js';

/** A GI as the scheduler core describes it, from what the MIG manager read. */
export function toMigInstance(model: string, state: MigInstanceState): MigInstance {
  const profile = findMigProfile(model, state.profileId);
  return {
    profileId: state.profileId,
    profileName: profile?.name ?? state.profileName,
    start: state.start,
    size: state.size,
    computeSlices: profile?.computeSlices ?? 0,
  };
}

/** Where the GIs that exist on each MIG GPU are recorded (the GPU roster). */
export interface MigInstanceRegistry {
  setMigInstances(index: number, instances: readonly MigInstance[]): void;
}

/** Records which GIs exist on every MIG GPU. Errors are logged per GPU, never thrown. */
export async function adoptExistingInstances(
  mig: MigManager,
  registry: MigInstanceRegistry,
  devices: readonly GpuDevice[],
  warn: (gpu: number, error: unknown) => void,
): Promise<void> {
  for (const device of devices.filter((d) => d.migEnabled)) {
    try {
      const instances = await mig.listInstances(device.index);
      registry.setMigInstances(
        device.index,
        instances.map((i) => toMigInstance(device.model, i)),
      );
    } catch (error) {
      warn(device.index, error);
    }
  }
}

/**
 * Makes the placement's GIs exist and returns the placement with each GPU's `migDeviceUuid`; the
 * GIs that exist on each of its GPUs afterwards go to `registry`.
 * @returns the updated placement and how many GPUs were reconfigured
 * @throws Error naming the GPU and the manager's error (e.g. `Insufficient Resources …`)
 */
export async function prepareMigInstances(
  mig: MigManager,
  placement: Placement,
  registry: MigInstanceRegistry,
  modelOf: (index: number) => string,
): Promise<{ placement: Placement; reconfigured: number }> {
  let reconfigured = 0;
  const gpus: PlacedGpu[] = [];
  for (const gpu of placement.gpus) {
    const changes = gpu.migChanges;
    if (changes && (changes.destroy.length > 0 || changes.create.length > 0)) {
      const result = await mig.apply(gpu.index, {
        destroy: changes.destroy.map((d) => ({ ...d })),
        create: changes.create.map((c) => ({ ...c })),
      });
      if (!result.ok) throw new Error(`MIG reconfiguration of GPU ${gpu.index} failed: ${result.error}`);
      reconfigured++;
    }
    const instances = await mig.listInstances(gpu.index);
    registry.setMigInstances(
      gpu.index,
      instances.map((i) => toMigInstance(modelOf(gpu.index), i)),
    );
    const mine = instances.find((i) => i.start === gpu.mig!.start && i.profileId === gpu.mig!.profileId);
    if (!mine)
      throw new Error(
        `GPU ${gpu.index} has no ${gpu.mig!.profileName} instance at ${gpu.mig!.start} after the reconfiguration`,
      );
    gpus.push({ ...gpu, migDeviceUuid: mine.migDeviceUuid });
  }
  return { placement: { ...placement, gpus }, reconfigured };
}

/**
 * The node's published inventory (schema/node-inventory.ts) from what GPU discovery found: the
 * GpuInventory port's GPUs (nvidia-smi or simulated) and, for MIG GPUs, the GPU instances the MIG
 * manager lists. Pure.
 */
import type { InventoryGpu as DiscoveredGpu } from '../../../app/ports/gpu-inventory.js';
import type { MigInstanceState } from '../../../app/ports/mig-manager.js';
import { toMigInstance } from '../../../app/scheduling/mig-agent.js';
import type { InventoryGpu, InventoryMigInstance } from '../schema/node-inventory.js';

/** The inventory and what was left out of it. */
export interface DiscoveredInventory {
  /** The GPUs by index. */
  readonly gpus: InventoryGpu[];
  /** One line per GPU instance left out (no MIG device UUID, or a profile the catalog lacks). */
  readonly warnings: string[];
}

/**
 * Converts discovered GPUs. Each GPU keeps index, UUID, catalog model, memory, health and MIG mode;
 * a MIG GPU lists the GIs of `migInstances.get(index)` that have a MIG device UUID (a GI without a
 * compute instance has none and cannot be given to a pod) and a profile the catalog knows (its
 * compute slices are needed), by ascending start; the others are reported in `warnings`. A GPU
 * without MIG lists none.
 */
export function inventoryOfDiscovered(
  discovered: readonly DiscoveredGpu[],
  migInstances: ReadonlyMap<number, readonly MigInstanceState[]> = new Map(),
): DiscoveredInventory {
  const warnings: string[] = [];
  const gpus = [...discovered]
    .sort((a, b) => a.index - b.index)
    .map((g): InventoryGpu => {
      const instances: InventoryMigInstance[] = [];
      if (g.migEnabled) {
        for (const state of [...(migInstances.get(g.index) ?? [])].sort((a, b) => a.start - b.start)) {
          const where = `GPU ${g.index} MIG instance ${state.profileName} at slice ${state.start}`;
          if (state.migDeviceUuid === null) {
            warnings.push(
              `${where} has no MIG device UUID (no compute instance, or nvidia-smi -L did not match it): not published`,
            );
            continue;
          }
          const mig = toMigInstance(g.model, state);
          if (mig.computeSlices <= 0) {
            warnings.push(`${where}: profile ${state.profileId} is not in the catalog for ${g.model}: not published`);
            continue;
          }
          instances.push({
            uuid: state.migDeviceUuid,
            profileId: mig.profileId,
            profileName: mig.profileName,
            start: mig.start,
            size: mig.size,
            computeSlices: mig.computeSlices,
          });
        }
      }
      return {
        index: g.index,
        uuid: g.uuid,
        model: g.model,
        gpuMemoryMiB: g.gpuMemoryMiB,
        healthy: g.healthy,
        migEnabled: g.migEnabled,
        migInstances: instances,
      };
    });
  return { gpus, warnings };
}

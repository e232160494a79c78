/**
 * The GPUs of this server as the control plane knows them: the latest inventory record of every
 * GPU ever seen (a vanished GPU stays, unhealthy, so the jobs it held keep their place), the
 * cordons, and the MIG GPU instances that exist on each MIG GPU (read at start, updated after every
 * reconfiguration). The scheduler core sees them as `GpuDevice`s: schedulable = healthy and not
 * cordoned.
 */
import type { GpuDevice, MigInstance } from '../../core/index.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';

/** GPUs, cordons and MIG instances. */
export class GpuRoster {
  private inventory = new Map<number, InventoryGpu>();
  private cordoned: Set<string>;
  private readonly migInstances = new Map<number, readonly MigInstance[]>();

  /** @param cordoned UUIDs of cordoned GPUs (from the store) */
  constructor(initial: readonly InventoryGpu[], cordoned: Iterable<string>) {
    for (const gpu of initial) this.inventory.set(gpu.index, gpu);
    this.cordoned = new Set(cordoned);
  }

  /** The GPUs as the scheduler core sees them, by index. */
  devices(): GpuDevice[] {
    return this.inventoryGpus().map((g) => ({
      index: g.index,
      uuid: g.uuid,
      model: g.model,
      gpuMemoryMiB: g.gpuMemoryMiB,
      migEnabled: g.migEnabled,
      schedulable: g.healthy && !this.cordoned.has(g.uuid),
      ...(g.migEnabled && this.migInstances.has(g.index) ? { migInstances: this.migInstances.get(g.index)! } : {}),
    }));
  }

  /** The latest inventory record of each GPU, by index. */
  inventoryGpus(): InventoryGpu[] {
    return [...this.inventory.values()].sort((a, b) => a.index - b.index);
  }

  /** The latest inventory record of GPU `index`; undefined when never seen. */
  gpu(index: number): InventoryGpu | undefined {
    return this.inventory.get(index);
  }

  /** True when GPU `uuid` is cordoned. */
  isCordoned(uuid: string): boolean {
    return this.cordoned.has(uuid);
  }

  /** Takes new inventory records (merged by index: GPUs not listed keep their last record) and/or new cordons. */
  update(gpus: readonly InventoryGpu[] | null, cordoned?: Iterable<string>): void {
    if (gpus) for (const gpu of gpus) this.inventory.set(gpu.index, gpu);
    if (cordoned) this.cordoned = new Set(cordoned);
  }

  /** Records the GPU instances that exist on MIG GPU `index` now. */
  setMigInstances(index: number, instances: readonly MigInstance[]): void {
    this.migInstances.set(index, instances);
  }
}

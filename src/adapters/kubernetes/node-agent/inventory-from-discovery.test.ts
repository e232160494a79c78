import { describe, expect, it } from 'vitest';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../gpu/simulated-gpus.js';
import type { MigInstanceState } from '../../../app/ports/mig-manager.js';
import { inventoryOfDiscovered } from './inventory-from-discovery.js';

const gi = (
  start: number,
  size: number,
  profileId: number,
  profileName: string,
  migDeviceUuid: string | null,
): MigInstanceState => ({
  gpuInstanceId: start + 1,
  profileId,
  profileName,
  start,
  size,
  computeInstances: [{ computeInstanceId: 0, profileId: 2 }],
  migDeviceUuid,
});

describe('inventory from discovered GPUs', () => {
  it('converts simulated GPUs, with the MIG instances that have a device UUID', async () => {
    const simulated = createSimulatedInventory(parseSimulatedGpuSpec('1xA100-80GB,1xA100-80GB:mig'));
    simulated.setHealth(0, false, 'XID 79');
    const discovered = await simulated.list();
    const { gpus, warnings } = inventoryOfDiscovered(
      discovered,
      new Map([[1, [gi(4, 4, 9, '3g.40gb', 'MIG-aaaa'), gi(0, 4, 9, '3g.40gb', null)]]]),
    );
    expect(gpus).toEqual([
      {
        index: 0,
        uuid: discovered[0]!.uuid,
        model: 'A100-80GB',
        gpuMemoryMiB: 81920,
        healthy: false,
        migEnabled: false,
        migInstances: [],
      },
      {
        index: 1,
        uuid: discovered[1]!.uuid,
        model: 'A100-80GB',
        gpuMemoryMiB: 81920,
        healthy: true,
        migEnabled: true,
        migInstances: [{ uuid: 'MIG-aaaa', profileId: 9, profileName: '3g.40gb', start: 4, size: 4, computeSlices: 3 }],
      },
    ]);
    expect(warnings).toEqual([
      'GPU 1 MIG instance 3g.40gb at slice 0 has no MIG device UUID (no compute instance, or nvidia-smi ' +
        '-L did not match it): not published',
    ]);
  });
});

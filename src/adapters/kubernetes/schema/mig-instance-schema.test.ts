import { describe, expect, it } from 'vitest';
import { formatInventory, parseInventory, type NodeInventory } from './node-inventory.js';
import { assignmentAnnotations, parseAssignment, type PodAssignment } from './pod-assignment.js';

const instance = { uuid: 'MIG-1', profileId: 9, profileName: '3g.40gb', start: 4, size: 4, computeSlices: 3 };

const assignment = (mig: unknown): Record<string, string> => ({
  'gpushare.io/assignment': JSON.stringify({
    schema: 'v1',
    node: 'n1',
    mode: 'mig',
    gpus: [{ index: 0, uuid: 'GPU-0', gpuMilli: 250, accountedGpuMilli: 0, gpuMemoryMiB: 40192, mig }],
  }),
});

const inventory = (migInstances: unknown[]): Record<string, string> => ({
  'gpushare.io/gpus': JSON.stringify({
    schema: 'v1',
    gpus: [
      {
        index: 0,
        uuid: 'GPU-0',
        model: 'A100-80GB',
        gpuMemoryMiB: 81920,
        healthy: true,
        migEnabled: true,
        migInstances,
      },
    ],
  }),
});

describe('the MIG instance schema, one for the inventory and the assignment', () => {
  it('reads the same instance in both', () => {
    const parsed = parseAssignment(assignment(instance)) as PodAssignment;
    expect(parsed.gpus[0]!.mig).toEqual(instance);
    expect(parseAssignment(assignmentAnnotations(parsed))).toEqual(parsed);
    const { gpus } = parseInventory(inventory([instance])) as NodeInventory;
    expect(gpus[0]!.migInstances).toEqual([instance]);
    expect(parseInventory({ 'gpushare.io/gpus': formatInventory(gpus) })).toEqual({ schema: 'v1', gpus });
  });

  it('refuses the same faults in both, naming the field', () => {
    expect(parseAssignment(assignment({ ...instance, size: 0 }))).toEqual({
      error: 'annotation gpushare.io/assignment: gpus.0.mig.size: Number must be greater than 0',
    });
    expect(parseInventory(inventory([{ ...instance, size: 0 }]))).toEqual({
      error: 'annotation gpushare.io/gpus: gpus.0.migInstances.0.size: Number must be greater than 0',
    });
    expect(parseAssignment(assignment({ ...instance, uuid: '' }))).toEqual({
      error: 'annotation gpushare.io/assignment: gpus.0.mig.uuid: String must contain at least 1 character(s)',
    });
    expect(parseInventory(inventory([{ ...instance, uuid: '' }]))).toEqual({
      error: 'annotation gpushare.io/gpus: gpus.0.migInstances.0.uuid: String must contain at least 1 character(s)',
    });
  });
});

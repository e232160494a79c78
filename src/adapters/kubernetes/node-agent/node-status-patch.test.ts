import { describe, expect, it } from 'vitest';
import { parseInventory, type InventoryGpu } from '../schema/node-inventory.js';
import { labelValue, nodeMetadataPatch, nodeStatusPatch } from './node-status-patch.js';

const gpu = (index: number, model: string, gpuMemoryMiB: number, healthy = true): InventoryGpu => ({
  index,
  uuid: `GPU-${index}`,
  model,
  gpuMemoryMiB,
  healthy,
  migEnabled: false,
  migInstances: [],
});

describe('node status patch', () => {
  it('offers every GPU in capacity and the healthy ones in allocatable', () => {
    const gpus = [gpu(0, 'A100-80GB', 81920), gpu(1, 'A100-80GB', 81920, false), gpu(2, 'A100-40GB', 40960)];
    expect(nodeStatusPatch(gpus)).toEqual({
      status: {
        capacity: { 'gpushare.io/gpu': '3', 'gpushare.io/gpu-milli': '3000', 'gpushare.io/gpu-memory-mib': '204800' },
        allocatable: {
          'gpushare.io/gpu': '2',
          'gpushare.io/gpu-milli': '2000',
          'gpushare.io/gpu-memory-mib': '122880',
        },
      },
    });
  });

  it('labels the model of the first GPU, the largest memory and the count, and annotates the inventory', () => {
    const gpus = [gpu(1, 'A100-40GB', 40960), gpu(0, 'NVIDIA A100-SXM4-80GB', 81920)];
    const patch = nodeMetadataPatch(gpus);
    expect(patch.metadata.labels).toEqual({
      'gpushare.io/managed': 'true',
      'gpushare.io/gpu-model': 'NVIDIA-A100-SXM4-80GB',
      'gpushare.io/gpu-memory-mib': '81920',
      'gpushare.io/gpu-count': '2',
    });
    const inventory = parseInventory(patch.metadata.annotations);
    expect(inventory).toEqual({ schema: 'v1', gpus: [gpus[1], gpus[0]] });
  });

  it('publishes a node without GPUs with zero resources and no model', () => {
    expect(nodeStatusPatch([]).status.capacity).toEqual({
      'gpushare.io/gpu': '0',
      'gpushare.io/gpu-milli': '0',
      'gpushare.io/gpu-memory-mib': '0',
    });
    expect(nodeMetadataPatch([]).metadata.labels).toEqual({
      'gpushare.io/managed': 'true',
      'gpushare.io/gpu-model': null,
      'gpushare.io/gpu-memory-mib': null,
      'gpushare.io/gpu-count': '0',
    });
  });

  it('makes label values valid', () => {
    expect(labelValue('Tesla V100-SXM2-16GB')).toBe('Tesla-V100-SXM2-16GB');
    expect(labelValue(' (x) ')).toBe('x');
    expect(labelValue('a'.repeat(70))).toHaveLength(63);
  });
});

import { describe, expect, it } from 'vitest';
import { findGpuModel, gpuModelNames, GPU_MODELS } from './gpu-models.js';

describe('GPU model catalog', () => {
  it('covers every model of the Alibaba openb node list, with G1-G3 of unknown memory', () => {
    for (const code of ['G1', 'G2', 'G3']) expect(findGpuModel(code)?.gpuMemoryMiB).toBeNull();
    expect(findGpuModel('P100')?.gpuMemoryMiB).toBe(16384);
    expect(findGpuModel('T4')?.gpuMemoryMiB).toBe(16384);
    expect(findGpuModel('V100M16')?.gpuMemoryMiB).toBe(16384);
    expect(findGpuModel('V100M32')?.gpuMemoryMiB).toBe(32768);
    expect(findGpuModel('A10')?.gpuMemoryMiB).toBe(24576);
  });

  it('lists the MIG-capable models exactly', () => {
    expect(GPU_MODELS.filter((m) => m.migCapable).map((m) => m.name)).toEqual([
      'A30-24GB',
      'A100-40GB',
      'A100-80GB',
      'H100-80GB',
      'H200-141GB',
    ]);
  });

  it('resolves aliases to the canonical entry and rejects unknown names', () => {
    expect(findGpuModel('H200')?.name).toBe('H200-141GB');
    expect(findGpuModel('H200-141GB')?.gpuMemoryMiB).toBe(143771);
    expect(findGpuModel('A30')?.name).toBe('A30-24GB');
    expect(findGpuModel('V100')?.name).toBe('V100M32');
    expect(findGpuModel('a100-80gb')).toBeUndefined();
    expect(gpuModelNames()).toHaveLength(14);
  });
});

import { describe, expect, it } from 'vitest';
import {
  decideMode,
  isolationOfQos,
  migCapableModelNames,
  proportionalMemoryMiB,
  sharingGpuModel,
  sharingGpuModelNames,
} from './pod-mode.js';

const A100 = sharingGpuModel('A100-80GB')!;
const T4 = sharingGpuModel('T4')!;

describe('isolationOfQos', () => {
  it('maps LS → strict, Guaranteed/Burstable → standard, BE → none, others → standard', () => {
    expect(['LS', 'Guaranteed', 'Burstable', 'BE', 'other', null].map((q) => isolationOfQos(q))).toEqual([
      'strict',
      'standard',
      'standard',
      'none',
      'standard',
      'standard',
    ]);
  });
});

describe('sharingGpuModel', () => {
  it('knows catalog models with memory (and aliases), not the undisclosed trace codes', () => {
    expect(A100).toEqual({ name: 'A100-80GB', gpuMemoryMiB: 81920, migCapable: true });
    expect(sharingGpuModel('H100')?.name).toBe('H100-80GB');
    expect(T4.migCapable).toBe(false);
    expect(sharingGpuModel('G2')).toBeUndefined();
    expect(sharingGpuModel('B200')).toBeUndefined();
    expect(sharingGpuModelNames()).not.toContain('G1');
    expect(migCapableModelNames()).toEqual(['A30-24GB', 'A100-40GB', 'A100-80GB', 'H100-80GB', 'H200-141GB']);
  });
});

describe('decideMode on an A100-80GB', () => {
  it('gives memory in proportion to compute', () => {
    expect(proportionalMemoryMiB(470, 81920)).toBe(38502);
  });

  it('auto: strict shares get the smallest covering MIG profile, by memory and compute', () => {
    expect(decideMode({ gpuCount: 1, gpuMilli: 100, isolation: 'strict' }, 'auto', A100)).toMatchObject({
      mode: 'mig',
      migProfile: { name: '1g.10gb' },
      gpuMemoryMiB: 8192,
    });
    expect(decideMode({ gpuCount: 1, gpuMilli: 470, isolation: 'strict' }, 'auto', A100).migProfile?.name).toBe(
      '4g.40gb',
    );
    // 650 milli = 53248 MiB: only the 7g holds it.
    expect(decideMode({ gpuCount: 1, gpuMilli: 650, isolation: 'strict' }, 'auto', A100).migProfile?.name).toBe(
      '7g.80gb',
    );
    // 990 milli = 81100 MiB > the 7g's 80896 usable: no profile, so a whole GPU (the core's rule).
    expect(decideMode({ gpuCount: 1, gpuMilli: 990, isolation: 'strict' }, 'auto', A100)).toEqual({
      mode: 'exclusive',
      migProfile: null,
      gpuMemoryMiB: null,
    });
  });

  it('auto: standard → mps, none → timeslice, whole GPUs → exclusive', () => {
    expect(decideMode({ gpuCount: 1, gpuMilli: 300, isolation: 'standard' }, 'auto', A100)).toEqual({
      mode: 'mps',
      migProfile: null,
      gpuMemoryMiB: 24576,
    });
    expect(decideMode({ gpuCount: 1, gpuMilli: 300, isolation: 'none' }, 'auto', A100).mode).toBe('timeslice');
    expect(decideMode({ gpuCount: 2, gpuMilli: 1000, isolation: 'strict' }, 'auto', A100).mode).toBe('exclusive');
  });

  it('auto on a model without MIG: strict shares get whole GPUs', () => {
    expect(decideMode({ gpuCount: 1, gpuMilli: 100, isolation: 'strict' }, 'auto', T4).mode).toBe('exclusive');
  });

  it("mig: every pod gets a profile; whole GPUs and shares beyond the 7g's memory the 7g by compute", () => {
    expect(decideMode({ gpuCount: 1, gpuMilli: 300, isolation: 'none' }, 'mig', A100)).toMatchObject({
      mode: 'mig',
      migProfile: { name: '3g.40gb' },
      gpuMemoryMiB: 24576,
    });
    expect(decideMode({ gpuCount: 4, gpuMilli: 1000, isolation: 'standard' }, 'mig', A100)).toMatchObject({
      mode: 'mig',
      migProfile: { name: '7g.80gb' },
      gpuMemoryMiB: null,
    });
    expect(decideMode({ gpuCount: 1, gpuMilli: 990, isolation: 'strict' }, 'mig', A100)).toMatchObject({
      mode: 'mig',
      migProfile: { name: '7g.80gb' },
      gpuMemoryMiB: null,
    });
    expect(() => decideMode({ gpuCount: 1, gpuMilli: 300, isolation: 'none' }, 'mig', T4)).toThrow(RangeError);
  });

  it('mps / timeslice: every share in that mode, whole GPUs exclusive', () => {
    expect(decideMode({ gpuCount: 1, gpuMilli: 100, isolation: 'strict' }, 'mps', A100).mode).toBe('mps');
    expect(decideMode({ gpuCount: 1, gpuMilli: 100, isolation: 'strict' }, 'timeslice', A100).mode).toBe('timeslice');
    expect(decideMode({ gpuCount: 8, gpuMilli: 1000, isolation: 'none' }, 'timeslice', A100).mode).toBe('exclusive');
  });
});

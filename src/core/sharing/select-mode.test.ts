import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveGpuMilli, selectMode } from './select-mode.js';

const GIB = 1024;

describe('selectMode', () => {
  it('gives a strict 15 GiB job on an A100-40GB a 3g.20gb (not 1g.5gb or 2g.10gb)', () => {
    const s = selectMode({ gpuMilli: 100, gpuMemoryMiB: 15 * GIB, isolation: 'strict' }, 'A100-40GB', 40 * GIB);
    expect(s.mode).toBe('mig');
    expect(s.migProfile?.name).toBe('3g.20gb');
    expect(s.reason).toBe(
      'strict isolation: 3g.20gb is the smallest MIG profile of A100-40GB with ≥ 15360 MiB (20090 ' +
        'usable) and ≥ 1 compute slice(s)',
    );
  });

  it('gives a strict job on a T4 (no MIG) a whole GPU, saying why', () => {
    expect(selectMode({ gpuMilli: 100, gpuMemoryMiB: 15 * GIB, isolation: 'strict' }, 'T4', 16 * GIB)).toEqual({
      mode: 'exclusive',
      migProfile: null,
      reason: 'strict isolation: T4 has no MIG, so a whole GPU',
    });
  });

  it('takes compute slices into account: 0.5 of an A100-80GB with 10 GiB needs 4 slices → 4g.40gb', () => {
    expect(
      selectMode({ gpuMilli: 500, gpuMemoryMiB: 10 * GIB, isolation: 'strict' }, 'A100-80GB', 80 * GIB).migProfile
        ?.name,
    ).toBe('4g.40gb');
  });

  it('falls back to a whole GPU when no profile is big enough', () => {
    const s = selectMode({ gpuMilli: 900, gpuMemoryMiB: 80 * GIB, isolation: 'strict' }, 'A100-80GB', 80 * GIB);
    expect([s.mode, s.reason]).toEqual([
      'exclusive',
      'strict isolation: no MIG profile of A100-80GB has 81920 MiB and enough compute, so a whole GPU',
    ]);
  });

  it.each([
    ['standard', 'mps'],
    ['none', 'timeslice'],
  ] as const)('isolation %s → %s', (isolation, mode) => {
    expect(selectMode({ gpuMilli: 300, gpuMemoryMiB: null, isolation }, 'A100-80GB', 80 * GIB).mode).toBe(mode);
  });

  it('runs whole GPUs exclusive whatever the isolation', () => {
    for (const isolation of ['strict', 'standard', 'none'] as const)
      expect(selectMode({ gpuMilli: 1000, gpuMemoryMiB: null, isolation }, 'H100-80GB', 81559).mode).toBe('exclusive');
  });
});

describe('effectiveGpuMilli', () => {
  it('derives compute from memory when only memory is given (rounded down, at least 1)', () => {
    expect(effectiveGpuMilli(null, 20 * GIB, 80 * GIB)).toBe(250);
    expect(effectiveGpuMilli(null, 10_000, 81559)).toBe(122);
    expect(effectiveGpuMilli(null, 8 * GIB, 24 * GIB)).toBe(333);
    expect(effectiveGpuMilli(null, 1, 80 * GIB)).toBe(1);
    expect(effectiveGpuMilli(null, 200 * GIB, 80 * GIB)).toBe(1000);
    expect(effectiveGpuMilli(600, 10 * GIB, 80 * GIB)).toBe(600);
    expect(effectiveGpuMilli(null, null, 80 * GIB)).toBe(1000);
  });
});

describe('effectiveGpuMilli: memory-only requests that add up to one GPU fit its compute', () => {
  it("for any split of a GPU's memory into requests of at least 1/1000 of it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 200_000 }),
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 64 }),
        (modelMemoryMiB, weights) => {
          // Split modelMemoryMiB into parts proportional to `weights`, each ≥ ceil(modelMemoryMiB / 1000).
          const floor = Math.ceil(modelMemoryMiB / 1000);
          if (weights.length * floor > modelMemoryMiB) return;
          const spare = modelMemoryMiB - weights.length * floor;
          const total = weights.reduce((a, b) => a + b, 0);
          const parts = weights.map((w) => floor + Math.floor((spare * w) / total));
          parts[0]! += modelMemoryMiB - parts.reduce((a, b) => a + b, 0);
          const milli = parts.map((m) => effectiveGpuMilli(null, m, modelMemoryMiB));
          expect(milli.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000);
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gpuEquivalents } from './gpu-equivalents.js';

const modelArb = fc.constantFrom(16384, 24576, 40960, 81920, 81559, 143771);
const requestArb = fc.record({
  gpuCount: fc.integer({ min: 0, max: 8 }),
  gpuMilli: fc.integer({ min: 1, max: 1000 }),
  gpuMemoryMiB: fc.option(fc.integer({ min: 0, max: 200_000 })),
});

describe('gpuEquivalents properties', () => {
  it('is between gpuCount × gpuMilli / 1000 and gpuCount (a GPU counts at most once)', () => {
    fc.assert(
      fc.property(requestArb, modelArb, (request, model) => {
        const size = gpuEquivalents(request, model);
        expect(size).toBeGreaterThanOrEqual((request.gpuCount * request.gpuMilli) / 1000 - 1e-12);
        expect(size).toBeLessThanOrEqual(request.gpuCount + 1e-12);
      }),
    );
  });

  it('is monotone in gpuMilli and gpuMemoryMiB, and larger on a smaller model', () => {
    fc.assert(
      fc.property(
        requestArb,
        modelArb,
        modelArb,
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 0, max: 50_000 }),
        (request, m1, m2, moreMilli, moreMemory) => {
          const base = gpuEquivalents(request, m1);
          const bigger = {
            ...request,
            gpuMilli: Math.min(1000, request.gpuMilli + moreMilli),
            gpuMemoryMiB: request.gpuMemoryMiB === null ? null : request.gpuMemoryMiB + moreMemory,
          };
          expect(gpuEquivalents(bigger, m1)).toBeGreaterThanOrEqual(base);
          const [small, large] = m1 <= m2 ? [m1, m2] : [m2, m1];
          expect(gpuEquivalents(request, small)).toBeGreaterThanOrEqual(gpuEquivalents(request, large));
        },
      ),
    );
  });

  it('proportional memory (null) counts as the compute share, as if it asked gpuMilli/1000 of the memory', () => {
    fc.assert(
      fc.property(requestArb, modelArb, (request, model) => {
        const proportional = gpuEquivalents({ ...request, gpuMemoryMiB: null }, model);
        expect(proportional).toBe(request.gpuCount * (request.gpuMilli / 1000));
        expect(gpuEquivalents({ ...request, gpuMemoryMiB: (request.gpuMilli / 1000) * model }, model)).toBeCloseTo(
          proportional,
          12,
        );
      }),
    );
  });

  it('scales linearly with gpuCount', () => {
    fc.assert(
      fc.property(requestArb, modelArb, fc.integer({ min: 1, max: 8 }), (request, model, count) => {
        const one = gpuEquivalents({ ...request, gpuCount: 1 }, model);
        expect(gpuEquivalents({ ...request, gpuCount: count }, model)).toBeCloseTo(count * one, 12);
      }),
    );
  });
});

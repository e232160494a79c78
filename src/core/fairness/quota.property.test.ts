import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GPU_EQUIVALENT_EPSILON, gpuEquivalents } from './gpu-equivalents.js';
import { borrowedGpuEquivalents, isUnderGuarantee, quotaAdmission, type TenantQuota } from './quota.js';

type Op = { readonly kind: 'admit'; readonly size: number } | { readonly kind: 'release'; readonly pick: number };

/** Request sizes as the server makes them: fractions of milli, MIG slices, whole GPUs. */
const sizeArb: fc.Arbitrary<number> = fc.oneof(
  fc
    .record({ count: fc.integer({ min: 0, max: 4 }), milli: fc.integer({ min: 1, max: 1000 }) })
    .map(({ count, milli }) => gpuEquivalents({ gpuCount: count, gpuMilli: milli, gpuMemoryMiB: null }, 81920)),
  fc
    .record({ count: fc.integer({ min: 1, max: 2 }), slices: fc.integer({ min: 1, max: 7 }) })
    .map(({ count, slices }) =>
      gpuEquivalents({ gpuCount: count, gpuMilli: 1, gpuMemoryMiB: null, migComputeSlices: slices }, 81920),
    ),
  fc.double({ min: 0, max: 3, noNaN: true }),
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: sizeArb.map((size) => ({ kind: 'admit' as const, size })), weight: 3 },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'release' as const, pick })), weight: 1 },
);

const quotaArb: fc.Arbitrary<TenantQuota> = fc
  .record({
    guaranteed: fc.double({ min: 0, max: 4, noNaN: true }),
    extra: fc.option(fc.double({ min: 0, max: 4, noNaN: true })),
  })
  .map(({ guaranteed, extra }) => ({
    tenant: 't',
    guaranteedGpuEquivalents: guaranteed,
    limitGpuEquivalents: extra === null ? null : guaranteed + extra,
  }));

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

describe('quota admission properties', () => {
  it('admit/release sequences never take usage above the limit; borrowing iff above the guarantee', () => {
    fc.assert(
      fc.property(quotaArb, fc.array(opArb, { maxLength: 60 }), (quota, ops) => {
        const running: number[] = [];
        for (const op of ops) {
          if (op.kind === 'release') {
            if (running.length > 0) running.splice(op.pick % running.length, 1);
            continue;
          }
          const usage = { gpuEquivalents: sum(running), cpuMilli: 0 };
          const result = quotaAdmission(quota, usage, op.size);
          if (result.admitted) {
            running.push(op.size);
            expect(result.borrowing).toBe(sum(running) > quota.guaranteedGpuEquivalents + GPU_EQUIVALENT_EPSILON);
          } else {
            expect(quota.limitGpuEquivalents).not.toBeNull();
            // neverFits exactly when the request alone is over the limit, i.e. rejected even on zero usage.
            const alone = quotaAdmission(quota, { gpuEquivalents: 0, cpuMilli: 0 }, op.size);
            expect(result.neverFits).toBe(!alone.admitted);
          }
          const limit = quota.limitGpuEquivalents;
          if (limit !== null) expect(sum(running)).toBeLessThanOrEqual(limit + GPU_EQUIVALENT_EPSILON);
          const now = { gpuEquivalents: sum(running), cpuMilli: 0 };
          expect(borrowedGpuEquivalents(quota, now)).toBeGreaterThanOrEqual(0);
          if (isUnderGuarantee(quota, now)) expect(borrowedGpuEquivalents(quota, now)).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('without a limit every request is admitted', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        sizeArb,
        (guaranteed, used, size) => {
          const result = quotaAdmission(
            { tenant: 't', guaranteedGpuEquivalents: guaranteed, limitGpuEquivalents: null },
            { gpuEquivalents: used, cpuMilli: 0 },
            size,
          );
          expect(result.admitted).toBe(true);
          expect(quotaAdmission(undefined, { gpuEquivalents: used, cpuMilli: 0 }, size).admitted).toBe(true);
        },
      ),
    );
  });
});

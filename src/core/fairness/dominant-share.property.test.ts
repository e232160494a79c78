import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dominantShare } from './dominant-share.js';
import { addUsage } from './tenant-usage.js';

const amount = (max: number): fc.Arbitrary<number> => fc.double({ min: 0, max, noNaN: true });
const usageArb = fc.record({ gpuEquivalents: amount(64), cpuMilli: amount(512_000) });
const weightArb = fc.double({ min: 0.01, max: 100, noNaN: true });

describe('dominantShare properties', () => {
  it('is monotone in usage: adding usage never lowers the share', () => {
    fc.assert(
      fc.property(usageArb, usageArb, usageArb, weightArb, (usage, extra, capacity, weight) => {
        expect(dominantShare(addUsage(usage, extra), capacity, weight)).toBeGreaterThanOrEqual(
          dominantShare(usage, capacity, weight),
        );
      }),
    );
  });

  it('is antitone in capacity and weight, and never negative', () => {
    fc.assert(
      fc.property(usageArb, usageArb, usageArb, weightArb, weightArb, (usage, capacity, extra, w1, w2) => {
        const share = dominantShare(usage, capacity, w1);
        expect(share).toBeGreaterThanOrEqual(0);
        const bigger = {
          gpuEquivalents: capacity.gpuEquivalents > 0 ? capacity.gpuEquivalents + extra.gpuEquivalents : 0,
          cpuMilli: capacity.cpuMilli > 0 ? capacity.cpuMilli + extra.cpuMilli : 0,
        };
        expect(dominantShare(usage, bigger, w1)).toBeLessThanOrEqual(share);
        expect(dominantShare(usage, capacity, Math.max(w1, w2))).toBeLessThanOrEqual(
          dominantShare(usage, capacity, Math.min(w1, w2)),
        );
      }),
    );
  });

  it('is at most 1 / weight while usage is within capacity', () => {
    fc.assert(
      fc.property(
        usageArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        weightArb,
        (capacity, fg, fc2, weight) => {
          const usage = { gpuEquivalents: capacity.gpuEquivalents * fg, cpuMilli: capacity.cpuMilli * fc2 };
          expect(dominantShare(usage, capacity, weight)).toBeLessThanOrEqual(1 / weight + 1e-12);
        },
      ),
    );
  });
});

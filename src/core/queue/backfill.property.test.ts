import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mayBackfill, reservedStartMs } from './backfill.js';

const NOW = 1_000_000;

interface Running {
  readonly jobId: number;
  readonly units: number;
  readonly expectedEndMs: number | null;
}

const runningArb: fc.Arbitrary<Running[]> = fc
  .array(
    fc.record({
      units: fc.integer({ min: 1, max: 4 }),
      end: fc.option(fc.integer({ min: -10, max: 100 }), { freq: 4 }),
    }),
    { maxLength: 8 },
  )
  .map((jobs) =>
    jobs.map((j, i) => ({ jobId: i + 1, units: j.units, expectedEndMs: j.end === null ? null : NOW + j.end * 60_000 })),
  );

const fitsIn =
  (capacity: number, running: readonly Running[], need: number) =>
  (released: readonly number[]): boolean => {
    const held = running.filter((r) => !released.includes(r.jobId)).reduce((a, r) => a + r.units, 0);
    return capacity - held >= need;
  };

/** Independent reference: the earliest of now and the finite ends at which enough is free. */
function reference(capacity: number, running: readonly Running[], need: number): number | null {
  const times = [
    NOW,
    ...running.flatMap((r) => (r.expectedEndMs === null ? [] : [Math.max(NOW, r.expectedEndMs)])),
  ].sort((a, b) => a - b);
  for (const t of times) {
    const held = running
      .filter((r) => r.expectedEndMs === null || Math.max(NOW, r.expectedEndMs) > t)
      .reduce((a, r) => a + r.units, 0);
    if (capacity - held >= need) return t;
  }
  return null;
}

describe('backfill properties', () => {
  it('the reservation is the earliest time the blocked job fits as jobs end', () => {
    fc.assert(
      fc.property(
        runningArb,
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 20 }),
        (running, spare, need) => {
          const capacity = running.reduce((a, r) => a + r.units, 0) + spare;
          expect(reservedStartMs(need, running, fitsIn(capacity, running, need), NOW)).toBe(
            reference(capacity, running, need),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('starting the jobs mayBackfill allows (that fit now) never delays the blocked job', () => {
    const candidatesArb = fc.array(
      fc.record({ units: fc.integer({ min: 1, max: 4 }), limitMinutes: fc.option(fc.integer({ min: 1, max: 120 })) }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(
        runningArb,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 20 }),
        candidatesArb,
        (running, spare, need, candidates) => {
          const capacity = running.reduce((a, r) => a + r.units, 0) + spare;
          if (fitsIn(capacity, running, need)([])) return; // not blocked
          const reservation = reservedStartMs(need, running, fitsIn(capacity, running, need), NOW);
          const now = [...running];
          for (const [i, c] of candidates.entries()) {
            const timeLimitSeconds = c.limitMinutes === null ? null : c.limitMinutes * 60;
            const free = capacity - now.reduce((a, r) => a + r.units, 0);
            if (
              c.units > free ||
              !mayBackfill({ timeLimitSeconds }, { blocked: true, reservedStartMs: reservation }, NOW)
            )
              continue;
            expect(timeLimitSeconds).not.toBeNull();
            now.push({ jobId: 100 + i, units: c.units, expectedEndMs: NOW + (timeLimitSeconds ?? 0) * 1000 });
          }
          const after = reservedStartMs(need, now, fitsIn(capacity, now, need), NOW);
          if (reservation !== null) {
            expect(after).not.toBeNull();
            expect(after!).toBeLessThanOrEqual(reservation);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

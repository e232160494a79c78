import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  agingCap,
  compareQueueEntries,
  effectivePriority,
  orderQueue,
  type QueueEntry,
  type QueueOrderContext,
} from './queue-order.js';
import { QueueIndex } from './queue-index.js';
import type { JobRequest } from '../model/request.js';

const NOW = 10_000_000;
const TENANTS = ['a', 'b', 'c'] as const;

/** Small domains, so equal fields (and equal effective priorities through the cap) are common. */
const entryArb: fc.Arbitrary<QueueEntry> = fc.record({
  id: fc.integer({ min: 1, max: 6 }),
  tenant: fc.constantFrom(...TENANTS),
  priority: fc.constantFrom(100, 110, 300, 490, 500, 900, 1000, 1200),
  submittedAtMs: fc.constantFrom(
    NOW - 100 * 300_000,
    NOW - 40 * 300_000,
    NOW - 600_000,
    NOW - 300_000,
    NOW - 1,
    NOW,
    NOW + 5,
  ),
});

const ctxArb: fc.Arbitrary<QueueOrderContext> = fc.record({
  nowMs: fc.constant(NOW),
  dominantShareByTenant: fc
    .tuple(fc.constantFrom(0, 0.25, 0.5), fc.constantFrom(0, 0.25, 0.5), fc.constantFrom(0, 0.25))
    .map(
      ([a, b, c]) =>
        new Map(
          [
            ['a', a],
            ['b', b],
            ['c', c],
          ].filter(([t]) => t !== 'c' || c > 0) as [string, number][],
        ),
    ),
  aging: fc.constantFrom(
    { agingIntervalMs: 300_000, agingStep: 10 },
    { agingIntervalMs: 60_000, agingStep: 1 },
    { agingIntervalMs: 300_000, agingStep: 0 },
  ),
});

const sameFields = (a: QueueEntry, b: QueueEntry): boolean =>
  a.id === b.id && a.tenant === b.tenant && a.priority === b.priority && a.submittedAtMs === b.submittedAtMs;

describe('queue order properties', () => {
  it('is antisymmetric, and 0 exactly for entries equal in every field', () => {
    fc.assert(
      fc.property(entryArb, entryArb, ctxArb, (a, b, ctx) => {
        const ab = compareQueueEntries(a, b, ctx);
        const ba = compareQueueEntries(b, a, ctx);
        expect(Math.sign(ab) + Math.sign(ba)).toBe(0);
        expect(ab === 0).toBe(sameFields(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(entryArb, entryArb, entryArb, ctxArb, (a, b, c, ctx) => {
        if (compareQueueEntries(a, b, ctx) <= 0 && compareQueueEntries(b, c, ctx) <= 0) {
          expect(compareQueueEntries(a, c, ctx)).toBeLessThanOrEqual(0);
        }
        if (compareQueueEntries(a, b, ctx) < 0 && compareQueueEntries(b, c, ctx) < 0) {
          expect(compareQueueEntries(a, c, ctx)).toBeLessThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('sorts deterministically whatever the input order, and the result is sorted', () => {
    const arb = fc
      .array(entryArb, { maxLength: 30 })
      .chain((jobs) =>
        fc.tuple(fc.constant(jobs), fc.shuffledSubarray(jobs, { minLength: jobs.length, maxLength: jobs.length })),
      );
    fc.assert(
      fc.property(arb, ctxArb, ([jobs, shuffled], ctx) => {
        const ordered = orderQueue(jobs, ctx);
        expect(orderQueue(shuffled, ctx)).toEqual(ordered);
        expect([...jobs].sort((x, y) => compareQueueEntries(x, y, ctx))).toEqual(ordered);
        for (let i = 1; i < ordered.length; i++)
          expect(compareQueueEntries(ordered[i - 1]!, ordered[i]!, ctx)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  it('puts a higher effective priority first, then the lower share at equal effective priority', () => {
    fc.assert(
      fc.property(entryArb, entryArb, ctxArb, (a, b, ctx) => {
        const ea = effectivePriority(a, ctx.nowMs, ctx.aging);
        const eb = effectivePriority(b, ctx.nowMs, ctx.aging);
        const sa = ctx.dominantShareByTenant.get(a.tenant) ?? 0;
        const sb = ctx.dominantShareByTenant.get(b.tenant) ?? 0;
        if (ea > eb || (ea === eb && sa < sb)) expect(compareQueueEntries(a, b, ctx)).toBeLessThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('aging never lowers a priority, never passes the next class, and only grows with time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100, max: 2000 }),
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 1, max: 1e7 }),
        fc.integer({ min: 0, max: 1000 }),
        (priority, waited, more, agingIntervalMs, agingStep) => {
          const job = { id: 1, tenant: 'a', priority, submittedAtMs: 0 };
          const aging = { agingIntervalMs, agingStep };
          const now = effectivePriority(job, waited, aging);
          expect(now).toBeGreaterThanOrEqual(priority);
          expect(now).toBeLessThanOrEqual(Math.max(priority, agingCap(priority)));
          expect(effectivePriority(job, waited + more, aging)).toBeGreaterThanOrEqual(now);
        },
      ),
    );
  });
});

describe('queue order of successive passes (the QueueIndex kept between them)', () => {
  const jobArb = fc
    .record({
      id: fc.integer({ min: 1, max: 40 }),
      tenant: fc.constantFrom(...TENANTS),
      priority: fc.constantFrom(100, 300, 500, 900, 1000),
      submittedAtMs: fc.constantFrom(NOW - 100 * 300_000, NOW - 300_000, NOW),
    })
    .map(
      (e) =>
        ({
          ...e,
          cpuMilli: 0,
          hostMemoryMiB: 0,
          gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', isolation: 'standard' },
        }) as JobRequest,
    );
  const queueArb = fc.uniqueArray(jobArb, { selector: (j) => j.id, maxLength: 30 });

  it('gives every pass the order a plain sort gives, whatever the previous pass held', () => {
    fc.assert(
      fc.property(queueArb, queueArb, ctxArb, (first, second, ctx) => {
        const index = new QueueIndex();
        const inOrder = (): number[] => {
          const merge = index.inOrder(ctx);
          const ids: number[] = [];
          for (let next = merge.next(); next !== null; next = merge.next()) ids.push(next.job.id);
          return ids;
        };
        const expected = (jobs: readonly JobRequest[]): number[] => orderQueue(jobs, ctx).map((j) => j.id);
        for (const job of first) index.add(job);
        expect(inOrder()).toEqual(expected(first));
        // Between passes some jobs leave (placed, cancelled) and others come (submitted, requeued).
        const kept = first.filter((j) => j.id % 2 === 0);
        for (const job of first) if (job.id % 2 !== 0) index.remove(job.id);
        const added = second.filter((j) => !kept.some((k) => k.id === j.id));
        for (const job of added) index.add(job);
        expect(inOrder()).toEqual(expected([...added, ...kept]));
      }),
      { numRuns: 500 },
    );
  });
});

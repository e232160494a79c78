import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { GpuDevice } from '../model/gpu-device.js';
import { PRIORITY_CLASSES } from '../model/priority.js';
import { type JobRequest, type SharingMode } from '../model/request.js';
import type { OneNodeCluster } from '../testing/one-node-cluster.js';
import {
  classifyCandidate,
  DEFAULT_PREEMPTION_OPTIONS,
  defaultPreemptible,
  isEligible,
  type PreemptionCandidate,
  type PreemptionOptions,
  type Preemptor,
} from './eligibility.js';
import { maxPreemptionOracleCalls, planPreemption } from './plan-preemption.js';
import { compareCandidates, compareVictimCost, victimCost } from './victim-cost.js';
import { gpu, job, migGpu, recording, server, snapshot } from './testing/fixtures.js';

const NOW_MS = 1_000_000_000;
const priorityArb = fc.oneof(fc.constantFrom(...Object.values(PRIORITY_CLASSES)), fc.integer({ min: 0, max: 1200 }));
const tenantArb = fc.constantFrom('a', 'b', 'c');

const candidateArb = (jobId: number): fc.Arbitrary<PreemptionCandidate> =>
  fc
    .record({
      priority: priorityArb,
      tenant: tenantArb,
      preemptible: fc.boolean(),
      startedAtMs: fc.integer({ min: NOW_MS - 7_200_000, max: NOW_MS }),
      preemptionCount: fc.oneof(
        { arbitrary: fc.constant(0), weight: 3 },
        { arbitrary: fc.integer({ min: 0, max: 6 }), weight: 1 },
      ),
      // Small integers make ties (which the order must break); some fractions.
      lostWorkGpuSeconds: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 1000, noNaN: true })),
      overQuotaBorrower: fc.boolean(),
    })
    .map((c) => ({ jobId, ...c }));

const candidatesArb = fc
  .integer({ min: 0, max: 16 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => candidateArb(i + 1))));
const preemptorArb: fc.Arbitrary<Preemptor> = fc.record({
  jobId: fc.constant(0),
  priority: fc.oneof(
    { arbitrary: fc.constant(PRIORITY_CLASSES.critical), weight: 2 },
    { arbitrary: priorityArb, weight: 1 },
  ),
  tenant: tenantArb,
  reclaiming: fc.boolean(),
});
const optionsArb: fc.Arbitrary<PreemptionOptions> = fc.record({
  minRunSeconds: fc.constantFrom(0, 0, 60, 3600),
  maxPreemptionsPerJob: fc.oneof(
    { arbitrary: fc.constant(5), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 6 }), weight: 1 },
  ),
});

/** The victim rules, restated independently of classifyCandidate. */
function mayBeVictim(c: PreemptionCandidate, p: Preemptor, o: PreemptionOptions): boolean {
  const rule =
    (c.priority < p.priority && c.preemptible) || (p.reclaiming && c.overQuotaBorrower && c.tenant !== p.tenant);
  const guards = NOW_MS - c.startedAtMs >= o.minRunSeconds * 1000 && c.preemptionCount < o.maxPreemptionsPerJob;
  return c.jobId !== p.jobId && rule && guards;
}

/**
 * A monotone oracle: each candidate frees a vector of units over two resources; the preemptor needs `need` beyond
 * `base`.
 */
interface UnitsWorld {
  readonly units: ReadonlyMap<number, readonly [number, number]>;
  readonly need: readonly [number, number];
}
const worldArb = (ids: readonly number[]): fc.Arbitrary<UnitsWorld> =>
  fc
    .record({
      units: fc.tuple(...ids.map(() => fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })))),
      need: fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 4 })),
    })
    .map(({ units, need }) => ({ units: new Map(ids.map((id, i) => [id, units[i]!])), need }));
const fitsIn =
  (w: UnitsWorld) =>
  (ids: readonly number[]): boolean => {
    const freed = [0, 0];
    for (const id of ids) {
      const u = w.units.get(id)!;
      freed[0]! += u[0];
      freed[1]! += u[1];
    }
    return freed[0]! >= w.need[0] && freed[1]! >= w.need[1];
  };

describe('planPreemption (property, abstract monotone oracle)', () => {
  it(
    'victims are eligible, fit, are minimal, within the call bound, and optimal when the optimum has ≤ 3 ' + 'victims',
    () => {
      fc.assert(
        fc.property(
          candidatesArb.chain((candidates) =>
            fc.tuple(fc.constant(candidates), worldArb(candidates.map((c) => c.jobId)), preemptorArb, optionsArb),
          ),
          ([candidates, world, preemptor, options]) => {
            const fits = fitsIn(world);
            const { oracle, calls } = recording(fits);
            const plan = planPreemption({ preemptor, candidates, fitsWithout: oracle, options, nowMs: NOW_MS });
            const eligible = candidates.filter((c) => mayBeVictim(c, preemptor, options));
            expect(candidates.filter((c) => isEligible(classifyCandidate(c, preemptor, options, NOW_MS)))).toEqual(
              eligible,
            );
            expect(calls.length).toBeLessThanOrEqual(maxPreemptionOracleCalls(eligible.length));
            expect(new Set(calls.map((ids) => ids.join(','))).size).toBe(calls.length);
            const ids = eligible.map((c) => c.jobId);
            const possible = eligible.length > 0 && fits(ids) && !fits([]);
            if (plan.kind === 'none') {
              expect(possible).toBe(false);
              return;
            }
            expect(possible).toBe(true);
            const { victimIds } = plan;
            expect(victimIds.length).toBeGreaterThan(0);
            expect(victimIds).toEqual([...new Set(victimIds)].sort((a, b) => a - b));
            for (const id of victimIds) expect(ids).toContain(id);
            expect(fits(victimIds)).toBe(true);
            for (const id of victimIds) expect(fits(victimIds.filter((v) => v !== id))).toBe(false);
            const chosen = eligible.filter((c) => victimIds.includes(c.jobId)).sort(compareCandidates);
            expect(plan.lostWorkGpuSeconds).toBe(victimCost(chosen).lostWorkGpuSeconds);
            // Brute force over every subset (n ≤ 12, so the exhaustive pool is every candidate).
            if (eligible.length <= 12) {
              const sorted = [...eligible].sort(compareCandidates);
              let best: ReturnType<typeof victimCost> | null = null;
              for (let mask = 1; mask < 1 << sorted.length; mask++) {
                const set = sorted.filter((_, i) => (mask >> i) & 1);
                if (!fits(set.map((c) => c.jobId))) continue;
                const cost = victimCost(set);
                if (best === null || compareVictimCost(cost, best) < 0) best = cost;
              }
              expect(best).not.toBeNull();
              if (best!.victimCount <= 3) expect(victimIds).toEqual(best!.jobIdsAsc);
              else expect(victimIds.length).toBeGreaterThanOrEqual(best!.victimCount);
            }
          },
        ),
        { seed: 11, numRuns: 400 },
      );
    },
  );

  it('never picks a victim of equal or higher priority, unless a reclaim takes a borrower of another tenant', () => {
    fc.assert(
      fc.property(candidatesArb, preemptorArb, (candidates, preemptor) => {
        const plan = planPreemption({
          preemptor,
          candidates,
          fitsWithout: (ids) => ids.length >= Math.min(2, candidates.length),
          nowMs: NOW_MS,
        });
        if (plan.kind === 'none') return;
        for (const id of plan.victimIds) {
          const c = candidates.find((x) => x.jobId === id)!;
          const byPriority = c.priority < preemptor.priority && c.preemptible;
          const byReclaim = preemptor.reclaiming && c.overQuotaBorrower && c.tenant !== preemptor.tenant;
          expect(byPriority || byReclaim).toBe(true);
          expect(c.preemptionCount).toBeLessThan(DEFAULT_PREEMPTION_OPTIONS.maxPreemptionsPerJob);
        }
      }),
      { seed: 12, numRuns: 400 },
    );
  });
});

// ---- On a real OneNodeCluster: random servers and jobs ------------------------------------------

interface Shape {
  readonly gpuCount: number;
  readonly gpuMilli: number;
  readonly gpuMemoryMiB: number | null;
  readonly mode: SharingMode;
  readonly cpuMilli: number;
}
const shapeArb: fc.Arbitrary<Shape> = fc.record({
  gpuCount: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.constant(2), weight: 1 }),
  gpuMilli: fc.oneof(fc.constantFrom(100, 250, 300, 500, 600, 800, 1000), fc.integer({ min: 1, max: 1000 })),
  gpuMemoryMiB: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 45_000 }), fc.integer({ min: 1, max: 90_000 })),
  mode: fc.constantFrom<SharingMode>('auto', 'auto', 'auto', 'exclusive', 'mps', 'timeslice', 'mig'),
  cpuMilli: fc.oneof(
    { arbitrary: fc.constant(0), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 24_000 }), weight: 1 },
  ),
});
const gpusArb: fc.Arbitrary<GpuDevice[]> = fc
  .tuple(fc.array(fc.constantFrom('A100-80GB', 'A100-40GB', 'T4'), { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([models, withMig]) => [...models.map((m, i) => gpu(i, m)), ...(withMig ? [migGpu(models.length)] : [])]);

interface World {
  readonly gpus: GpuDevice[];
  readonly running: Shape[];
  readonly priorities: number[];
  readonly preemptor: Shape;
  readonly preemptorPriority: number;
}
const worldOnServerArb: fc.Arbitrary<World> = fc.record({
  gpus: gpusArb,
  running: fc.array(shapeArb, { minLength: 1, maxLength: 10 }),
  priorities: fc.array(priorityArb, { minLength: 10, maxLength: 10 }),
  preemptor: shapeArb,
  preemptorPriority: fc.oneof(fc.constant(PRIORITY_CLASSES.critical), priorityArb),
});

const toJob = (id: number, shape: Shape, priority: number, tenant: string): JobRequest =>
  job(
    id,
    { gpuCount: shape.gpuCount, gpuMilli: shape.gpuMilli, gpuMemoryMiB: shape.gpuMemoryMiB, mode: shape.mode },
    { priority, tenant, cpuMilli: shape.cpuMilli },
  );

/** A server with the world's jobs tried in order (those that fit are held), two of the same world are identical. */
function build(world: World): { s: OneNodeCluster; held: JobRequest[] } {
  const s = server(world.gpus);
  const held: JobRequest[] = [];
  world.running.forEach((shape, i) => {
    const j = toJob(i + 1, shape, world.priorities[i]!, ['b', 'c'][i % 2]!);
    if (s.tryPlace(j).kind === 'placed') held.push(j);
  });
  return { s, held };
}

describe('planPreemption with OneNodeCluster.fitsWithout (property)', () => {
  it(
    'the plan leaves the server unchanged, its victims are of lower priority or reclaimed borrowers, are ' +
      'minimal, and the job then places',
    () => {
      fc.assert(
        fc.property(
          worldOnServerArb,
          fc.array(fc.nat({ max: 1000 }), { minLength: 10, maxLength: 10 }),
          fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
          fc.boolean(),
          (world, lost, borrowing, reclaiming) => {
            const { s, held } = build(world);
            const preemptor = toJob(99, world.preemptor, world.preemptorPriority, 'a');
            const candidates = held.map((j, i) => ({
              jobId: j.id,
              priority: j.priority,
              tenant: j.tenant,
              preemptible: defaultPreemptible(j.priority),
              startedAtMs: 0,
              preemptionCount: 0,
              lostWorkGpuSeconds: lost[i]!,
              overQuotaBorrower: borrowing[i]!,
            }));
            const before = snapshot(s);
            const plan = planPreemption({
              preemptor: { jobId: 99, priority: preemptor.priority, tenant: 'a', reclaiming },
              candidates,
              fitsWithout: (ids) => s.fitsWithout(preemptor, ids),
              nowMs: NOW_MS,
            });
            expect(snapshot(s)).toEqual(before);
            const eligible = candidates.filter(
              (c) => (c.priority < preemptor.priority && c.preemptible) || (reclaiming && c.overQuotaBorrower),
            );
            if (plan.kind === 'none') {
              if (plan.reason.code === 'no-room-with-victims') {
                for (const c of eligible) s.release(c.jobId);
                expect(s.tryPlace(preemptor).kind).toBe('waiting');
              } else if (plan.reason.code === 'fits-without-preemption') {
                expect(s.tryPlace(preemptor).kind).toBe('placed');
              } else {
                expect(eligible).toEqual([]);
              }
              return;
            }
            for (const id of plan.victimIds) {
              const c = candidates.find((x) => x.jobId === id)!;
              expect((c.priority < preemptor.priority && c.preemptible) || (reclaiming && c.overQuotaBorrower)).toBe(
                true,
              );
            }
            for (const id of plan.victimIds)
              expect(
                s.fitsWithout(
                  preemptor,
                  plan.victimIds.filter((v) => v !== id),
                ),
              ).toBe(false);
            expect(snapshot(s)).toEqual(before);
            for (const id of plan.victimIds) s.release(id);
            expect(s.tryPlace(preemptor).kind).toBe('placed');
          },
        ),
        { seed: 21, numRuns: 250 },
      );
    },
  );

  it('fitsWithout answers as releasing the victims and placing does, and leaves the server unchanged', () => {
    fc.assert(
      fc.property(worldOnServerArb, fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (world, pick) => {
        const { s, held } = build(world);
        const victims = held.filter((_, i) => pick[i]).map((j) => j.id);
        const preemptor = toJob(99, world.preemptor, world.preemptorPriority, 'a');
        const before = snapshot(s);
        const answer = s.fitsWithout(preemptor, victims);
        expect(snapshot(s)).toEqual(before);
        const twin = build(world).s;
        for (const id of victims) twin.release(id);
        expect(twin.tryPlace(preemptor).kind === 'placed').toBe(answer);
        // Later placements are those of an untouched twin.
        const untouched = build(world).s;
        const next = toJob(100, world.running[0]!, 500, 'a');
        expect(s.tryPlace(next)).toEqual(untouched.tryPlace(next));
      }),
      { seed: 22, numRuns: 300 },
    );
  });
});

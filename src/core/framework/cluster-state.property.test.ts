import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isValidLayout } from '../mig/mig-allocator.js';
import { findGpuModel } from '../model/gpu-models.js';
import { SeededRng } from '../random/rng.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { Placement } from '../model/assignment.js';
import type { JobRequest, SharingMode } from '../model/request.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';
import { accountedGpuMilli, reservedGpuMemoryMiB } from '../sharing/share-accounting.js';
import { whyUnresolvable } from '../sharing/unresolvable.js';

const SHARED_MODELS = ['A100-80GB', 'T4', 'H100-80GB', 'A100-40GB', 'V100M32'] as const;
const MIG_MODELS = ['A100-80GB', 'H100-80GB', 'A100-40GB'] as const;
const HOST = { cpuMilli: 16_000, hostMemoryMiB: 65_536 };

const memoryOf = (model: string): number => findGpuModel(model)!.gpuMemoryMiB!;

interface Shape {
  readonly gpuCount: number;
  readonly gpuMilli: number;
  readonly gpuMemoryMiB: number | null;
  readonly mode: SharingMode;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
}

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  gpuCount: fc.oneof(
    { arbitrary: fc.constant(1), weight: 4 },
    { arbitrary: fc.integer({ min: 2, max: 3 }), weight: 1 },
  ),
  gpuMilli: fc.oneof(fc.constantFrom(100, 250, 300, 500, 600, 1000), fc.integer({ min: 1, max: 1000 })),
  gpuMemoryMiB: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 45_000 }), fc.integer({ min: 1, max: 90_000 })),
  mode: fc.constantFrom<SharingMode>('auto', 'auto', 'exclusive', 'mps', 'timeslice', 'mig'),
  cpuMilli: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 8000 })),
  hostMemoryMiB: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
});

interface GpuSpec {
  readonly model: string;
  readonly mig: boolean;
  readonly schedulable: boolean;
}

const serverArb: fc.Arbitrary<GpuSpec[]> = fc
  .record({
    models: fc.uniqueArray(fc.constantFrom(...SHARED_MODELS), { minLength: 1, maxLength: 3 }),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    mig: fc.option(fc.constantFrom(...MIG_MODELS), { nil: null }),
    unschedulable: fc.array(fc.nat({ max: 7 }), { maxLength: 2 }),
  })
  .map(({ models, picks, mig, unschedulable }) => {
    const specs: GpuSpec[] = picks.map((pick, i) => ({
      model: models[pick % models.length]!,
      mig: false,
      schedulable: !unschedulable.includes(i),
    }));
    if (mig !== null)
      specs[specs.length - 1] = { model: mig, mig: true, schedulable: specs[specs.length - 1]!.schedulable };
    return specs;
  });

type Op =
  | { readonly kind: 'place'; readonly shape: Shape }
  | { readonly kind: 'pass'; readonly shapes: readonly Shape[]; readonly priorities: readonly number[] }
  | { readonly kind: 'release'; readonly pick: number }
  | { readonly kind: 'cordon'; readonly pick: number }
  | { readonly kind: 'vanish'; readonly pick: number }
  | { readonly kind: 'toggleMig'; readonly pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: shapeArb.map((shape) => ({ kind: 'place' as const, shape })), weight: 6 },
  {
    arbitrary: fc
      .record({
        shapes: fc.array(shapeArb, { maxLength: 6 }),
        priorities: fc.array(fc.constantFrom(100, 500, 900), { minLength: 6, maxLength: 6 }),
      })
      .map((r) => ({ kind: 'pass' as const, ...r })),
    weight: 2,
  },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'release' as const, pick })), weight: 4 },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'cordon' as const, pick })), weight: 1 },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'vanish' as const, pick })), weight: 1 },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'toggleMig' as const, pick })), weight: 1 },
);

function device(index: number, spec: GpuSpec): GpuDevice {
  return {
    index,
    uuid: `GPU-${index}`,
    model: spec.model,
    gpuMemoryMiB: memoryOf(spec.model),
    migEnabled: spec.mig,
    schedulable: spec.schedulable,
  };
}

function pendingJob(id: number, shape: Shape, priority = 500): JobRequest {
  return {
    id,
    tenant: 't',
    priority,
    submittedAtMs: id,
    cpuMilli: shape.cpuMilli,
    hostMemoryMiB: shape.hostMemoryMiB,
    gpu: { gpuCount: shape.gpuCount, gpuMilli: shape.gpuMilli, gpuMemoryMiB: shape.gpuMemoryMiB, mode: shape.mode },
  };
}

/** Checks one new placement of `job` against the GPUs as they were just before it. */
function checkNewPlacement(
  job: JobRequest,
  placement: Placement,
  before: ReadonlyMap<number, GpuDevice>,
  ratio: number,
): void {
  const { gpus, mode } = placement;
  expect(gpus).toHaveLength(job.gpu.gpuCount);
  expect(new Set(gpus.map((g) => g.index)).size).toBe(gpus.length);
  const models = new Set(gpus.map((g) => before.get(g.index)!.model));
  expect(models.size).toBe(1);
  if (job.gpu.mode !== 'auto') expect(mode).toBe(job.gpu.mode);
  else expect(mode).toBe(job.gpu.gpuMilli === 1000 ? 'exclusive' : 'mps');
  for (const g of gpus) {
    const d = before.get(g.index)!;
    expect(d.schedulable, `GPU ${g.index} is unschedulable`).toBe(true);
    expect(d.migEnabled).toBe(mode === 'mig');
    expect(g.gpuMilli).toBe(job.gpu.gpuMilli);
    expect(g.accountedGpuMilli).toBe(accountedGpuMilli(mode, job.gpu.gpuMilli, ratio));
    if (mode === 'mig') {
      expect(g.mig).not.toBeNull();
      if (job.gpu.gpuMemoryMiB !== null) expect(g.gpuMemoryMiB).toBeGreaterThanOrEqual(job.gpu.gpuMemoryMiB);
    } else {
      expect(g.mig).toBeNull();
      expect(g.gpuMemoryMiB).toBe(reservedGpuMemoryMiB(mode, job.gpu, d.gpuMemoryMiB));
      if (job.gpu.gpuMemoryMiB !== null) expect(job.gpu.gpuMemoryMiB).toBeLessThanOrEqual(d.gpuMemoryMiB);
    }
  }
}

/** Invariants of everything held now, computed from the placements the test saw (not from usage()). */
function checkHeld(s: OneNodeCluster, held: ReadonlyMap<number, { job: JobRequest; placement: Placement }>): void {
  const devices = new Map(s.gpus().map((g) => [g.index, g]));
  const perGpu = new Map<
    number,
    {
      milli: number;
      memory: number;
      modes: Set<string>;
      jobs: number[];
      instances: { profileId: number; start: number; size: number; inUse: boolean }[];
    }
  >();
  let cpu = 0;
  let hostMemory = 0;
  for (const [jobId, { job, placement }] of held) {
    cpu += job.cpuMilli;
    hostMemory += job.hostMemoryMiB;
    for (const g of placement.gpus) {
      const entry = perGpu.get(g.index) ?? { milli: 0, memory: 0, modes: new Set<string>(), jobs: [], instances: [] };
      entry.milli += g.accountedGpuMilli;
      entry.memory += g.gpuMemoryMiB;
      entry.modes.add(placement.mode);
      entry.jobs.push(jobId);
      if (g.mig)
        entry.instances.push({ profileId: g.mig.profileId, start: g.mig.start, size: g.mig.size, inUse: true });
      perGpu.set(g.index, entry);
    }
  }
  expect(cpu).toBeLessThanOrEqual(HOST.cpuMilli);
  expect(hostMemory).toBeLessThanOrEqual(HOST.hostMemoryMiB);
  for (const [index, entry] of perGpu) {
    const d = devices.get(index);
    expect(devices.has(index), `GPU ${index} holds jobs but is not known`).toBe(true);
    expect(entry.milli).toBeLessThanOrEqual(1000);
    expect(entry.memory).toBeLessThanOrEqual(d!.gpuMemoryMiB);
    expect(entry.modes.size).toBe(1);
    const mode = [...entry.modes][0]!;
    expect(d!.migEnabled).toBe(mode === 'mig');
    if (mode === 'exclusive') expect(entry.jobs).toHaveLength(1);
    if (mode === 'mig') expect(isValidLayout(d!.model, entry.instances)).toBe(true);
  }
  // usage() tells the same story
  for (const u of s.usage()) {
    const entry = perGpu.get(u.device.index);
    expect(u.jobIds).toEqual(entry ? [...entry.jobs].sort((a, b) => a - b) : []);
    expect(u.allocatedGpuMilli).toBe(entry?.milli ?? 0);
    expect(u.allocatedGpuMemoryMiB).toBe(entry?.memory ?? 0);
    expect(u.mode).toBe(u.device.migEnabled ? 'mig' : entry ? [...entry.modes][0] : null);
  }
}

describe('OneNodeCluster properties', () => {
  it(
    'random place / pass / release / cordon / vanish / MIG-toggle sequences never over-commit and respect ' +
      'every placement rule',
    () => {
      fc.assert(
        fc.property(
          serverArb,
          fc.constantFrom(1, 1.5, 2, 4),
          fc.integer(),
          fc.array(opArb, { minLength: 1, maxLength: 60 }),
          (specs, ratio, seed, ops) => {
            const given = specs.map((spec, i) => device(i, spec));
            const present = given.map(() => true);
            const s = new OneNodeCluster(given, {
              hostCpuMilli: HOST.cpuMilli,
              hostMemoryMiB: HOST.hostMemoryMiB,
              timesliceOvercommitRatio: ratio,
              rng: new SeededRng(seed),
            });
            const held = new Map<number, { job: JobRequest; placement: Placement }>();
            let nextId = 1;
            const apply = () => s.setGpus(given.filter((_, i) => present[i]));
            for (const op of ops) {
              const before = new Map(s.gpus().map((g) => [g.index, g]));
              if (op.kind === 'place') {
                const job = pendingJob(nextId++, op.shape);
                const outcome = s.tryPlace(job);
                if (outcome.kind === 'placed') {
                  checkNewPlacement(job, outcome.placement, before, ratio);
                  held.set(job.id, { job, placement: outcome.placement });
                } else {
                  expect(outcome.reason).toMatch(/^waiting /);
                }
              } else if (op.kind === 'pass') {
                const jobs = op.shapes.map((shape, i) => pendingJob(nextId++, shape, op.priorities[i]));
                const result = s.runPass(jobs);
                expect(result.placed.length + result.waiting.size).toBe(jobs.length);
                // each placement is checked against the state before the pass: GPU flags do not change within a pass
                for (const { jobId, placement } of result.placed) {
                  const job = jobs.find((j) => j.id === jobId)!;
                  checkNewPlacement(job, placement, before, ratio);
                  held.set(jobId, { job, placement });
                }
              } else if (op.kind === 'release') {
                const ids = [...held.keys()];
                const id = ids.length === 0 ? 999_999 : ids[op.pick % ids.length]!;
                s.release(id);
                held.delete(id);
                expect(s.isHeld(id)).toBe(false);
              } else {
                const i = op.pick % given.length;
                const g = given[i]!;
                if (op.kind === 'cordon') given[i] = { ...g, schedulable: !g.schedulable };
                else if (op.kind === 'vanish') present[i] = !present[i];
                else if (MIG_MODELS.some((m) => m === g.model)) given[i] = { ...g, migEnabled: !g.migEnabled };
                apply();
              }
              for (const id of held.keys()) expect(s.isHeld(id)).toBe(true);
              checkHeld(s, held);
            }
            // releasing everything leaves an empty server that matches the given list
            for (const id of held.keys()) s.release(id);
            expect(s.gpus()).toEqual(given.filter((_, i) => present[i]));
            for (const u of s.usage())
              expect([u.allocatedGpuMilli, u.allocatedGpuMemoryMiB, u.jobIds.length]).toEqual([0, 0, 0]);
          },
        ),
        { numRuns: 250 },
      );
    },
  );

  it('a job whyUnresolvable accepts is placed on an empty, healthy server, and one it rejects never is', () => {
    fc.assert(
      fc.property(serverArb, shapeArb, fc.integer(), (specs, shape, seed) => {
        const gpus = specs.map((spec, i) => device(i, { ...spec, schedulable: true }));
        const job = pendingJob(1, shape);
        const why = whyUnresolvable(job, gpus, HOST);
        const outcome = new OneNodeCluster(gpus, {
          hostCpuMilli: HOST.cpuMilli,
          hostMemoryMiB: HOST.hostMemoryMiB,
          timesliceOvercommitRatio: 1,
          rng: new SeededRng(seed),
        }).tryPlace(job);
        expect(outcome.kind, `${why ?? 'resolvable'} / ${outcome.kind === 'waiting' ? outcome.reason : 'placed'}`).toBe(
          why === null ? 'placed' : 'waiting',
        );
      }),
      { numRuns: 500 },
    );
  });

  it(
    'runPass places the same jobs as tryPlace in queue order, whatever the input order and the previous ' + 'passes',
    () => {
      fc.assert(
        fc.property(
          serverArb,
          fc.array(fc.tuple(shapeArb, fc.constantFrom(100, 500, 900)), { maxLength: 12 }),
          fc.integer(),
          fc.integer(),
          (specs, entries, seed, shuffleSeed) => {
            const gpus = specs.map((spec, i) => device(i, spec));
            const jobs = entries.map(([shape, priority], i) => pendingJob(i + 1, shape, priority));
            const make = () =>
              new OneNodeCluster(gpus, {
                hostCpuMilli: HOST.cpuMilli,
                hostMemoryMiB: HOST.hostMemoryMiB,
                timesliceOvercommitRatio: 1,
                rng: new SeededRng(seed),
              });
            const ordered = [...jobs].sort(
              (a, b) => b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.id - b.id,
            );
            const sequential = make();
            const expected = ordered.flatMap((job) => {
              const outcome = sequential.tryPlace(job);
              return outcome.kind === 'placed' ? [{ jobId: job.id, placement: outcome.placement }] : [];
            });
            const shuffled = [...jobs];
            const rng = new SeededRng(shuffleSeed);
            for (let i = shuffled.length - 1; i > 0; i--) {
              const j = rng.intn(i + 1);
              [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
            }
            expect(make().runPass(shuffled).placed).toEqual(expected);

            // after an earlier pass over part of the queue (released again), the order is still the queue order
            const position = new Map(ordered.map((j, i) => [j.id, i]));
            const inQueueOrder = (ids: number[]) =>
              expect(ids).toEqual([...ids].sort((a, b) => position.get(a)! - position.get(b)!));
            const s = make();
            for (const { jobId } of s.runPass(shuffled.slice(0, Math.ceil(shuffled.length / 2))).placed)
              s.release(jobId);
            const again = s.runPass([...shuffled].reverse());
            inQueueOrder(again.placed.map((p) => p.jobId));
            inQueueOrder([...again.waiting.keys()]);
            expect(again.placed.length + again.waiting.size).toBe(jobs.length);
          },
        ),
        { numRuns: 200 },
      );
    },
  );
});

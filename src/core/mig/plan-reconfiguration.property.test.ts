import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choosePlacement, isValidLayout, validStartsFor, type MigGpuInstance } from './mig-allocator.js';
import { migProfilesFor, type MigProfile } from './mig-profiles.js';
import {
  applyMigPlan,
  applyMigPlanSteps,
  migPlanForGpu,
  planMigReconfiguration,
  type MigPlanGpu,
  type MigPlanRequest,
  type MigReconfigurationPlan,
} from './plan-reconfiguration.js';

const MODELS = ['A100-40GB', 'A100-80GB', 'H100-80GB', 'H200-141GB', 'A30-24GB'] as const;

/** A GPU's starting layout, built by create (choosePlacement) / destroy operations. */
interface GpuSpec {
  readonly model: (typeof MODELS)[number];
  readonly ops: readonly { readonly create: boolean; readonly pick: number; readonly inUse: boolean }[];
  readonly schedulable: boolean;
}

/** One round: a queue, then which GIs finish (in use → idle) and which idle GIs something else destroys. */
interface RoundSpec {
  readonly queue: readonly {
    readonly model: number;
    readonly pick: number;
    readonly perModel: boolean;
    readonly ge: number;
  }[];
  readonly finish: readonly number[];
  readonly destroy: readonly number[];
}

const gpuArb: fc.Arbitrary<GpuSpec> = fc.record({
  model: fc.constantFrom(...MODELS),
  ops: fc
    .array(fc.record({ create: fc.constant(true), pick: fc.nat(), inUse: fc.boolean() }), { maxLength: 9 })
    .chain((creates) =>
      fc
        .array(fc.record({ create: fc.constant(false), pick: fc.nat(), inUse: fc.boolean() }), { maxLength: 3 })
        .map((destroys) => [...creates, ...destroys]),
    ),
  schedulable: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
});

const roundArb: fc.Arbitrary<RoundSpec> = fc.record({
  queue: fc.array(
    fc.record({
      model: fc.nat({ max: MODELS.length - 1 }),
      pick: fc.nat(),
      perModel: fc.boolean(),
      ge: fc.integer({ min: 1, max: 7 }),
    }),
    { maxLength: 10 },
  ),
  finish: fc.array(fc.nat(), { maxLength: 4 }),
  destroy: fc.array(fc.nat(), { maxLength: 2 }),
});

function plainProfiles(model: string): readonly MigProfile[] {
  return migProfilesFor(model);
}

function buildLayout(spec: GpuSpec): MigGpuInstance[] {
  const profiles = plainProfiles(spec.model);
  const layout: MigGpuInstance[] = [];
  for (const op of spec.ops) {
    if (!op.create) {
      if (layout.length > 0) layout.splice(op.pick % layout.length, 1);
      continue;
    }
    const profile = profiles[op.pick % profiles.length];
    if (profile === undefined) continue;
    const start = choosePlacement(spec.model, layout, profile);
    if (start !== null)
      layout.push({ profileId: profile.profileId, start, size: profile.memorySlices, inUse: op.inUse });
  }
  return layout;
}

const sameGi = (
  a: Pick<MigGpuInstance, 'start' | 'profileId'>,
  b: Pick<MigGpuInstance, 'start' | 'profileId'>,
): boolean => a.start === b.start && a.profileId === b.profileId;

/** The profile request `r` asks for on `model`, as the planner resolves it. */
function profileOn(r: MigPlanRequest, model: string): MigProfile | undefined {
  const p = typeof r.profile === 'function' ? r.profile(model) : r.profile;
  return p !== undefined && migProfilesFor(model).includes(p) ? p : undefined;
}

/** Checks every guarantee of the plan against its input; returns each GPU's layout after it. */
function checkPlan(
  gpus: readonly MigPlanGpu[],
  queue: readonly MigPlanRequest[],
  plan: MigReconfigurationPlan,
): Map<number, MigGpuInstance[]> {
  const usable = gpus.filter((g) => g.schedulable && isValidLayout(g.model, g.gis));
  const after = new Map<number, MigGpuInstance[]>();
  for (const gpu of gpus) {
    const part = migPlanForGpu(plan, gpu.gpuIndex);
    if (!usable.includes(gpu)) {
      expect(part.destroy).toEqual([]);
      expect(part.create).toEqual([]);
      expect(plan.assignments.filter((a) => a.gpuIndex === gpu.gpuIndex)).toEqual([]);
      after.set(gpu.gpuIndex, [...gpu.gis]);
      continue;
    }
    // Destroys: idle GIs of the input, each once (applyMigPlanSteps throws on a GI in use or absent).
    expect(new Set(part.destroy.map((d) => d.start)).size).toBe(part.destroy.length);
    for (const d of part.destroy) expect(gpu.gis.find((gi) => sameGi(gi, d))?.inUse).toBe(false);
    // Every layout met on the way is valid.
    const steps = applyMigPlanSteps(gpu.gis, part);
    for (const layout of steps) expect(isValidLayout(gpu.model, layout)).toBe(true);
    const final = applyMigPlan(gpu.gis, part);
    // Creates largest first.
    const sizes = part.create.map((c) =>
      migProfilesFor(gpu.model).find((p) => p.profileId === c.profileId && p.memorySlices === c.size),
    );
    for (let i = 1; i < sizes.length; i++) {
      const [a, b] = [sizes[i - 1], sizes[i]];
      expect(
        a !== undefined &&
          b !== undefined &&
          (a.memorySlices > b.memorySlices ||
            (a.memorySlices === b.memorySlices && a.computeSlices >= b.computeSlices)),
      ).toBe(true);
    }
    // Every destroy is needed: putting the GI back breaks the final layout.
    for (const d of part.destroy) {
      const gi = gpu.gis.find((g) => sameGi(g, d));
      expect(gi !== undefined && isValidLayout(gpu.model, [...final, gi])).toBe(false);
    }
    // Every created GI is assigned.
    expect(plan.assignments.filter((a) => a.gpuIndex === gpu.gpuIndex && !a.reused)).toHaveLength(part.create.length);
    after.set(gpu.gpuIndex, final);
  }

  // Each request is assigned or unplaced, never both; each GI is assigned at most once.
  const assigned = plan.assignments.map((a) => a.jobId);
  const unplaced = plan.unplaced.map((u) => u.jobId);
  expect(new Set(assigned).size).toBe(assigned.length);
  expect([...assigned, ...unplaced].sort((a, b) => a - b)).toEqual(queue.map((r) => r.jobId).sort((a, b) => a - b));
  expect(new Set(plan.assignments.map((a) => `${a.gpuIndex}/${a.start}`)).size).toBe(plan.assignments.length);
  expect(plan.assignments.map((a) => a.jobId)).toEqual(queue.map((r) => r.jobId).filter((id) => assigned.includes(id)));
  let ge = 0;
  for (const a of plan.assignments) {
    const request = queue.find((r) => r.jobId === a.jobId);
    const gpu = gpus.find((g) => g.gpuIndex === a.gpuIndex);
    expect(request !== undefined && gpu !== undefined).toBe(true);
    if (request === undefined || gpu === undefined) continue;
    ge += request.gpuEquivalents;
    const profile = profileOn(request, gpu.model);
    expect(profile?.profileId).toBe(a.profileId);
    // The GI exists after the plan with the requested profile; a reused one was idle and stays.
    expect((after.get(a.gpuIndex) ?? []).some((gi) => sameGi(gi, a) && gi.size === profile?.memorySlices)).toBe(true);
    if (a.reused) expect(gpu.gis.find((gi) => sameGi(gi, a))?.inUse).toBe(false);
    else expect(plan.create.some((c) => c.gpuIndex === a.gpuIndex && sameGi(c, a))).toBe(true);
  }
  expect(plan.placedGpuEquivalents).toBeCloseTo(ge, 9);

  // Nothing is left that would fit: an unplaced request fits on no usable GPU even with every idle
  // GI the plan does not use destroyed.
  for (const u of plan.unplaced) {
    expect(u.reason.length).toBeGreaterThan(0);
    const request = queue.find((r) => r.jobId === u.jobId);
    if (request === undefined) continue;
    for (const gpu of usable) {
      const profile = profileOn(request, gpu.model);
      if (profile === undefined) continue;
      const used = (after.get(gpu.gpuIndex) ?? []).filter((gi) => {
        const input = gpu.gis.find((g) => sameGi(g, gi));
        const wasIdle = input !== undefined && !input.inUse;
        return !wasIdle || plan.assignments.some((a) => a.gpuIndex === gpu.gpuIndex && sameGi(a, gi));
      });
      expect(validStartsFor(gpu.model, used, profile)).toEqual([]);
    }
  }
  return after;
}

describe('planMigReconfiguration properties', () => {
  it('rounds of plan / apply / jobs finishing / outside destroys keep every guarantee on real geometry', () => {
    fc.assert(
      fc.property(
        fc.array(gpuArb, { minLength: 1, maxLength: 3 }),
        fc.array(roundArb, { minLength: 1, maxLength: 4 }),
        (specs, rounds) => {
          let gpus: MigPlanGpu[] = specs.map((spec, i) => ({
            gpuIndex: i * 2 + 1,
            model: spec.model,
            gis: buildLayout(spec),
            schedulable: spec.schedulable,
          }));
          let nextJob = 1;
          for (const round of rounds) {
            const queue: MigPlanRequest[] = round.queue.map((q) => {
              const model = MODELS[q.model] ?? 'A100-40GB';
              const profiles = plainProfiles(model);
              const fixed = profiles[q.pick % profiles.length];
              if (fixed === undefined) throw new Error('no profiles');
              const profile = q.perModel
                ? (m: string): MigProfile | undefined => {
                    const own = plainProfiles(m);
                    return q.pick % 3 === 0 && m === 'A30-24GB' ? undefined : own[q.pick % own.length];
                  }
                : fixed;
              return { jobId: nextJob++, profile, gpuEquivalents: q.ge / 7 };
            });
            const plan = planMigReconfiguration({ gpus, queue });
            const after = checkPlan(gpus, queue, plan);
            // Apply: assigned GIs go in use; then some finish (idle) and something else destroys idle ones.
            gpus = gpus.map((gpu) => {
              let gis = (after.get(gpu.gpuIndex) ?? []).map((gi) => ({
                ...gi,
                inUse: gi.inUse || plan.assignments.some((a) => a.gpuIndex === gpu.gpuIndex && sameGi(a, gi)),
              }));
              for (const f of round.finish) {
                const busy = gis.filter((gi) => gi.inUse);
                const done = busy[f % Math.max(1, busy.length)];
                if (done !== undefined) gis = gis.map((gi) => (gi === done ? { ...gi, inUse: false } : gi));
              }
              for (const d of round.destroy) {
                const idle = gis.filter((gi) => !gi.inUse);
                const gone = idle[d % Math.max(1, idle.length)];
                if (gone !== undefined && d % 3 === 0) gis = gis.filter((gi) => gi !== gone);
              }
              return { ...gpu, gis };
            });
          }
        },
      ),
      { numRuns: 250 },
    );
  });

  it('a single request destroys the fewest idle GIs any GPU needs (brute force over subsets)', () => {
    fc.assert(
      fc.property(fc.array(gpuArb, { minLength: 1, maxLength: 2 }), fc.nat(), (specs, pick) => {
        const gpus: MigPlanGpu[] = specs.map((spec, i) => ({
          gpuIndex: i,
          model: spec.model,
          gis: buildLayout(spec),
          schedulable: true,
        }));
        const model = gpus[pick % gpus.length]?.model ?? 'A100-40GB';
        const profiles = plainProfiles(model);
        const profile = profiles[pick % profiles.length];
        if (profile === undefined) throw new Error('no profiles');
        const queue: MigPlanRequest[] = [{ jobId: 1, profile, gpuEquivalents: profile.computeSlices / 7 }];
        const plan = planMigReconfiguration({ gpus, queue });
        checkPlan(gpus, queue, plan);
        // Brute force: the fewest idle GIs to destroy on any GPU of the model so the profile fits
        // (0 when an idle GI of the profile can be reused).
        let fewest = Infinity;
        let reusable = false;
        for (const gpu of gpus) {
          if (gpu.model !== model || !isValidLayout(model, gpu.gis)) continue;
          if (
            gpu.gis.some((gi) => !gi.inUse && gi.profileId === profile.profileId && gi.size === profile.memorySlices)
          ) {
            fewest = 0;
            reusable = true;
            continue;
          }
          const idle = gpu.gis.filter((gi) => !gi.inUse);
          for (let mask = 0; mask < 1 << idle.length; mask++) {
            const kept = gpu.gis.filter((gi) => gi.inUse || (mask & (1 << idle.indexOf(gi))) === 0);
            const destroyed = gpu.gis.length - kept.length;
            if (destroyed < fewest && validStartsFor(model, kept, profile).length > 0) fewest = destroyed;
          }
        }
        if (fewest === Infinity) {
          expect(plan.assignments).toEqual([]);
          expect(plan.unplaced).toHaveLength(1);
        } else {
          expect(plan.assignments).toHaveLength(1);
          expect(plan.destroy).toHaveLength(fewest);
          expect(plan.assignments[0]?.reused).toBe(reusable);
          expect(plan.create).toHaveLength(reusable ? 0 : 1);
        }
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { explainMigFit } from './explain-fit.js';
import { isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import { findMigProfile, type MigProfile } from './mig-profiles.js';
import {
  applyMigPlan,
  applyMigPlanSteps,
  migPlanForGpu,
  planMigReconfiguration,
  type MigPlanGpu,
  type MigPlanRequest,
  type MigReconfigurationPlan,
} from './plan-reconfiguration.js';

const H = 'H100-80GB';

function profile(model: string, nameOrId: string | number): MigProfile {
  const p = findMigProfile(model, nameOrId);
  if (p === undefined) throw new Error(`no profile ${nameOrId} on ${model}`);
  return p;
}

function gi(model: string, nameOrId: string | number, start: number, inUse = false): MigGpuInstance {
  const p = profile(model, nameOrId);
  return { profileId: p.profileId, start, size: p.memorySlices, inUse };
}

function gpu(gpuIndex: number, model: string, gis: readonly MigGpuInstance[], schedulable = true): MigPlanGpu {
  return { gpuIndex, model, gis, schedulable };
}

/** Requests for the named profiles of `model`, job IDs 1, 2, …, each sized computeSlices / 7 GPU-equivalents. */
function queueOf(model: string, ...names: string[]): MigPlanRequest[] {
  return names.map((name, i) => {
    const p = profile(model, name);
    return { jobId: i + 1, profile: p, gpuEquivalents: p.computeSlices / 7 };
  });
}

/** Applies the plan to every GPU, checking each step; returns the layouts after it by GPU index. */
function applyAll(gpus: readonly MigPlanGpu[], plan: MigReconfigurationPlan): Map<number, MigGpuInstance[]> {
  const after = new Map<number, MigGpuInstance[]>();
  for (const g of gpus) {
    const part = migPlanForGpu(plan, g.gpuIndex);
    for (const step of applyMigPlanSteps(g.gis, part)) expect(isValidLayout(g.model, step)).toBe(true);
    after.set(g.gpuIndex, applyMigPlan(g.gis, part));
  }
  return after;
}

const oneGs = (...starts: number[]): MigGpuInstance[] => starts.map((s) => gi(H, '1g.10gb', s));
const sevenIdle = oneGs(0, 1, 2, 3, 4, 5, 6);

describe("planMigReconfiguration: the issue's cases (H100-80GB, 1g.10gb at 0, 1 and 5, one 3g.40gb request)", () => {
  it('all idle: destroys only the 1g at 5 (start 4 needs 4-7) and creates the 3g at 4', () => {
    const gpus = [gpu(0, H, oneGs(0, 1, 5))];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb') });
    expect(plan.destroy).toEqual([{ gpuIndex: 0, start: 5, profileId: 19 }]);
    expect(plan.create).toEqual([{ gpuIndex: 0, profileId: 9, start: 4, size: 4 }]);
    expect(plan.assignments).toEqual([{ jobId: 1, gpuIndex: 0, start: 4, profileId: 9, reused: false }]);
    expect(plan.unplaced).toEqual([]);
    expect(plan.placedGpuEquivalents).toBeCloseTo(3 / 7, 12);
    expect(plan.explanation).toEqual([
      'places 1 of 1 request (0.429 of 0.429 GPU-equivalents), destroying 1 idle GI and creating 1; 0 reuse an idle GI',
      'GPU 0 (H100-80GB): destroy 1g.10gb at 5:1 (idle); create 3g.40gb at 4:4 for job 1',
    ]);
    const after = applyAll(gpus, plan).get(0) ?? [];
    expect(after).toEqual([gi(H, '1g.10gb', 0), gi(H, '1g.10gb', 1), { ...gi(H, '3g.40gb', 4) }]);
    expect(isValidLayout(H, after)).toBe(true);
  });

  it('the 1g at 5 in use, 0 and 1 idle: destroys 0 and 1 and creates the 3g at 0', () => {
    const gpus = [gpu(0, H, [gi(H, '1g.10gb', 0), gi(H, '1g.10gb', 1), gi(H, '1g.10gb', 5, true)])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb') });
    expect(plan.destroy).toEqual([
      { gpuIndex: 0, start: 0, profileId: 19 },
      { gpuIndex: 0, start: 1, profileId: 19 },
    ]);
    expect(plan.create).toEqual([{ gpuIndex: 0, profileId: 9, start: 0, size: 4 }]);
    expect(plan.assignments).toEqual([{ jobId: 1, gpuIndex: 0, start: 0, profileId: 9, reused: false }]);
    expect(isValidLayout(H, applyAll(gpus, plan).get(0) ?? [])).toBe(true);
  });

  it('all in use: nothing changes and the request is unplaced with the blocking GIs named', () => {
    const gpus = [gpu(0, H, [gi(H, '1g.10gb', 0, true), gi(H, '1g.10gb', 1, true), gi(H, '1g.10gb', 5, true)])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb') });
    expect(plan.destroy).toEqual([]);
    expect(plan.create).toEqual([]);
    expect(plan.assignments).toEqual([]);
    expect(plan.unplaced).toEqual([
      {
        jobId: 1,
        reason:
          'does not fit even with every idle GI destroyed — GPU 0: 3g.40gb (profile ID 9, placements ' +
          '{0,4}:4) does not fit on this H100-80GB: ' +
          ('start 0 needs slices 0-3, taken by 1g.10gb at 0:1 (in use) and 1g.10gb at 1:1 (in use); start ' +
            '4 needs slices 4-7, taken by 1g.10gb at 5:1 (in use)'),
      },
    ]);
    expect(plan.explanation.at(-1)).toBe(`job 1 not placed: ${plan.unplaced[0]?.reason ?? ''}`);
  });
});

describe('planMigReconfiguration: placement into free slices', () => {
  it('three 1g.10gb on an empty H100 land at 6, 5, 4, so a 4g.40gb can still be created at 0', () => {
    const gpus = [gpu(0, H, [])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '1g.10gb', '1g.10gb', '1g.10gb') });
    expect(plan.assignments.map((a) => a.start)).toEqual([6, 5, 4]);
    expect(plan.create.map((c) => c.start)).toEqual([4, 5, 6]);
    expect(plan.destroy).toEqual([]);
    const after = applyAll(gpus, plan).get(0) ?? [];
    expect(explainMigFit(H, after, profile(H, '4g.40gb'))).toEqual({ fits: true, start: 0 });
  });

  it('orders creates largest first: 1g, 2g, 3g requests give creates 3g at 0, 2g at 4, 1g at 6', () => {
    const plan = planMigReconfiguration({ gpus: [gpu(0, H, [])], queue: queueOf(H, '1g.10gb', '2g.20gb', '3g.40gb') });
    expect(plan.create).toEqual([
      { gpuIndex: 0, profileId: 9, start: 0, size: 4 },
      { gpuIndex: 0, profileId: 14, start: 4, size: 2 },
      { gpuIndex: 0, profileId: 19, start: 6, size: 1 },
    ]);
    expect(plan.assignments.map((a) => [a.jobId, a.start])).toEqual([
      [1, 6],
      [2, 4],
      [3, 0],
    ]);
  });

  it('fits the MIG User Guide batch 1g, 1g, 2g, 3g on an A100-40GB that one-at-a-time placement cannot', () => {
    const A40 = 'A100-40GB';
    const gpus = [gpu(0, A40, [])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(A40, '1g.5gb', '1g.5gb', '2g.10gb', '3g.20gb') });
    expect(plan.unplaced).toEqual([]);
    expect(plan.create).toEqual([
      { gpuIndex: 0, profileId: 9, start: 4, size: 4 },
      { gpuIndex: 0, profileId: 14, start: 2, size: 2 },
      { gpuIndex: 0, profileId: 19, start: 0, size: 1 },
      { gpuIndex: 0, profileId: 19, start: 1, size: 1 },
    ]);
    expect(isValidLayout(A40, applyAll(gpus, plan).get(0) ?? [])).toBe(true);
  });
});

describe('planMigReconfiguration: persistent idle GIs', () => {
  it('reuses an idle GI of the requested profile and changes nothing', () => {
    const gpus = [gpu(0, H, [gi(H, '3g.40gb', 0), gi(H, '1g.10gb', 4, true)])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb') });
    expect(plan.destroy).toEqual([]);
    expect(plan.create).toEqual([]);
    expect(plan.assignments).toEqual([{ jobId: 1, gpuIndex: 0, start: 0, profileId: 9, reused: true }]);
    expect(plan.explanation[1]).toBe('GPU 0 (H100-80GB): job 1 reuses 3g.40gb at 0:4 (idle)');
  });

  it(
    'maximises GPU-equivalents: [3g, 3g, 1g] on seven idle 1g destroys all seven for both 3g (6/7 GE) ' +
      'rather than keep a 1g (4/7)',
    () => {
      const gpus = [gpu(0, H, sevenIdle)];
      const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb', '3g.40gb', '1g.10gb') });
      // Two 3g take all 8 memory slices, so no 1g fits beside them: 4 + 4 + 1 > 8.
      expect(plan.destroy.map((d) => d.start)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(plan.create).toEqual([
        { gpuIndex: 0, profileId: 9, start: 0, size: 4 },
        { gpuIndex: 0, profileId: 9, start: 4, size: 4 },
      ]);
      expect(plan.assignments).toEqual([
        { jobId: 1, gpuIndex: 0, start: 4, profileId: 9, reused: false },
        { jobId: 2, gpuIndex: 0, start: 0, profileId: 9, reused: false },
      ]);
      expect(plan.unplaced.map((u) => u.jobId)).toEqual([3]);
      expect(plan.unplaced[0]?.reason).toContain('start 4 needs slice 4, taken by 3g.40gb at 4:4 (in use)');
      expect(plan.placedGpuEquivalents).toBeCloseTo(6 / 7, 12);
      expect(isValidLayout(H, applyAll(gpus, plan).get(0) ?? [])).toBe(true);
    },
  );

  it(
    'destroys the fewest: [3g, 1g, 1g] on seven idle 1g destroys 4, 5, 6 (not 0-3), creates the 3g at 4 ' +
      'and reuses the 1g at 0 and 1',
    () => {
      const gpus = [gpu(0, H, sevenIdle)];
      const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb', '1g.10gb', '1g.10gb') });
      expect(plan.destroy.map((d) => d.start)).toEqual([4, 5, 6]);
      expect(plan.create).toEqual([{ gpuIndex: 0, profileId: 9, start: 4, size: 4 }]);
      expect(plan.assignments).toEqual([
        { jobId: 1, gpuIndex: 0, start: 4, profileId: 9, reused: false },
        { jobId: 2, gpuIndex: 0, start: 0, profileId: 19, reused: true },
        { jobId: 3, gpuIndex: 0, start: 1, profileId: 19, reused: true },
      ]);
      expect(plan.placedGpuEquivalents).toBeCloseTo(5 / 7, 12);
      expect(applyAll(gpus, plan).get(0)).toEqual([...oneGs(0, 1, 2, 3), gi(H, '3g.40gb', 4)]);
    },
  );

  it(
    'uses idle GIs before free slices across GPUs: the 1g reuse idle GIs on GPU 0, the 3g goes to the ' +
      'empty GPU 1, nothing is destroyed',
    () => {
      const gpus = [gpu(0, H, sevenIdle), gpu(1, H, [])];
      const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb', '1g.10gb', '1g.10gb') });
      expect(plan.destroy).toEqual([]);
      expect(plan.create).toEqual([{ gpuIndex: 1, profileId: 9, start: 4, size: 4 }]);
      expect(plan.assignments).toEqual([
        { jobId: 1, gpuIndex: 1, start: 4, profileId: 9, reused: false },
        { jobId: 2, gpuIndex: 0, start: 0, profileId: 19, reused: true },
        { jobId: 3, gpuIndex: 0, start: 1, profileId: 19, reused: true },
      ]);
    },
  );

  it('prefers the GPU that needs fewer destroys; ties go to the lower index', () => {
    const gpus = [gpu(0, H, oneGs(0, 1, 5)), gpu(1, H, oneGs(5)), gpu(2, H, oneGs(5))];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '3g.40gb') });
    // GPU 1 and 2 fit a 3g at 0 without destroying anything; GPU 1 wins the tie.
    expect(plan.destroy).toEqual([]);
    expect(plan.assignments).toEqual([{ jobId: 1, gpuIndex: 1, start: 0, profileId: 9, reused: false }]);
  });
});

describe('planMigReconfiguration: GPUs it leaves alone, per-model profiles, errors', () => {
  it('does not touch an unschedulable GPU, one with an invalid layout, or one without MIG', () => {
    const invalid = [gi(H, '3g.40gb', 0), gi(H, '1g.10gb', 1)];
    const gpus = [gpu(0, H, sevenIdle, false), gpu(1, H, invalid), gpu(2, 'T4', [])];
    const plan = planMigReconfiguration({ gpus, queue: queueOf(H, '1g.10gb') });
    expect(plan.destroy).toEqual([]);
    expect(plan.create).toEqual([]);
    expect(plan.assignments).toEqual([]);
    expect(plan.unplaced).toEqual([
      { jobId: 1, reason: 'no schedulable MIG GPU with a valid layout offers a profile for it' },
    ]);
    expect(plan.explanation.slice(1, 4)).toEqual([
      'GPU 0: not schedulable, left as it is',
      'GPU 1: its GI layout is not valid for H100-80GB, left as it is',
      'GPU 2: T4 has no MIG profiles, left as it is',
    ]);
  });

  it('a MigProfile serves only its own model; a per-model choice serves each model with its own profile', () => {
    const A40 = 'A100-40GB';
    const gpus = [gpu(0, A40, [gi(A40, '3g.20gb', 0, true), gi(A40, '3g.20gb', 4, true)]), gpu(1, 'H100', [])];
    const threeSlices = (model: string): MigProfile | undefined =>
      findMigProfile(model, model.startsWith('A100') ? '3g.20gb' : '3g.40gb');
    const plan = planMigReconfiguration({
      gpus,
      queue: [
        { jobId: 7, profile: profile(A40, '1g.5gb'), gpuEquivalents: 1 / 7 },
        { jobId: 8, profile: threeSlices, gpuEquivalents: 3 / 7 },
        { jobId: 9, profile: profile('A30-24GB', '1g.6gb'), gpuEquivalents: 1 / 4 },
      ],
    });
    expect(plan.assignments).toEqual([{ jobId: 8, gpuIndex: 1, start: 4, profileId: 9, reused: false }]);
    expect(plan.unplaced.map((u) => u.jobId)).toEqual([7, 9]);
    expect(plan.unplaced[0]?.reason).toContain('GPU 0: 1g.5gb (profile ID 19');
    expect(plan.unplaced[1]?.reason).toBe('no schedulable MIG GPU with a valid layout offers a profile for it');
  });

  it('is deterministic and leaves its input alone', () => {
    const gis = Object.freeze(sevenIdle.map((g) => Object.freeze({ ...g })));
    const input = Object.freeze({
      gpus: Object.freeze([gpu(3, H, gis), gpu(1, H, [])]),
      queue: Object.freeze(queueOf(H, '3g.40gb', '2g.20gb', '1g.10gb', '7g.80gb')),
    });
    const first = planMigReconfiguration(input);
    expect(planMigReconfiguration(input)).toEqual(first);
    expect(input.gpus[0]?.gis).toEqual(sevenIdle);
  });

  it(
    'throws RangeError on duplicate GPU indices or job IDs, a non-positive size, or a per-model choice of ' +
      'a foreign profile',
    () => {
      const g = gpu(0, H, []);
      const [r] = queueOf(H, '1g.10gb');
      if (r === undefined) throw new Error('no request');
      expect(() => planMigReconfiguration({ gpus: [g, g], queue: [] })).toThrow(RangeError);
      expect(() => planMigReconfiguration({ gpus: [g], queue: [r, r] })).toThrow(RangeError);
      expect(() => planMigReconfiguration({ gpus: [g], queue: [{ ...r, gpuEquivalents: 0 }] })).toThrow(RangeError);
      expect(() => planMigReconfiguration({ gpus: [g], queue: [{ ...r, gpuEquivalents: Number.NaN }] })).toThrow(
        RangeError,
      );
      expect(() =>
        planMigReconfiguration({ gpus: [g], queue: [{ ...r, profile: () => profile('A30-24GB', '1g.6gb') }] }),
      ).toThrow(RangeError);
    },
  );

  it('plans an empty queue as no change', () => {
    const plan = planMigReconfiguration({ gpus: [gpu(0, H, sevenIdle)], queue: [] });
    expect(plan).toMatchObject({ destroy: [], create: [], assignments: [], unplaced: [], placedGpuEquivalents: 0 });
  });
});

describe('applyMigPlan', () => {
  it('destroys, then appends created GIs idle; the steps show every intermediate layout', () => {
    const gis = [gi(H, '1g.10gb', 0), gi(H, '1g.10gb', 5, true)];
    const part = { destroy: [{ start: 0, profileId: 19 }], create: [{ profileId: 9, start: 0, size: 4 }] };
    expect(applyMigPlanSteps(gis, part)).toEqual([
      [gi(H, '1g.10gb', 5, true)],
      [gi(H, '1g.10gb', 5, true), gi(H, '3g.40gb', 0)],
    ]);
    expect(applyMigPlan(gis, part)).toEqual([gi(H, '1g.10gb', 5, true), gi(H, '3g.40gb', 0)]);
    expect(applyMigPlan(gis, { destroy: [], create: [] })).toEqual(gis);
  });

  it('refuses to destroy a GI in use or one that is not there', () => {
    const gis = [gi(H, '1g.10gb', 5, true)];
    expect(() => applyMigPlan(gis, { destroy: [{ start: 5, profileId: 19 }], create: [] })).toThrow(/in use/);
    expect(() => applyMigPlan(gis, { destroy: [{ start: 4, profileId: 19 }], create: [] })).toThrow(RangeError);
  });

  it("migPlanForGpu picks one GPU's part in plan order", () => {
    const plan = planMigReconfiguration({
      gpus: [gpu(0, H, oneGs(0, 1, 5)), gpu(1, H, [gi(H, '7g.80gb', 0, true)])],
      queue: queueOf(H, '3g.40gb'),
    });
    expect(migPlanForGpu(plan, 0)).toEqual({
      destroy: [{ start: 5, profileId: 19 }],
      create: [{ profileId: 9, start: 4, size: 4 }],
    });
    expect(migPlanForGpu(plan, 1)).toEqual({ destroy: [], create: [] });
  });
});

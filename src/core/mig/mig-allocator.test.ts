import { describe, expect, it } from 'vitest';
import {
  choosePlacement,
  freeCapacity,
  isValidLayout,
  smallestProfileFor,
  validStartsFor,
  type MigGpuInstance,
} from './mig-allocator.js';
import { findMigProfile, type MigProfile } from './mig-profiles.js';

/** The profile, failing the test when the table lacks it. */
function profile(model: string, nameOrId: string | number): MigProfile {
  const p = findMigProfile(model, nameOrId);
  if (p === undefined) throw new Error(`no profile ${nameOrId} on ${model}`);
  return p;
}

function gi(model: string, nameOrId: string | number, start: number, inUse = true): MigGpuInstance {
  const p = profile(model, nameOrId);
  return { profileId: p.profileId, start, size: p.memorySlices, inUse };
}

/** Creates GIs in order the way a caller would: choosePlacement, then append. Returns the starts. */
function createInOrder(model: string, ids: readonly number[], layout: MigGpuInstance[] = []): (number | null)[] {
  return ids.map((id) => {
    const p = profile(model, id);
    const start = choosePlacement(model, layout, p);
    if (start !== null) layout.push({ profileId: p.profileId, start, size: p.memorySlices, inUse: true });
    return start;
  });
}

const A40 = 'A100-40GB';

describe('isValidLayout', () => {
  it('accepts the empty layout and layouts recorded in the MIG User Guide', () => {
    expect(isValidLayout(A40, [])).toBe(true);
    expect(isValidLayout(A40, [gi(A40, 19, 0), gi(A40, 19, 1), gi(A40, 14, 2), gi(A40, 9, 4)])).toBe(true);
    expect(isValidLayout(A40, [0, 1, 2, 3, 6].map((s) => gi(A40, 19, s)).concat(gi(A40, 14, 4)))).toBe(true);
    expect(isValidLayout(A40, [gi(A40, 9, 0), gi(A40, 9, 4)])).toBe(true);
    expect(isValidLayout(A40, [gi(A40, 5, 0), gi(A40, 9, 4)])).toBe(true);
    expect(isValidLayout('A30-24GB', [gi('A30-24GB', 5, 0), gi('A30-24GB', 14, 2), gi('A30-24GB', 14, 3)])).toBe(true);
  });

  it('rejects overlapping memory slices', () => {
    expect(isValidLayout(A40, [gi(A40, 9, 0), gi(A40, 14, 2)])).toBe(false);
    expect(isValidLayout(A40, [gi(A40, 19, 6), gi(A40, 15, 6)])).toBe(false);
    expect(isValidLayout(A40, [gi(A40, 0, 0), gi(A40, 19, 3)])).toBe(false);
  });

  it('rejects starts that are not valid placements of the profile', () => {
    expect(isValidLayout(A40, [gi(A40, 9, 2)])).toBe(false);
    expect(isValidLayout(A40, [gi(A40, 14, 6)])).toBe(false);
    expect(isValidLayout(A40, [gi(A40, 19, 7)])).toBe(false);
    expect(isValidLayout(A40, [gi(A40, 5, 4)])).toBe(false);
  });

  it('allows at most one +me GI per GPU and rejects counts above a profile maximum', () => {
    expect(isValidLayout(A40, [gi(A40, 20, 0), gi(A40, 20, 1)])).toBe(false);
    expect(isValidLayout('A30-24GB', [gi('A30-24GB', 21, 0), gi('A30-24GB', 6, 2)])).toBe(false);
    expect(isValidLayout('A30-24GB', [gi('A30-24GB', 21, 0), gi('A30-24GB', 5, 2)])).toBe(true);
    // 4g.20gb (max 1) twice would also overlap; a count beyond the maximum is invalid on its own too.
    expect(isValidLayout(A40, [gi(A40, 5, 0), gi(A40, 5, 0)])).toBe(false);
  });

  it('rejects unknown profiles, sizes that do not match the profile, and models without MIG', () => {
    expect(isValidLayout(A40, [{ profileId: 42, start: 0, size: 1, inUse: false }])).toBe(false);
    expect(isValidLayout(A40, [{ profileId: 19, start: 0, size: 2, inUse: false }])).toBe(false);
    expect(isValidLayout('T4', [])).toBe(false);
    expect(isValidLayout('nope', [])).toBe(false);
  });
});

describe('smallestProfileFor', () => {
  it('needs ceil(milli × 7 / 1000) compute slices: 30 GiB at 500 milli on A100-80GB is a 4g.40gb', () => {
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 500, gpuMemoryMiB: 30 * 1024 })?.name).toBe('4g.40gb');
  });

  it('prefers fewer memory slices, then fewer compute slices: 15 GiB at 100 milli is a 1g.20gb', () => {
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 100, gpuMemoryMiB: 15 * 1024 })?.name).toBe('1g.20gb');
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 200, gpuMemoryMiB: 15 * 1024 })?.name).toBe('2g.20gb');
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 100, gpuMemoryMiB: 0 })?.name).toBe('1g.10gb');
  });

  it('rounds compute up at the slice boundary and never picks a +me variant', () => {
    expect(smallestProfileFor(A40, { gpuMilli: 142, gpuMemoryMiB: 0 })?.name).toBe('1g.5gb');
    expect(smallestProfileFor(A40, { gpuMilli: 143, gpuMemoryMiB: 0 })?.name).toBe('2g.10gb');
    expect(smallestProfileFor(A40, { gpuMilli: 1000, gpuMemoryMiB: 0 })?.name).toBe('7g.40gb');
    expect(smallestProfileFor('A30-24GB', { gpuMilli: 250, gpuMemoryMiB: 6000 })?.name).toBe('2g.12gb');
    expect(smallestProfileFor('H200-141GB', { gpuMilli: 300, gpuMemoryMiB: 60 * 1024 })?.name).toBe('3g.71gb');
  });

  it('returns undefined when nothing is big enough or the model has no MIG, and throws on bad input', () => {
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 100, gpuMemoryMiB: 80 * 1024 })).toBeUndefined();
    expect(smallestProfileFor('A100-80GB', { gpuMilli: 1001, gpuMemoryMiB: 0 })).toBeUndefined();
    expect(smallestProfileFor('T4', { gpuMilli: 100, gpuMemoryMiB: 0 })).toBeUndefined();
    expect(() => smallestProfileFor(A40, { gpuMilli: -1, gpuMemoryMiB: 0 })).toThrow(RangeError);
    expect(() => smallestProfileFor(A40, { gpuMilli: 1, gpuMemoryMiB: 0.5 })).toThrow(RangeError);
  });
});

describe('choosePlacement', () => {
  it('puts small GIs high on an empty A100 so that the 0:4 block stays free', () => {
    expect(choosePlacement(A40, [], profile(A40, '1g.5gb'))).toBe(6);
    expect(choosePlacement(A40, [], profile(A40, '1g.10gb'))).toBe(6);
    expect(choosePlacement(A40, [], profile(A40, '2g.10gb'))).toBe(4);
    expect(choosePlacement(A40, [], profile(A40, '3g.20gb'))).toBe(4);
    expect(choosePlacement(A40, [], profile(A40, '4g.20gb'))).toBe(0);
    expect(choosePlacement(A40, [], profile(A40, '7g.40gb'))).toBe(0);
  });

  it('still fits a 3g (at 0) after a 1g', () => {
    expect(choosePlacement(A40, [gi(A40, 19, 6)], profile(A40, '3g.20gb'))).toBe(0);
  });

  it('fills the GPU with seven 1g GIs from the top down, then returns null', () => {
    expect(createInOrder(A40, [19, 19, 19, 19, 19, 19, 19, 19])).toEqual([6, 5, 4, 3, 2, 1, 0, null]);
  });

  it('reproduces the Insufficient Resources of `-cgi 19,19,14,9` and succeeds for `-cgi 9,19,14,19`', () => {
    // The only layout with 1g, 1g, 2g and 3g puts the 3g at 4:4; placing online, the small GIs went
    // high to keep a 4g possible, as the driver's own choice did (MIG User Guide transcript).
    expect(createInOrder(A40, [19, 19, 14, 9])).toEqual([6, 5, 2, null]);
    const layout: MigGpuInstance[] = [];
    expect(createInOrder(A40, [9, 19, 14, 19], layout)).toEqual([4, 3, 0, 2]);
    expect(isValidLayout(A40, layout)).toBe(true);
  });

  it('finds no 3g, 4g or 7g with 1g GIs at 0, 1 and 5, though 4 compute slices are free', () => {
    const layout = [gi(A40, 19, 0), gi(A40, 19, 1), gi(A40, 19, 5)];
    for (const name of ['3g.20gb', '4g.20gb', '7g.40gb'])
      expect(choosePlacement(A40, layout, profile(A40, name))).toBeNull();
    expect(choosePlacement(A40, layout, profile(A40, '2g.10gb'))).toBe(2);
  });

  it('respects count limits and the single +me', () => {
    expect(choosePlacement(A40, [gi(A40, 9, 0), gi(A40, 9, 4)], profile(A40, '1g.5gb'))).toBeNull();
    expect(choosePlacement(A40, [gi(A40, 20, 6)], profile(A40, '1g.5gb+me'))).toBeNull();
    expect(choosePlacement('A30-24GB', [gi('A30-24GB', 21, 3)], profile('A30-24GB', '2g.12gb+me'))).toBeNull();
    expect(choosePlacement('A30-24GB', [gi('A30-24GB', 21, 3)], profile('A30-24GB', '2g.12gb'))).toBe(0);
  });

  it('works on A30 and through catalog aliases', () => {
    expect(choosePlacement('A30-24GB', [], profile('A30-24GB', '1g.6gb'))).toBe(3);
    expect(choosePlacement('A30', [], profile('A30-24GB', '2g.12gb'))).toBe(2);
    expect(choosePlacement('A30-24GB', [gi('A30-24GB', 14, 3)], profile('A30-24GB', '4g.24gb'))).toBeNull();
    expect(choosePlacement('H100', [], profile('H100-80GB', '1g.10gb'))).toBe(6);
  });

  it('throws RangeError for a profile of another model', () => {
    expect(() => choosePlacement(A40, [], profile('A100-80GB', 9))).toThrow(RangeError);
    expect(() => validStartsFor(A40, [], profile('A30-24GB', 0))).toThrow(RangeError);
  });
});

describe('freeCapacity', () => {
  it('lists every profile with its maximum on an empty A100', () => {
    expect(freeCapacity(A40, []).map((c) => [c.profile.name, c.count])).toEqual([
      ['1g.5gb', 7],
      ['1g.5gb+me', 1],
      ['1g.10gb', 4],
      ['2g.10gb', 3],
      ['3g.20gb', 2],
      ['4g.20gb', 1],
      ['7g.40gb', 1],
    ]);
  });

  it('shows what is left around 1g GIs at 0, 1 and 5, and nothing on a full GPU', () => {
    const layout = [gi(A40, 19, 0), gi(A40, 19, 1), gi(A40, 19, 5)];
    expect(freeCapacity(A40, layout).map((c) => [c.profile.name, c.count])).toEqual([
      ['1g.5gb', 4],
      ['1g.5gb+me', 1],
      ['1g.10gb', 2],
      ['2g.10gb', 1],
    ]);
    expect(freeCapacity(A40, [gi(A40, 0, 0, false)])).toEqual([]);
    expect(freeCapacity('T4', [])).toEqual([]);
  });
});

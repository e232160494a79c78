import { describe, expect, it } from 'vitest';
import { choosePlacement, type MigGpuInstance } from './mig-allocator.js';
import { describeMigGi, explainMigFit } from './explain-fit.js';
import { findMigProfile, type MigProfile } from './mig-profiles.js';

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

describe('explainMigFit', () => {
  it(
    'H100-80GB with 1g.10gb GIs at 0, 1 and 5: 3g.40gb does not fit, and the reason names every blocking ' +
      'GI per start',
    () => {
      const layout = [gi(H, '1g.10gb', 0), gi(H, '1g.10gb', 1), gi(H, '1g.10gb', 5)];
      const fit = explainMigFit(H, layout, profile(H, '3g.40gb'));
      expect(fit).toEqual({
        fits: false,
        reason:
          '3g.40gb (profile ID 9, placements {0,4}:4) does not fit on this H100-80GB: ' +
          'start 0 needs slices 0-3, taken by 1g.10gb at 0:1 (idle) and 1g.10gb at 1:1 (idle); ' +
          'start 4 needs slices 4-7, taken by 1g.10gb at 5:1 (idle)',
        blockingGis: layout,
      });
      if (!fit.fits) for (const [i, g] of fit.blockingGis.entries()) expect(g).toBe(layout[i]);
    },
  );

  it("says where it fits: choosePlacement's start", () => {
    expect(explainMigFit(H, [], profile(H, '3g.40gb'))).toEqual({ fits: true, start: 4 });
    const layout = [gi(H, '1g.10gb', 6)];
    expect(explainMigFit(H, layout, profile(H, '3g.40gb'))).toEqual({
      fits: true,
      start: choosePlacement(H, layout, profile(H, '3g.40gb')),
    });
  });

  it('after three 1g.10gb placed by choosePlacement on an empty H100, a 4g.40gb still fits at 0', () => {
    const layout: MigGpuInstance[] = [];
    const oneG = profile(H, '1g.10gb');
    const starts = [0, 1, 2].map(() => {
      const start = choosePlacement(H, layout, oneG);
      if (start === null) throw new Error('no room');
      layout.push({ profileId: oneG.profileId, start, size: 1, inUse: true });
      return start;
    });
    expect(starts).toEqual([6, 5, 4]);
    expect(explainMigFit(H, layout, profile(H, '4g.40gb'))).toEqual({ fits: true, start: 0 });
  });

  it('names a count limit: one +me GI per GPU', () => {
    const layout = [gi(H, '1g.10gb+me', 0, true)];
    const fit = explainMigFit(H, layout, profile(H, '1g.10gb+me'));
    expect(fit.fits).toBe(false);
    if (fit.fits) return;
    expect(fit.reason).toBe(
      '1g.10gb+me (profile ID 20, placements {0,1,2,3,4,5,6}:1) does not fit on this H100-80GB: ' +
        'a GPU holds at most 1 1g.10gb+me GI, and this one has 1g.10gb+me at 0:1 (in use); ' +
        'a GPU holds only one +me GI, and this one has 1g.10gb+me at 0:1 (in use)',
    );
    expect(fit.blockingGis).toEqual(layout);
    // Another +me profile on A30: only the one-+me rule blocks it.
    const a30 = [gi('A30-24GB', '1g.6gb+me', 0)];
    const other = explainMigFit('A30-24GB', a30, profile('A30-24GB', '2g.12gb+me'));
    expect(other.fits).toBe(false);
    if (!other.fits) {
      expect(other.reason).toMatch(/: a GPU holds only one \+me GI, and this one has 1g\.6gb\+me at 0:1 \(idle\)$/);
      expect(other.blockingGis).toEqual(a30);
    }
  });

  it('names the GI count and compute limits with the slices', () => {
    const seven = [0, 1, 2, 3, 4, 5, 6].map((s) => gi(H, '1g.10gb', s));
    const full = explainMigFit(H, seven, profile(H, '1g.10gb'));
    expect(full.fits).toBe(false);
    if (!full.fits) {
      expect(full.reason).toContain('start 6 needs slice 6, taken by 1g.10gb at 6:1 (idle)');
      expect(full.reason).toContain('a GPU holds at most 7 1g.10gb GIs');
      expect(full.reason).toContain('the GPU already holds its maximum of 7 GIs');
      expect(full.reason).toContain('it needs 1 compute slice and 0 of 7 are free');
      expect(full.blockingGis).toEqual(seven);
    }
    // 4g + 2g + 1g use all 7 compute slices; slice 7 is free but no 1g starts there.
    const layout = [gi(H, '4g.40gb', 0, true), gi(H, '2g.20gb', 4, true), gi(H, '1g.10gb', 6, true)];
    const fit = explainMigFit(H, layout, profile(H, '1g.20gb'));
    expect(fit.fits).toBe(false);
    if (!fit.fits) {
      expect(fit.reason).toContain('start 6 needs slices 6-7, taken by 1g.10gb at 6:1 (in use)');
      expect(fit.reason).toContain('it needs 1 compute slice and 0 of 7 are free');
    }
  });

  it('refuses an invalid layout without blaming a GI', () => {
    const overlapping = [gi(H, '3g.40gb', 0), gi(H, '1g.10gb', 1)];
    const fit = explainMigFit(H, overlapping, profile(H, '1g.10gb'));
    expect(fit).toEqual({
      fits: false,
      reason: expect.stringContaining("the GPU's current layout is not valid for H100-80GB"),
      blockingGis: [],
    });
  });

  it('throws a RangeError for a profile of another model', () => {
    expect(() => explainMigFit('A100-40GB', [], profile(H, '3g.40gb'))).toThrow(RangeError);
  });
});

describe('describeMigGi', () => {
  it('names the profile, placement and state; falls back to the profile ID', () => {
    expect(describeMigGi(H, gi(H, '3g.40gb', 4, true))).toBe('3g.40gb at 4:4 (in use)');
    expect(describeMigGi('H100', gi(H, '1g.10gb', 5))).toBe('1g.10gb at 5:1 (idle)');
    expect(describeMigGi(H, { profileId: 42, start: 0, size: 1, inUse: false })).toBe('profile ID 42 at 0:1 (idle)');
  });
});

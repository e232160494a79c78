import { describe, expect, it } from 'vitest';
import { GPU_MODELS } from '../model/gpu-models.js';
import {
  findMigProfile,
  findMigProfileByKey,
  MIG_INFERRED_FACT,
  MIG_PROFILES,
  migGeometry,
  migProfileKey,
  migProfilesFor,
} from './mig-profiles.js';

const MIG_MODELS = ['A100-40GB', 'A100-80GB', 'H100-80GB', 'H200-141GB', 'A30-24GB'] as const;

describe('MIG profile table', () => {
  it.each([
    ['A100-40GB', 7],
    ['A100-80GB', 7],
    ['H100-80GB', 7],
    ['H200-141GB', 7],
    ['A30-24GB', 5],
  ] as const)('%s has %i GI profiles', (model, count) => {
    expect(migProfilesFor(model)).toHaveLength(count);
  });

  it('covers exactly the MIG-capable models of the catalog', () => {
    const capable = GPU_MODELS.filter((m) => m.migCapable)
      .map((m) => m.name)
      .sort();
    expect([...new Set(MIG_PROFILES.map((p) => p.gpuModel))].sort()).toEqual(capable);
    expect(migProfilesFor('T4')).toEqual([]);
    expect(migProfilesFor('no-such-gpu')).toEqual([]);
  });

  it('holds the A100-80GB 3g.40gb row exactly', () => {
    expect(findMigProfile('A100-80GB', '3g.40gb')).toMatchObject({
      gpuModel: 'A100-80GB',
      profileId: 9,
      computeSlices: 3,
      memorySlices: 4,
      reportedMemoryGiB: 39.25,
      usableMemoryMiB: 40192,
      maxCount: 2,
      placementStarts: [0, 4],
      placementSizeSlices: 4,
      mediaExtensions: false,
      inferred: [],
    });
  });

  it.each([
    ['A100-40GB', 19, '1g.5gb', 1, 1, 4864, 7, [0, 1, 2, 3, 4, 5, 6]],
    ['A100-40GB', 15, '1g.10gb', 1, 2, 9984, 4, [0, 2, 4, 6]],
    ['A100-40GB', 0, '7g.40gb', 7, 8, 40448, 1, [0]],
    ['A100-80GB', 20, '1g.10gb+me', 1, 1, 9728, 1, [0, 1, 2, 3, 4, 5, 6]],
    ['A100-80GB', 0, '7g.80gb', 7, 8, 80896, 1, [0]],
    ['H100-80GB', 14, '2g.20gb', 2, 2, 20090, 3, [0, 2, 4]],
    ['H100-80GB', 0, '7g.80gb', 7, 8, 81152, 1, [0]],
    ['H200-141GB', 19, '1g.18gb', 1, 1, 16384, 7, [0, 1, 2, 3, 4, 5, 6]],
    ['H200-141GB', 9, '3g.71gb', 3, 4, 71424, 2, [0, 4]],
    ['H200-141GB', 0, '7g.141gb', 7, 8, 143360, 1, [0]],
    ['A30-24GB', 14, '1g.6gb', 1, 1, 5949, 4, [0, 1, 2, 3]],
    ['A30-24GB', 6, '2g.12gb+me', 2, 2, 11970, 1, [0, 2]],
    ['A30-24GB', 0, '4g.24gb', 4, 4, 24064, 1, [0]],
  ] as const)('%s profile %i is %s', (model, id, name, compute, memory, mib, max, starts) => {
    expect(findMigProfile(model, id)).toMatchObject({
      name,
      computeSlices: compute,
      memorySlices: memory,
      usableMemoryMiB: mib,
      maxCount: max,
      placementStarts: starts,
    });
  });

  it('keeps every row consistent: size = memory slices, placements inside the GPU, MiB = floor(GiB × 1024)', () => {
    for (const p of MIG_PROFILES) {
      const geometry = migGeometry(p.gpuModel);
      expect(geometry?.computeSlices).toBe(p.gpuModel === 'A30-24GB' ? 4 : 7);
      expect(p.placementSizeSlices).toBe(p.memorySlices);
      expect(p.computeSlices).toBeLessThanOrEqual(geometry?.computeSlices ?? 0);
      for (const start of p.placementStarts)
        expect(start + p.placementSizeSlices).toBeLessThanOrEqual(geometry?.memorySlices ?? 0);
      expect(Number.isInteger(p.usableMemoryMiB)).toBe(true);
      expect(p.usableMemoryMiB).toBe(Math.floor((Math.round(p.reportedMemoryGiB * 100) * 1024) / 100));
      expect(p.name.startsWith(`${p.computeSlices}g.${p.nameMemoryGB}gb`)).toBe(true);
      expect(p.mediaExtensions).toBe(p.name.endsWith('+me'));
    }
  });

  it('has unique profile IDs and keys per model', () => {
    for (const model of MIG_MODELS) {
      const profiles = migProfilesFor(model);
      expect(new Set(profiles.map((p) => p.profileId)).size).toBe(profiles.length);
      expect(new Set(profiles.map(migProfileKey)).size).toBe(profiles.length);
    }
  });

  it('marks the H200 placements and the unrecorded memory figures as inferred', () => {
    for (const p of migProfilesFor('H200-141GB')) expect(p.inferred).toContain(MIG_INFERRED_FACT.placements);
    expect(findMigProfile('H200-141GB', '4g.71gb')?.inferred).toContain(MIG_INFERRED_FACT.usableMemory);
    expect(findMigProfile('H200-141GB', '3g.71gb')?.inferred).not.toContain(MIG_INFERRED_FACT.usableMemory);
    expect(findMigProfile('A100-40GB', '4g.20gb')?.inferred).toEqual([MIG_INFERRED_FACT.usableMemory]);
    expect(migProfilesFor('H100-80GB').every((p) => p.inferred.length === 0)).toBe(true);
  });
});

describe('migGeometry', () => {
  it('gives 7 compute / 8 memory slices and 7 GIs on A100, H100, H200; 4 / 4 / 4 on A30', () => {
    for (const model of ['A100-40GB', 'A100-80GB', 'H100-80GB', 'H200-141GB']) {
      expect(migGeometry(model)).toEqual({ computeSlices: 7, memorySlices: 8, maxInstances: 7 });
    }
    expect(migGeometry('A30-24GB')).toEqual({ computeSlices: 4, memorySlices: 4, maxInstances: 4 });
  });

  it('resolves catalog aliases and rejects models without MIG', () => {
    expect(migGeometry('A30')).toEqual(migGeometry('A30-24GB'));
    expect(migGeometry('H100')?.computeSlices).toBe(7);
    expect(migGeometry('T4')).toBeUndefined();
    expect(migGeometry('G2')).toBeUndefined();
    expect(migGeometry('nope')).toBeUndefined();
  });
});

describe('findMigProfile', () => {
  it('finds the A100-80GB full profile as 7g.80gb and as 7g.79gb', () => {
    const byNominal = findMigProfile('A100-80GB', '7g.80gb');
    expect(byNominal?.profileId).toBe(0);
    expect(findMigProfile('A100-80GB', '7g.79gb')).toBe(byNominal);
    expect(findMigProfile('A100-80GB', 'MIG 7g.79gb')).toBe(byNominal);
  });

  it('accepts the MIG prefix, any case, and numeric IDs as number or digits', () => {
    const p = findMigProfile('H100-80GB', 'MIG 3g.40gb');
    expect(p?.profileId).toBe(9);
    expect(findMigProfile('H100-80GB', '3G.40GB')).toBe(p);
    expect(findMigProfile('H100-80GB', 9)).toBe(p);
    expect(findMigProfile('H100-80GB', ' 9 ')).toBe(p);
    expect(findMigProfile('H100', '3g.40gb')).toBe(p);
    expect(findMigProfile('A100-40GB', 'MIG 1g.5gb')?.profileId).toBe(19);
  });

  it('tells +me variants apart and keeps distinct 1g profiles apart', () => {
    expect(findMigProfile('A100-80GB', '1g.10gb+me')?.profileId).toBe(20);
    expect(findMigProfile('A100-80GB', '1g.10gb')?.profileId).toBe(19);
    expect(findMigProfile('A100-80GB', '1g.20gb')?.profileId).toBe(15);
    expect(findMigProfile('A30-24GB', '2g.12gb+me')?.profileId).toBe(6);
    expect(findMigProfile('H200-141GB', '1g.35gb')?.profileId).toBe(15);
  });

  it('returns undefined for unknown names, IDs, models and CI names', () => {
    expect(findMigProfile('A100-40GB', '3g.40gb')).toBeUndefined();
    expect(findMigProfile('A100-80GB', '7g.77gb')).toBeUndefined();
    expect(findMigProfile('A100-80GB', '5g.40gb')).toBeUndefined();
    expect(findMigProfile('A100-80GB', 42)).toBeUndefined();
    expect(findMigProfile('A100-80GB', '1c.3g.40gb')).toBeUndefined();
    expect(findMigProfile('A100-80GB', '')).toBeUndefined();
    expect(findMigProfile('T4', '1g.5gb')).toBeUndefined();
  });
});

describe('profile keys', () => {
  it('key on model, ID and slice counts', () => {
    const p = findMigProfile('A100-80GB', 9);
    expect(p && migProfileKey(p)).toBe('A100-80GB/9/3c/4m');
    expect(findMigProfileByKey('A100-80GB', 9, 3, 4)).toBe(p);
    expect(findMigProfileByKey('A100-80GB', 9, 4, 4)).toBeUndefined();
    expect(findMigProfileByKey('A100-40GB', 9, 3, 4)?.name).toBe('3g.20gb');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choosePlacement, freeCapacity, isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import { migGeometry, migProfilesFor } from './mig-profiles.js';

const MODELS = ['A100-40GB', 'A100-80GB', 'H100-80GB', 'H200-141GB', 'A30-24GB'] as const;

type Op = { readonly kind: 'create'; readonly pick: number } | { readonly kind: 'destroy'; readonly pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.nat().map((pick) => ({ kind: 'create' as const, pick })), weight: 3 },
  { arbitrary: fc.nat().map((pick) => ({ kind: 'destroy' as const, pick })), weight: 1 },
);

/** Independent of isValidLayout: no memory slice is held by two GIs, and all lie on the GPU. */
function noOverlap(memorySlices: number, gis: readonly MigGpuInstance[]): boolean {
  const owners = new Array<number>(memorySlices).fill(0);
  for (const gi of gis) for (let s = gi.start; s < gi.start + gi.size; s++) owners[s] = (owners[s] ?? 99) + 1;
  return owners.length === memorySlices && owners.every((n) => n <= 1);
}

describe('MIG allocator properties', () => {
  it('create (via choosePlacement) / destroy sequences keep the layout valid; null only when no start is valid', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), fc.array(opArb, { maxLength: 40 }), (model, ops) => {
        const profiles = migProfilesFor(model);
        const memorySlices = migGeometry(model)?.memorySlices ?? 0;
        const layout: MigGpuInstance[] = [];
        for (const op of ops) {
          if (op.kind === 'destroy') {
            if (layout.length > 0) layout.splice(op.pick % layout.length, 1);
          } else {
            const profile = profiles[op.pick % profiles.length];
            if (profile === undefined) throw new Error('no profiles');
            const start = choosePlacement(model, layout, profile);
            const validStarts = profile.placementStarts.filter((s) =>
              isValidLayout(model, [
                ...layout,
                { profileId: profile.profileId, start: s, size: profile.memorySlices, inUse: true },
              ]),
            );
            if (start === null) {
              expect(validStarts).toEqual([]);
            } else {
              expect(validStarts).toContain(start);
              layout.push({
                profileId: profile.profileId,
                start,
                size: profile.memorySlices,
                inUse: op.pick % 2 === 0,
              });
            }
          }
          expect(isValidLayout(model, layout)).toBe(true);
          expect(noOverlap(memorySlices, layout)).toBe(true);
        }
        // freeCapacity agrees with choosePlacement on what can still be created.
        const listed = new Set(freeCapacity(model, layout).map((c) => c.profile));
        for (const p of profiles) expect(listed.has(p)).toBe(choosePlacement(model, layout, p) !== null);
      }),
      { numRuns: 300 },
    );
  });
});

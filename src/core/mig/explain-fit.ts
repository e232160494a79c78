/**
 * Why a GPU instance (GI) of a profile can or cannot be created on a GPU's current layout, in
 * words a person can act on: which valid placements the profile has, and which existing GIs hold
 * the memory slices each of them needs — or which count or compute limit is reached.
 *
 * Rules from NVIDIA MIG User Guide (supported MIG profiles, getting started), as collected in
 * docs/mig.md: a GI needs one of its profile's placements with all memory slices free, its profile
 * below its maximum count, the GPU below its maximum GI count, enough free compute slices, and no
 * other `+me` GI when it is a `+me` GI. These are exactly the rules of {@link isValidLayout}, so a
 * profile that does not fit breaks at least one of them, and the explanation names each one broken.
 */
import { choosePlacement, isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import { migGeometry, migProfilesFor, type MigProfile } from './mig-profiles.js';

/** The answer of {@link explainMigFit}. */
export type MigFitExplanation =
  | {
      readonly fits: true;
      /** Where the GI would go: {@link choosePlacement}'s start. */
      readonly start: number;
    }
  | {
      readonly fits: false;
      /** One sentence naming the profile, its placements and each rule that blocks it. */
      readonly reason: string;
      /**
       * The existing GIs that block it, by ascending start (the same objects as in `gis`): those
       * holding slices of the valid placements when every placement is taken, those of the profile
       * when its count limit is reached, the `+me` GI when a second one is asked for, and every GI
       * when the GPU's GI count or compute slices are exhausted. Empty when the layout is invalid.
       */
      readonly blockingGis: MigGpuInstance[];
    };

/** The profile of `gi` on `model` (same ID and memory slices); undefined if none. */
function profileOfGi(model: string, gi: MigGpuInstance): MigProfile | undefined {
  return migProfilesFor(model).find((p) => p.profileId === gi.profileId && p.memorySlices === gi.size);
}

/**
 * A GI in words: `<profile name> at <start>:<size> (in use|idle)`, e.g. `1g.10gb at 5:1 (idle)`;
 * `profile ID <n>` replaces the name when `model` has no such profile.
 */
export function describeMigGi(model: string, gi: MigGpuInstance): string {
  const name = profileOfGi(model, gi)?.name ?? `profile ID ${gi.profileId}`;
  return `${name} at ${gi.start}:${gi.size} (${gi.inUse ? 'in use' : 'idle'})`;
}

/** `a`, `a and b`, `a, b and c`. */
function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function slicesText(start: number, size: number): string {
  return size === 1 ? `slice ${start}` : `slices ${start}-${start + size - 1}`;
}

/**
 * Says whether a GI of `profile` can be created on a GPU of `model` whose GIs are `gis`, and if not,
 * why. Idle GIs (`inUse: false`) count as occupied: they hold their slices until destroyed.
 *
 * Example (H100-80GB, `1g.10gb` GIs at 0, 1 and 5, all idle; `3g.40gb` has placements {0,4}:4):
 * `3g.40gb (profile ID 9, placements {0,4}:4) does not fit on this H100-80GB: start 0 needs slices
 * 0-3, taken by 1g.10gb at 0:1 (idle) and 1g.10gb at 1:1 (idle); start 4 needs slices 4-7, taken by
 * 1g.10gb at 5:1 (idle)`, with those three GIs as `blockingGis`.
 *
 * @param model GPU model, canonical name or catalog alias.
 * @returns `{ fits: true, start }` with {@link choosePlacement}'s start, or `{ fits: false, reason,
 *   blockingGis }`. An invalid existing layout never fits (reason says so, no blockers).
 * @throws RangeError when `profile` is not a profile of `model`.
 */
export function explainMigFit(model: string, gis: readonly MigGpuInstance[], profile: MigProfile): MigFitExplanation {
  if (!migProfilesFor(model).includes(profile)) {
    throw new RangeError(
      `MIG profile ${profile.name} (ID ${profile.profileId}) of ${profile.gpuModel} is not a profile of ${model}`,
    );
  }
  const start = choosePlacement(model, gis, profile);
  if (start !== null) return { fits: true, start };

  const geometry = migGeometry(model);
  const size = profile.placementSizeSlices;
  const head =
    `${profile.name} (profile ID ${profile.profileId}, placements {${profile.placementStarts.join(',')}}:` +
    `${size}) does not fit on this ${model}`;
  if (geometry === undefined || !isValidLayout(model, gis)) {
    return { fits: false, reason: `${head}: the GPU's current layout is not valid for ${model}`, blockingGis: [] };
  }

  const parts: string[] = [];
  const blockers = new Set<MigGpuInstance>();
  const block = (list: readonly MigGpuInstance[]): void => {
    for (const gi of list) blockers.add(gi);
  };
  const describe = (list: readonly MigGpuInstance[]): string => listText(list.map((gi) => describeMigGi(model, gi)));
  const byStart = [...gis].sort((a, b) => a.start - b.start);

  // Every valid placement overlaps some GI.
  const perStart = profile.placementStarts.map((s) => ({
    start: s,
    taken: byStart.filter((gi) => gi.start < s + size && s < gi.start + gi.size),
  }));
  if (perStart.every((p) => p.taken.length > 0)) {
    parts.push(
      perStart
        .map((p) => `start ${p.start} needs ${slicesText(p.start, size)}, taken by ${describe(p.taken)}`)
        .join('; '),
    );
    for (const p of perStart) block(p.taken);
  }
  // The profile's count limit.
  const same = byStart.filter((gi) => profileOfGi(model, gi) === profile);
  if (same.length >= profile.maxCount) {
    parts.push(
      `a GPU holds at most ${profile.maxCount} ${profile.name} GI${profile.maxCount === 1 ? '' : 's'}, ` +
        `and this one has ${describe(same)}`,
    );
    block(same);
  }
  // The GPU's GI count limit.
  if (gis.length >= geometry.maxInstances) {
    parts.push(`the GPU already holds its maximum of ${geometry.maxInstances} GIs`);
    block(byStart);
  }
  // Compute slices.
  const usedCompute = byStart.reduce((sum, gi) => sum + (profileOfGi(model, gi)?.computeSlices ?? 0), 0);
  if (usedCompute + profile.computeSlices > geometry.computeSlices) {
    parts.push(
      `it needs ${profile.computeSlices} compute slice${profile.computeSlices === 1 ? '' : 's'} and ` +
        `${geometry.computeSlices - usedCompute} of ${geometry.computeSlices} are free`,
    );
    block(byStart);
  }
  // One +me GI per GPU.
  if (profile.mediaExtensions) {
    const media = byStart.filter((gi) => profileOfGi(model, gi)?.mediaExtensions === true);
    if (media.length > 0) {
      parts.push(`a GPU holds only one +me GI, and this one has ${describe(media)}`);
      block(media);
    }
  }
  // unreachable: choosePlacement found none, so a rule above is broken
  if (parts.length === 0) parts.push('no valid start');
  return { fits: false, reason: `${head}: ${parts.join('; ')}`, blockingGis: byStart.filter((gi) => blockers.has(gi)) };
}

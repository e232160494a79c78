/**
 * Pure MIG geometry decisions over one GPU's layout: is a layout valid, which profile fits a share
 * request, and where a new GPU instance (GI) should go.
 *
 * Rules from NVIDIA MIG User Guide (supported MIG profiles, getting started), as collected in
 * docs/mig.md: a GI occupies the memory slices `start … start+size-1` of one of its profile's valid
 * placements; creation fails on overlap with occupied memory slices; each profile has a maximum
 * count; a GPU holds at most 7 GIs (4 on A30) and at most one `+me` GI; the GIs' compute slices
 * cannot exceed the GPU's 7 (4 on A30). The pre-R510 rule that forbade combining a (4 memory,
 * 4 compute) GI with a (4 memory, 3 compute) GI is not applied: newer drivers allow it.
 */
import { isNonNegativeInteger } from '../model/quantity.js';
import { migGeometry, migProfilesFor, type MigProfile } from './mig-profiles.js';

/** One existing GPU instance on a GPU. */
export interface MigGpuInstance {
  /** GI profile ID (`nvidia-smi mig -cgi` ID) on this GPU's model. */
  readonly profileId: number;
  /** First memory slice (`-lgi` placement start). */
  readonly start: number;
  /** Memory slices spanned (`-lgi` placement size). */
  readonly size: number;
  /** Whether a workload uses the GI. Not read by the geometry checks: a GI holds its slices either way. */
  readonly inUse: boolean;
}

/** A profile that could still be created on a GPU, and how many times (on its own). */
export interface MigFreeCapacity {
  readonly profile: MigProfile;
  /** GIs of this profile that could be created one after another, creating nothing else. */
  readonly count: number;
}

/** The GPU share a workload asks for, in the units of src/core/model/request.ts. */
export interface MigShareRequest {
  /** milli-GPU of compute, 0..1000 (1000 = the whole GPU). */
  readonly gpuMilli: number;
  /** Device memory in MiB; 0 when the request names none. */
  readonly gpuMemoryMiB: number;
}

/** The profile a GI belongs to on `profiles`: same ID and memory slices; undefined if none. */
function profileOf(profiles: readonly MigProfile[], gi: MigGpuInstance): MigProfile | undefined {
  return profiles.find((p) => p.profileId === gi.profileId && p.memorySlices === gi.size);
}

/**
 * Checks a GPU's MIG layout against the geometry rules (see the module comment): every GI belongs
 * to a profile of `model` (same ID and size) and sits at one of that profile's valid starts; no two
 * GIs share a memory slice; no profile exceeds its maximum count; the GPU's maximum GI count and
 * compute slices are not exceeded; at most one GI is a `+me` variant.
 *
 * @param model GPU model, canonical name or catalog alias.
 * @param gis the GIs on the GPU, in any order.
 * @returns false for any broken rule, and for a model that is unknown or not MIG-capable. Never throws.
 */
export function isValidLayout(model: string, gis: readonly MigGpuInstance[]): boolean {
  const geometry = migGeometry(model);
  if (geometry === undefined || gis.length > geometry.maxInstances) return false;
  const profiles = migProfilesFor(model);
  const occupied: boolean[] = new Array<boolean>(geometry.memorySlices).fill(false);
  const countByProfile = new Map<MigProfile, number>();
  let computeSlices = 0;
  let mediaExtensionGis = 0;
  for (const gi of gis) {
    const profile = profileOf(profiles, gi);
    if (profile === undefined || !profile.placementStarts.includes(gi.start)) return false;
    for (let slice = gi.start; slice < gi.start + gi.size; slice++) {
      if (slice >= geometry.memorySlices || occupied[slice] === true) return false;
      occupied[slice] = true;
    }
    const count = (countByProfile.get(profile) ?? 0) + 1;
    if (count > profile.maxCount) return false;
    countByProfile.set(profile, count);
    computeSlices += profile.computeSlices;
    if (profile.mediaExtensions) mediaExtensionGis++;
  }
  return computeSlices <= geometry.computeSlices && mediaExtensionGis <= 1;
}

/**
 * The starts at which a GI of `profile` could be created now: those of the profile's placements
 * that keep the layout valid with the new GI added ({@link isValidLayout}). Ascending; empty when
 * none (also when the existing layout is itself invalid).
 *
 * @throws RangeError when `profile` is not a profile of `model`.
 */
export function validStartsFor(model: string, gis: readonly MigGpuInstance[], profile: MigProfile): number[] {
  if (!migProfilesFor(model).includes(profile)) {
    throw new RangeError(
      `MIG profile ${profile.name} (ID ${profile.profileId}) of ${profile.gpuModel} is not a profile of ${model}`,
    );
  }
  return profile.placementStarts.filter((start) => isValidLayout(model, [...gis, newGi(profile, start)]));
}

/** A GI of `profile` at `start`, as choosePlacement's caller would record it. */
function newGi(profile: MigProfile, start: number): MigGpuInstance {
  return { profileId: profile.profileId, start, size: profile.memorySlices, inUse: true };
}

/** Orders profiles by size: memory slices, then compute slices. Negative when `a` is smaller. */
function compareSize(a: MigProfile, b: MigProfile): number {
  return a.memorySlices - b.memorySlices || a.computeSlices - b.computeSlices;
}

/**
 * The smallest profile that serves a share request: not a `+me` variant, usable memory ≥
 * `gpuMemoryMiB`, and compute slices ≥ ceil(gpuMilli × the GPU's compute slices / 1000) — e.g. on a
 * 7-slice GPU 500 milli needs 4 slices. "Smallest" orders by memory slices, then compute slices.
 * Whether the profile can be placed on a given GPU is {@link choosePlacement}'s question.
 *
 * @param model GPU model, canonical name or catalog alias.
 * @returns the profile, or undefined when none is big enough or the model is unknown or not MIG-capable.
 * @throws RangeError when gpuMilli or gpuMemoryMiB is not a non-negative integer.
 */
export function smallestProfileFor(model: string, request: MigShareRequest): MigProfile | undefined {
  const { gpuMilli, gpuMemoryMiB } = request;
  if (!isNonNegativeInteger(gpuMilli) || !isNonNegativeInteger(gpuMemoryMiB)) {
    throw new RangeError(
      `gpuMilli and gpuMemoryMiB must be non-negative integers, got ${gpuMilli} and ${gpuMemoryMiB}`,
    );
  }
  const geometry = migGeometry(model);
  if (geometry === undefined) return undefined;
  const slicesNeeded = Math.floor((gpuMilli * geometry.computeSlices + 999) / 1000);
  const fitting = migProfilesFor(model).filter(
    (p) => !p.mediaExtensions && p.usableMemoryMiB >= gpuMemoryMiB && p.computeSlices >= slicesNeeded,
  );
  return [...fitting].sort((a, b) => compareSize(a, b) || a.profileId - b.profileId)[0];
}

/** The largest profile of `model` that has a valid start on `gis`; undefined when none. */
function largestPlaceable(model: string, gis: readonly MigGpuInstance[]): MigProfile | undefined {
  let largest: MigProfile | undefined;
  for (const p of migProfilesFor(model)) {
    if ((largest === undefined || compareSize(p, largest) > 0) && validStartsFor(model, gis, p).length > 0) largest = p;
  }
  return largest;
}

/**
 * Free memory slices that lie inside at least one fully free aligned block of two or more slices —
 * a placement `{start}:size` (size ≥ 2) of some profile of the model. A free slice outside every
 * such block can only ever take a 1-slice GI: it is stranded for everything larger.
 */
function freeSlicesInAlignedBlocks(model: string, gis: readonly MigGpuInstance[]): number {
  const memorySlices = migGeometry(model)?.memorySlices ?? 0;
  const occupied: boolean[] = new Array<boolean>(memorySlices).fill(false);
  for (const gi of gis) for (let s = gi.start; s < gi.start + gi.size && s < memorySlices; s++) occupied[s] = true;
  const inFreeBlock: boolean[] = new Array<boolean>(memorySlices).fill(false);
  for (const p of migProfilesFor(model)) {
    if (p.placementSizeSlices < 2) continue;
    for (const start of p.placementStarts) {
      const block = Array.from({ length: p.placementSizeSlices }, (_, i) => start + i);
      if (block.every((s) => occupied[s] === false)) for (const s of block) inFreeBlock[s] = true;
    }
  }
  return inFreeBlock.filter(Boolean).length;
}

/**
 * Chooses where to create a new GI of `profile` on a GPU whose existing GIs are `gis`.
 *
 * Rule ("keep the largest block"): among the starts where the GI can be created now
 * ({@link validStartsFor}), take the one whose resulting layout (1) still admits the largest
 * profile (by memory slices, then compute slices), then (2) keeps the most free memory slices in
 * free aligned blocks of two or more slices, then (3) has the highest start.
 *
 * Why: GIs cannot be moved while in use, so a fragmented layout stays fragmented until GIs are
 * destroyed. Large profiles have few homes — a 7g only {0}:8, a 4g only {0}:4, a 3g {0,4}:4 — while
 * a 1g has seven. A small GI dropped inside the only home of a large profile forbids that profile
 * although enough slices are free: with 1g GIs at 0, 1 and 5 no 3g, 4g or 7g fits despite 4 free
 * compute slices (NVIDIA MIG User Guide (supported MIG profiles, getting started), as collected in
 * docs/mig.md). Keeping the largest profile placeable, and stranding as few slices as possible,
 * leaves room for the requests that are hardest to serve; ties go high, so small GIs fill from
 * slice 6 down and the 0:4 block — the only home of a 4g — stays clear longest. On an empty
 * 7-slice GPU a 1g goes to 6 and a 2g to 4, and a 3g or 4g still fits at 0.
 *
 * Limitation: the rule sees no future requests. Created in the order 1g, 1g, 2g, 3g
 * (`nvidia-smi mig -cgi 19,19,14,9`) the 3g finds no room: the only layout holding all four puts
 * the 3g at 4:4 and the small GIs in 0–3, which would have cost the 4g had the 3g never come. The
 * driver's own choice fails the same way ("Insufficient Resources"); creating the largest first
 * (`-cgi 9,19,14,19`) succeeds under both.
 *
 * @param model GPU model, canonical name or catalog alias.
 * @returns the start (first memory slice), or null when no valid start exists — slices taken, a
 *   count limit reached, compute slices exhausted, a second `+me`, or an invalid existing layout.
 * @throws RangeError when `profile` is not a profile of `model`.
 */
export function choosePlacement(model: string, gis: readonly MigGpuInstance[], profile: MigProfile): number | null {
  let best: Candidate | null = null;
  for (const start of validStartsFor(model, gis, profile)) {
    const after = [...gis, newGi(profile, start)];
    const candidate: Candidate = {
      start,
      largest: largestPlaceable(model, after),
      aligned: freeSlicesInAlignedBlocks(model, after),
    };
    if (best === null || isBetter(candidate, best)) best = candidate;
  }
  return best === null ? null : best.start;
}

/** Placement candidate of {@link choosePlacement}, with the two measures it ranks by. */
interface Candidate {
  readonly start: number;
  readonly largest: MigProfile | undefined;
  readonly aligned: number;
}

/** True when `a` ranks above `b`: larger profile still placeable, then more aligned free slices, then higher start. */
function isBetter(a: Candidate, b: Candidate): boolean {
  const bySize =
    (a.largest === undefined ? -1 : 0) - (b.largest === undefined ? -1 : 0) ||
    (a.largest !== undefined && b.largest !== undefined ? compareSize(a.largest, b.largest) : 0);
  if (bySize !== 0) return bySize > 0;
  if (a.aligned !== b.aligned) return a.aligned > b.aligned;
  return a.start > b.start;
}

/**
 * Which profiles could still be created on the GPU now, each with how many GIs of that profile alone
 * could be added one after another (placed by {@link choosePlacement}). Counts are per profile, not
 * jointly achievable: creating one profile's GIs can use up another's room. For diagnostics.
 *
 * @param model GPU model, canonical name or catalog alias.
 * @returns entries with count ≥ 1, in `-lgip` order; empty for a full GPU, an invalid layout, or a
 *   model that is unknown or not MIG-capable.
 */
export function freeCapacity(model: string, gis: readonly MigGpuInstance[]): MigFreeCapacity[] {
  const result: MigFreeCapacity[] = [];
  for (const profile of migProfilesFor(model)) {
    const layout = [...gis];
    for (
      let start = choosePlacement(model, layout, profile);
      start !== null;
      start = choosePlacement(model, layout, profile)
    ) {
      layout.push(newGi(profile, start));
    }
    if (layout.length > gis.length) result.push({ profile, count: layout.length - gis.length });
  }
  return result;
}

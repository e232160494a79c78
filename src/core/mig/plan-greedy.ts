/**
 * The MIG planner's cross-GPU greedy search (internal to src/core/mig/plan-reconfiguration.ts, whose
 * module comment describes it): builds the GPU states, repeatedly applies the GPU whose best packing
 * ranks first, and finishes each GPU's state.
 *
 * @internal Not re-exported from plan-reconfiguration.ts.
 */
import { isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import { migGeometry, migProfilesFor, type MigProfile } from './mig-profiles.js';
import { bestOnGpu, type CacheEntry } from './plan-gpu-search.js';
import {
  compareAcrossGpus,
  earlierFirst,
  geCompare,
  giBit,
  sliceBits,
  type Candidate,
  type GpuState,
  type IdleGi,
  type PlaceFn,
  type Placed,
  type Req,
} from './plan-search-state.js';
import type { MigPlanGpu } from './plan-types.js';

/** Records that request `pos` reuses an idle GI of `profile` on `state` (which GI is decided at the end). */
export function reserve(state: GpuState, profile: MigProfile, pos: number): void {
  state.reserved.set(profile, [...(state.reserved.get(profile) ?? []), pos]);
  const k = state.profiles.indexOf(profile);
  state.reservedCount[k] = (state.reservedCount[k] ?? 0) + 1;
}

/** Applies a GPU's chosen packing to its state: destroys its idle GIs, reserves reuses, fixes created GIs. */
export function applyCandidate(candidate: Candidate): void {
  const state = candidate.state;
  const gone = new Set(candidate.destroy);
  state.destroyed.push(...state.idle.filter((_, i) => gone.has(i)));
  state.idle = state.idle.filter((_, i) => !gone.has(i));
  for (const p of candidate.placed) {
    if (p.start === null) {
      reserve(state, p.profile, p.pos);
    } else {
      const gi: MigGpuInstance = {
        profileId: p.profile.profileId,
        start: p.start,
        size: p.profile.memorySlices,
        inUse: true,
      };
      state.fixed.push(gi);
      state.fixedKey += giBit(state.profiles, gi);
      state.fixedSlices |= sliceBits(gi);
      state.fixedCompute += p.profile.computeSlices;
      state.created.push(p);
    }
  }
}

/** The outcome of one search: final GPU states, the placement of each placed request, and totals. */
export interface SearchResult {
  readonly states: GpuState[];
  /** pos → placement. */
  readonly placed: Map<number, { state: GpuState; placed: Placed }>;
  readonly ge: number;
  readonly destroys: number;
  readonly creates: number;
}

/** Search states of the usable GPUs (valid layouts of MIG models), in the order given. */
export function freshStates(usable: readonly MigPlanGpu[]): GpuState[] {
  return usable.map((gpu) => {
    const profiles = migProfilesFor(gpu.model);
    const geometry = migGeometry(gpu.model);
    const idle: IdleGi[] = [];
    const fixed: MigGpuInstance[] = [];
    let fixedCompute = 0;
    for (const gi of [...gpu.gis].sort((a, b) => a.start - b.start)) {
      const profileIndex = profiles.findIndex((p) => p.profileId === gi.profileId && p.memorySlices === gi.size);
      const profile = profiles[profileIndex];
      if (profile === undefined || gi.inUse) {
        fixed.push(gi);
        fixedCompute += profile?.computeSlices ?? 0;
      } else {
        idle.push({ gi, profile, profileIndex, bit: giBit(profiles, gi), slices: sliceBits(gi) });
      }
    }
    return {
      gpu,
      profiles,
      placementSlices: profiles.map((p) =>
        p.placementStarts.map((start) => sliceBits({ start, size: p.placementSizeSlices })),
      ),
      computeSlices: geometry?.computeSlices ?? 0,
      maxInstances: geometry?.maxInstances ?? 0,
      fixedKey: fixed.reduce((sum, gi) => sum + giBit(profiles, gi), 0),
      fixedSlices: fixed.reduce((bits, gi) => bits | sliceBits(gi), 0),
      fixedCompute,
      reservedCount: profiles.map(() => 0),
      fixed,
      idle,
      destroyed: [],
      created: [],
      reserved: new Map(),
      bound: new Map(),
    };
  });
}

/**
 * Identifies what a packing of a GPU depends on besides the queue: the model, the fixed GIs, the idle
 * GIs in order and the reservations per profile. GPUs with one signature pack identically, since
 * requests choose their profile per model.
 */
export function signatureOf(state: GpuState): string {
  const reserved = state.reservedCount.join(',');
  return (
    `${state.profiles[0]?.gpuModel ?? state.gpu.model}|${state.fixedKey}|` +
    `${state.idle.map((g) => g.bit).join(',')}|${reserved}`
  );
}

/**
 * One search across GPUs, greedily: each round applies the best GPU's best packing (see
 * {@link compareAcrossGpus}) until no GPU can place anything; then binds reusing requests to idle
 * GIs and puts back destroys the final layout does not need. With `reuseFirst`, every request that
 * has an idle GI of its profile (lowest GPU index first) reserves one before the rounds.
 */
export function search(
  usable: readonly MigPlanGpu[],
  requests: readonly Req[],
  reuseFirst: boolean,
  place: PlaceFn,
): SearchResult {
  const states = freshStates(usable);
  const placed = new Map<number, { state: GpuState; placed: Placed }>();
  let remaining = [...requests];
  if (reuseFirst) {
    for (const req of requests) {
      const stateIndex = states.findIndex((s, i) => {
        const profile = req.profiles[i];
        if (profile === undefined) return false;
        const idle = s.idle.filter((g) => g.profile === profile).length;
        return idle > (s.reserved.get(profile)?.length ?? 0);
      });
      const state = states[stateIndex];
      const profile = req.profiles[stateIndex];
      if (state === undefined || profile === undefined) continue;
      const p: Placed = { pos: req.pos, profile, start: null };
      reserve(state, profile, req.pos);
      placed.set(req.pos, { state, placed: p });
    }
    remaining = remaining.filter((r) => !placed.has(r.pos));
  }
  // Packings per GPU state and mask, shared by GPUs in the same state (signature) and kept across
  // rounds while exact: a packing depends only on the state and the queue, and it stays the same when
  // the requests removed from the queue are ones it skipped (a profile that did not fit fits no larger
  // layout). Applying a candidate changes its GPU's signature.
  const caches = new Map<string, (CacheEntry | undefined)[]>();
  while (remaining.length > 0) {
    let best: Candidate | null = null;
    states.forEach((state, i) => {
      const signature = signatureOf(state);
      let cache = caches.get(signature);
      if (cache === undefined) {
        cache = [];
        caches.set(signature, cache);
      }
      const packing = bestOnGpu(i, state, remaining, place, cache);
      const candidate: Candidate | null = packing === null ? null : { ...packing, state };
      if (candidate !== null && (best === null || compareAcrossGpus(candidate, best) < 0)) best = candidate;
    });
    if (best === null) break;
    const chosen: Candidate = best;
    applyCandidate(chosen);
    for (const p of chosen.placed) placed.set(p.pos, { state: chosen.state, placed: p });
    remaining = remaining.filter((r) => !placed.has(r.pos));
    for (const cache of caches.values()) {
      cache.forEach((c, mask) => {
        if (c?.touches.some((pos) => placed.has(pos))) cache[mask] = undefined;
      });
    }
  }
  for (const state of states) {
    // Bind reusing requests to idle GIs of their profile: in queue order, lowest start first.
    for (const [profile, positions] of state.reserved) {
      const gis = state.idle.filter((g) => g.profile === profile).map((g) => g.gi);
      [...positions]
        .sort((a, b) => a - b)
        .forEach((pos, i) => {
          const gi = gis[i];
          if (gi !== undefined) state.bound.set(pos, gi); // always defined: a packing keeps enough idle GIs
        });
    }
    // Put back any destroyed GI that the final layout no longer needs gone (an earlier round's
    // destroy that later rounds made unnecessary). It stays idle and unassigned.
    const keep: IdleGi[] = [];
    for (const d of state.destroyed) {
      const layout = [...state.fixed, ...state.idle.map((g) => g.gi), ...keep.map((g) => g.gi)];
      if (isValidLayout(state.gpu.model, [...layout, d.gi])) keep.push(d);
    }
    state.destroyed = state.destroyed.filter((d) => !keep.includes(d));
    state.idle = [...state.idle, ...keep].sort((a, b) => a.gi.start - b.gi.start);
  }
  const ge = requests.filter((r) => placed.has(r.pos)).reduce((sum, r) => sum + r.ge, 0);
  return {
    states,
    placed,
    ge,
    destroys: states.reduce((sum, s) => sum + s.destroyed.length, 0),
    creates: states.reduce((sum, s) => sum + s.created.length, 0),
  };
}

/** Negative when search result `a` is the better plan. */
export function compareResults(a: SearchResult, b: SearchResult): number {
  return (
    -geCompare(a.ge, b.ge) ||
    a.destroys - b.destroys ||
    a.creates - b.creates ||
    earlierFirst(
      [...a.placed.keys()].sort((x, y) => x - y),
      [...b.placed.keys()].sort((x, y) => x - y),
    )
  );
}

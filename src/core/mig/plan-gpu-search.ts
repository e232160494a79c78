/**
 * The MIG planner's per-GPU search (internal to src/core/mig/plan-reconfiguration.ts): every subset
 * of a GPU's idle GIs is tried as the set to destroy, the queue is packed onto what remains, and the
 * best packing is kept.
 *
 * @internal Not re-exported from plan-reconfiguration.ts.
 */
import { isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import type { MigProfile } from './mig-profiles.js';
import {
  compareOnGpu,
  largestFirst,
  sliceBits,
  type GpuState,
  type Packing,
  type PlaceFn,
  type Placed,
  type Req,
} from './plan-search-state.js';

/** Packs `remaining` onto `state` after destroying the idle GIs in `mask`; null when the mask breaks a reservation. */
export function pack(
  stateIndex: number,
  state: GpuState,
  mask: number,
  remaining: readonly Req[],
  place: PlaceFn,
): Packing | null {
  const profiles = state.profiles;
  const available = new Array<number>(profiles.length).fill(0);
  const destroy: number[] = [];
  let layoutKey = state.fixedKey;
  let occupied = state.fixedSlices;
  let usedCompute = state.fixedCompute;
  let count = state.fixed.length;
  state.idle.forEach((idle, i) => {
    if ((mask & (1 << i)) !== 0) {
      destroy.push(i);
      return;
    }
    layoutKey += idle.bit;
    occupied |= idle.slices;
    usedCompute += idle.profile.computeSlices;
    count++;
    available[idle.profileIndex] = (available[idle.profileIndex] ?? 0) + 1;
  });
  for (let k = 0; k < profiles.length; k++) {
    const left = (available[k] ?? 0) - (state.reservedCount[k] ?? 0);
    if (left < 0) return null;
    available[k] = left;
  }
  const created: MigGpuInstance[] = [];
  const layout = (): MigGpuInstance[] => [
    ...state.fixed,
    ...state.idle.filter((_, i) => (mask & (1 << i)) === 0).map((g) => g.gi),
    ...created,
  ];
  let failed = 0;
  const placed: Placed[] = [];
  let ge = 0;
  for (const req of remaining) {
    const k = req.profileIndexes[stateIndex] ?? -1;
    const profile = profiles[k];
    if (profile === undefined || (failed & (1 << k)) !== 0) continue;
    const idle = available[k] ?? 0;
    if (idle > 0) {
      available[k] = idle - 1;
      placed.push({ pos: req.pos, profile, start: null });
      ge += req.ge;
      continue;
    }
    // Necessary conditions first (a GI and compute slices left, a free placement), then choosePlacement.
    const start =
      count < state.maxInstances &&
      usedCompute + profile.computeSlices <= state.computeSlices &&
      (state.placementSlices[k] ?? []).some((bits) => (occupied & bits) === 0)
        ? place(state, layoutKey, layout, k)
        : null;
    if (start === null) {
      failed |= 1 << k;
      continue;
    }
    const gi: MigGpuInstance = { profileId: profile.profileId, start, size: profile.memorySlices, inUse: true };
    created.push(gi);
    layoutKey += 2 ** (7 * k + start);
    occupied |= sliceBits(gi);
    usedCompute += profile.computeSlices;
    count++;
    placed.push({ pos: req.pos, profile, start });
    ge += req.ge;
  }
  // Keep every idle GI the packing did not need (cheap slice, count and compute tests first).
  const kept: MigGpuInstance[] = [];
  const needed = destroy.filter((i) => {
    const idle = state.idle[i];
    if (
      idle === undefined ||
      (occupied & idle.slices) !== 0 ||
      count >= state.maxInstances ||
      usedCompute + idle.profile.computeSlices > state.computeSlices ||
      !isValidLayout(state.gpu.model, [...layout(), ...kept, idle.gi])
    )
      return true;
    occupied |= idle.slices;
    usedCompute += idle.profile.computeSlices;
    count++;
    kept.push(idle.gi);
    return false;
  });
  return { destroy: needed, placed, ge, creates: created.length };
}

/** A cached packing of one mask, with every request either packing order placed (to invalidate it). */
export interface CacheEntry {
  readonly packing: Packing | null;
  readonly touches: readonly number[];
}

/**
 * The best subset to destroy on one GPU for `remaining`; null when nothing can be placed there.
 * Each subset is packed in queue order and, when that leaves an eligible request out, also largest
 * profile first (the order in which a batch of GIs fits best); the better packing counts.
 * `cache[mask]` holds packings from earlier rounds that are still exact (see `search` in plan-greedy.ts).
 */
export function bestOnGpu(
  stateIndex: number,
  state: GpuState,
  remaining: readonly Req[],
  place: PlaceFn,
  cache: (CacheEntry | undefined)[],
): Packing | null {
  const eligible = remaining.filter((r) => r.profiles[stateIndex] !== undefined);
  if (eligible.length === 0) return null;
  const profileOf = (r: Req): MigProfile => r.profiles[stateIndex] as MigProfile;
  const bySize = [...eligible].sort((a, b) => largestFirst(profileOf(a), profileOf(b)) || a.pos - b.pos);
  const sameOrder = bySize.every((r, k) => r === eligible[k]);
  let best: Packing | null = null;
  const subsets = 1 << state.idle.length;
  for (let mask = 0; mask < subsets; mask++) {
    let entry = cache[mask];
    if (entry === undefined) {
      const inOrder = pack(stateIndex, state, mask, eligible, place);
      let packing = inOrder;
      const touches = inOrder?.placed.map((p) => p.pos) ?? [];
      if (inOrder !== null && inOrder.placed.length < eligible.length && !sameOrder) {
        const big = pack(stateIndex, state, mask, bySize, place);
        if (big !== null) {
          touches.push(...big.placed.map((p) => p.pos));
          if (compareOnGpu(big, inOrder) < 0) packing = big;
        }
      }
      entry = { packing, touches };
      cache[mask] = entry;
    }
    const candidate = entry.packing;
    if (candidate === null || candidate.placed.length === 0) continue;
    if (best === null || compareOnGpu(candidate, best) < 0) best = candidate;
    // Nothing beats placing every eligible request without destroying anything.
    if (mask === 0 && candidate.placed.length === eligible.length) break;
  }
  return best;
}

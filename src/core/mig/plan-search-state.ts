/**
 * The MIG planner's search state and its comparisons (internal to src/core/mig/plan-reconfiguration.ts,
 * whose module comment describes the search): requests as the search sees them, per-GPU state,
 * packings and candidates, layout keys and slice bit sets, the memoized placement, and the orders
 * used to pick the best packing on a GPU and the best GPU across GPUs.
 *
 * @internal Not re-exported from plan-reconfiguration.ts.
 */
import { GPU_EQUIVALENT_EPSILON } from '../fairness/gpu-equivalents.js';
import { choosePlacement, type MigGpuInstance } from './mig-allocator.js';
import type { MigProfile } from './mig-profiles.js';
import type { MigPlanGpu } from './plan-types.js';

/** A request with its profile on each usable GPU (index into the GPU states). */
export interface Req {
  readonly pos: number;
  readonly jobId: number;
  readonly ge: number;
  readonly profiles: readonly (MigProfile | undefined)[];
  /** Per GPU state: the index of the profile in the state's `profiles`, or -1. */
  readonly profileIndexes: readonly number[];
}

/** An idle GI of a GPU state, with its profile and its layout-key bit and slice bits precomputed. */
export interface IdleGi {
  readonly gi: MigGpuInstance;
  readonly profile: MigProfile;
  readonly profileIndex: number;
  /** Its bit in a layout key. */
  readonly bit: number;
  /** Its memory slices as a bit set. */
  readonly slices: number;
}

/** A request placed by a packing: on an idle GI of its profile (reuse) or on a GI created at `start`. */
export interface Placed {
  readonly pos: number;
  readonly profile: MigProfile;
  /** Start of the created GI; null for a reuse. */
  readonly start: number | null;
}

/** One usable GPU while a search runs. */
export interface GpuState {
  readonly gpu: MigPlanGpu;
  /** The model's profiles, `-lgip` order. */
  readonly profiles: readonly MigProfile[];
  /** Per profile, the memory slices of each of its placements as bit sets. */
  readonly placementSlices: readonly (readonly number[])[];
  readonly computeSlices: number;
  readonly maxInstances: number;
  /** Layout key, memory slices (bit set) and compute slices of `fixed`. */
  fixedKey: number;
  fixedSlices: number;
  fixedCompute: number;
  /** Per profile index, how many requests reuse an idle GI of it (= `reserved` lengths). */
  reservedCount: number[];
  /** GIs that stay and are not available: in use, or created by the plan. */
  fixed: MigGpuInstance[];
  /** Idle GIs that still exist. */
  idle: IdleGi[];
  destroyed: IdleGi[];
  created: Placed[];
  /** Requests that reuse an idle GI of a profile; which GI is decided at the end. */
  reserved: Map<MigProfile, number[]>;
  /** At the end: the idle GI each reusing request gets (request position → GI). */
  bound: Map<number, MigGpuInstance>;
}

/** The outcome of packing the queue onto one GPU after destroying a subset of its idle GIs. */
export interface Packing {
  /** Indices into the GPU state's `idle` to destroy. */
  readonly destroy: readonly number[];
  readonly placed: readonly Placed[];
  readonly ge: number;
  readonly creates: number;
}

/** A GPU's best packing, competing with the other GPUs'. */
export interface Candidate extends Packing {
  readonly state: GpuState;
}

/** choosePlacement for a GPU state's model, memoized on (layout key, profile); `layout` builds the layout on a miss. */
export type PlaceFn = (
  state: GpuState,
  layoutKey: number,
  layout: () => MigGpuInstance[],
  profileIndex: number,
) => number | null;

/**
 * Layout keys: a GI of the `i`-th profile of its model (in `-lgip` order, ≤ 7 profiles) at start `s`
 * (≤ 6) is bit `7i + s`; a layout's key is the sum of its GIs' bits (< 2^49, exact in a double; a
 * valid layout has no two GIs of one profile at one start).
 */
export function giBit(profiles: readonly MigProfile[], gi: MigGpuInstance): number {
  const i = profiles.findIndex((p) => p.profileId === gi.profileId && p.memorySlices === gi.size);
  return 2 ** (7 * Math.max(0, i) + gi.start);
}

/** Memory slices of `gi` as a bit set. */
export function sliceBits(gi: Pick<MigGpuInstance, 'start' | 'size'>): number {
  return ((1 << gi.size) - 1) << gi.start;
}

/** A fresh memo: one per plan, shared by both searches. */
export function memoizedPlace(): PlaceFn {
  const memo = new Map<string, Map<number, number | null>>();
  return (state, layoutKey, layout, profileIndex) => {
    const model = state.gpu.model;
    let byKey = memo.get(model);
    if (byKey === undefined) {
      byKey = new Map();
      memo.set(model, byKey);
    }
    const key = layoutKey * 8 + profileIndex;
    const hit = byKey.get(key);
    if (hit !== undefined) return hit;
    const profile = state.profiles[profileIndex];
    const start = profile === undefined ? null : choosePlacement(model, layout(), profile);
    byKey.set(key, start);
    return start;
  };
}

/** Compares GE figures (or GE rates, which may be Infinity) with the GE tolerance. */
export function geCompare(a: number, b: number): number {
  if (a === b || Math.abs(a - b) <= GPU_EQUIVALENT_EPSILON) return 0;
  return a > b ? 1 : -1;
}

/** Negative when positions `a` place earlier requests than `b` (both sorted ascending). */
export function earlierFirst(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return b.length - a.length;
}

/** The positions of the placed requests, ascending. */
export const positionsOf = (placed: readonly Placed[]): number[] => placed.map((p) => p.pos).sort((a, b) => a - b);

/** Negative when `a` is the better subset for its GPU: more GE, fewer destroys, fewer creates, earlier requests. */
export function compareOnGpu(a: Packing, b: Packing): number {
  return (
    -geCompare(a.ge, b.ge) ||
    a.destroy.length - b.destroy.length ||
    a.creates - b.creates ||
    earlierFirst(positionsOf(a.placed), positionsOf(b.placed))
  );
}

/** GE per unit (destroyed or created GI); Infinity for none. */
export const perUnit = (ge: number, units: number): number => (units === 0 ? Infinity : ge / units);

/** Negative when `a` is the better GPU to apply next (see the module comment of plan-reconfiguration.ts). */
export function compareAcrossGpus(a: Candidate, b: Candidate): number {
  return (
    -geCompare(perUnit(a.ge, a.destroy.length), perUnit(b.ge, b.destroy.length)) ||
    -geCompare(perUnit(a.ge, a.creates), perUnit(b.ge, b.creates)) ||
    -geCompare(a.ge, b.ge) ||
    a.state.gpu.gpuIndex - b.state.gpu.gpuIndex
  );
}

/** Orders profiles largest first: memory slices, then compute slices. */
export function largestFirst(a: MigProfile, b: MigProfile): number {
  return b.memorySlices - a.memorySlices || b.computeSlices - a.computeSlices;
}

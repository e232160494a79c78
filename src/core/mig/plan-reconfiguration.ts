/**
 * The MIG layout planner: given the GPUs of a server in MIG mode, with their GPU instances (GIs)
 * and whether each is in use, and a queue of requests for GIs, decides which idle GIs to destroy,
 * which GIs to create where, and which GI each request gets.
 *
 * GIs persist: a GI created for a job stays after the job, idle, so the next job of that profile
 * can use it at once; when the queue needs other shapes, idle GIs are destroyed and new ones
 * created. A GI in use is never touched.
 *
 * The search (docs/mig.md, "Planning reconfigurations"), a heuristic with a stated bound:
 * - Per GPU, every subset of its idle GIs is tried as the set to destroy (≤ 7 idle GIs on a GPU, so
 *   ≤ 128 subsets). For each, the remaining queue is packed onto the GPU: a request takes an idle GI
 *   of its profile if one survives (reuse, no change), else a new GI at {@link choosePlacement}'s
 *   start in free slices, else it is skipped. The packing runs in queue order and, when that leaves
 *   a request out, also largest profile first (the order in which a batch of GIs fits best); the
 *   better one counts. Destroys the packing did not need (the GI can be put back and the layout
 *   stays valid) are dropped. The GPU's best subset places the most GPU-equivalents (GE), then
 *   destroys fewest GIs, then creates fewest, then places the earliest requests.
 * - Across GPUs, greedily: the GPU whose best subset gains the most GE per destroyed GI (none
 *   destroyed = infinitely good), then the most GE per created GI (pure reuse first), then the most
 *   GE, then the lowest GPU index, is applied; the placed requests leave the queue; repeat until no
 *   GPU can place anything.
 * - Which idle GI of a profile a reusing request gets is decided last (lowest start first), so the
 *   subset search may destroy any idle GI of that profile as long as enough stay for the requests
 *   that reuse them.
 * - The search runs twice — as above, and after first reserving, in queue order, an idle GI of the
 *   right profile for every request that has one (lowest GPU index first) — and the better plan wins:
 *   most GE, then fewest destroys, then fewest creates, then the earliest requests placed.
 * Cost: per round ≤ GPUs × 128 subsets × 2 packings of ≤ (queue length) steps, each with at most 7
 * successful {@link choosePlacement} calls (memoized per layout within a plan); rounds ≤ requests
 * placed. Packings are shared by GPUs in the same state and kept across rounds while still exact.
 * Measured (warm, CPU time): 50 requests on 8 H100s with 7 idle GIs each ≈ 25 ms; on 8 GPUs with a
 * few idle GIs ≈ 5 ms; on 8 empty GPUs ≈ 1 ms.
 *
 * Guarantees (checked by the property tests): no GI in use is destroyed or assigned; every layout
 * met when applying the plan's destroys then creates, in order, is valid ({@link isValidLayout});
 * every destroy is needed (putting any destroyed GI back into the final layout makes it invalid);
 * every created GI is assigned; each request is either assigned to one GI of its profile that
 * exists in the final layout, and no GI is assigned twice, or listed as unplaced with a reason; an
 * unplaced request fits on no usable GPU even with every idle GI the plan does not use destroyed; a
 * lone request reuses an idle GI when there is one, else destroys the fewest idle GIs any GPU needs.
 * Not guaranteed: that no other plan places more GE or destroys fewer GIs for several requests —
 * the packing is greedy in its order and the choice across GPUs is greedy.
 */
import { GPU_EQUIVALENT_EPSILON } from '../fairness/gpu-equivalents.js';
import { choosePlacement, isValidLayout, type MigGpuInstance } from './mig-allocator.js';
import { describeMigGi, explainMigFit } from './explain-fit.js';
import { migGeometry, migProfilesFor, type MigProfile } from './mig-profiles.js';

/** One GPU in MIG mode, as the planner sees it. */
export interface MigPlanGpu {
  readonly gpuIndex: number;
  /** GPU model, canonical catalog name or alias. */
  readonly model: string;
  /** Its GIs now, idle ones (`inUse: false`) included. */
  readonly gis: readonly MigGpuInstance[];
  /** False: the planner neither changes nor assigns anything on this GPU (drained, faulty, …). */
  readonly schedulable: boolean;
}

/**
 * The profile a request accepts: one profile (it applies only to GPUs of that profile's model), or a
 * per-model choice returning a profile of that model, or undefined when the model cannot serve it.
 */
export type MigProfileChoice = MigProfile | ((model: string) => MigProfile | undefined);

/** A request for one GI, in queue order. */
export interface MigPlanRequest {
  readonly jobId: number;
  readonly profile: MigProfileChoice;
  /** Its size in GPU-equivalents (src/core/fairness/gpu-equivalents.ts); positive and finite. */
  readonly gpuEquivalents: number;
}

export interface MigReconfigurationInput {
  readonly gpus: readonly MigPlanGpu[];
  /** Requests in queue order (earlier = served first). */
  readonly queue: readonly MigPlanRequest[];
}

/** An idle GI to destroy. */
export interface MigPlanDestroy {
  readonly gpuIndex: number;
  readonly start: number;
  readonly profileId: number;
}

/** A GI to create at an explicit placement (`nvidia-smi mig -cgi <profileId>:<start>`). */
export interface MigPlanCreate {
  readonly gpuIndex: number;
  readonly profileId: number;
  readonly start: number;
  /** Memory slices of the profile, so the resulting layout can be computed without the model. */
  readonly size: number;
}

/** The GI a request gets. */
export interface MigPlanAssignment {
  readonly jobId: number;
  readonly gpuIndex: number;
  readonly start: number;
  readonly profileId: number;
  /** True when the GI is an existing idle one; false when the plan creates it. */
  readonly reused: boolean;
}

export interface MigPlanUnplaced {
  readonly jobId: number;
  readonly reason: string;
}

/** A plan: data only. Apply per GPU: `destroy` in order, then `create` in order. */
export interface MigReconfigurationPlan {
  /** Idle GIs to destroy, by GPU index then start. */
  readonly destroy: MigPlanDestroy[];
  /** GIs to create, by GPU index, then largest profile first (memory, then compute slices), then start. */
  readonly create: MigPlanCreate[];
  /** In queue order. */
  readonly assignments: MigPlanAssignment[];
  /** In queue order. */
  readonly unplaced: MigPlanUnplaced[];
  /** What the plan does and why, one line each, for logs and `show`. */
  readonly explanation: string[];
  /** Sum of the assigned requests' GPU-equivalents. */
  readonly placedGpuEquivalents: number;
}

/**
 * The part of a plan for one GPU, as {@link migPlanForGpu} returns it: assignable to the node agent's
 * `MigPlan` (src/app/ports/mig-manager.ts), whose create items ignore `size`.
 */
export interface MigGpuPlanPart {
  destroy: { start: number; profileId: number }[];
  create: { profileId: number; start: number; size: number }[];
}

/** What {@link applyMigPlan} reads of a GPU's part of a plan. */
export interface MigGpuPlanPartView {
  readonly destroy: readonly { readonly start: number; readonly profileId: number }[];
  readonly create: readonly { readonly profileId: number; readonly start: number; readonly size: number }[];
}

/** The destroys and creates of `plan` for GPU `gpuIndex`, in plan order (empty lists when none). */
export function migPlanForGpu(plan: Pick<MigReconfigurationPlan, 'destroy' | 'create'>, gpuIndex: number): MigGpuPlanPart {
  return {
    destroy: plan.destroy.filter((d) => d.gpuIndex === gpuIndex).map(({ start, profileId }) => ({ start, profileId })),
    create: plan.create.filter((c) => c.gpuIndex === gpuIndex).map(({ profileId, start, size }) => ({ profileId, start, size })),
  };
}

/**
 * The layouts met while applying `part` to `gis`: one after each destroy, then one after each
 * create, in order. A destroyed GI is removed; a created GI is appended idle (`inUse: false`) — the
 * job assigned to it marks it in use when it starts. Geometry is not checked (no model here): check
 * each layout with {@link isValidLayout}.
 *
 * @throws RangeError when a destroy names no GI of `gis` (by start and profile ID) or a GI in use.
 */
export function applyMigPlanSteps(gis: readonly MigGpuInstance[], part: MigGpuPlanPartView): MigGpuInstance[][] {
  const steps: MigGpuInstance[][] = [];
  let layout = [...gis];
  for (const d of part.destroy) {
    const index = layout.findIndex((gi) => gi.start === d.start && gi.profileId === d.profileId);
    const target = layout[index];
    if (target === undefined) throw new RangeError(`no GI of profile ID ${d.profileId} at start ${d.start} to destroy`);
    if (target.inUse) throw new RangeError(`the GI of profile ID ${d.profileId} at ${d.start}:${target.size} is in use and cannot be destroyed`);
    layout = layout.filter((_, i) => i !== index);
    steps.push(layout);
  }
  for (const c of part.create) {
    layout = [...layout, { profileId: c.profileId, start: c.start, size: c.size, inUse: false }];
    steps.push(layout);
  }
  return steps;
}

/**
 * The layout after applying `part` to `gis` (destroys, then creates; created GIs idle). Pure.
 * @throws RangeError as {@link applyMigPlanSteps}.
 */
export function applyMigPlan(gis: readonly MigGpuInstance[], part: MigGpuPlanPartView): MigGpuInstance[] {
  return applyMigPlanSteps(gis, part).at(-1) ?? [...gis];
}

// ---------------------------------------------------------------------------------------------
// The search.

/** A request with its profile on each usable GPU (index into the GPU states). */
interface Req {
  readonly pos: number;
  readonly jobId: number;
  readonly ge: number;
  readonly profiles: readonly (MigProfile | undefined)[];
  /** Per GPU state: the index of the profile in the state's `profiles`, or -1. */
  readonly profileIndexes: readonly number[];
}

interface IdleGi {
  readonly gi: MigGpuInstance;
  readonly profile: MigProfile;
  readonly profileIndex: number;
  /** Its bit in a layout key. */
  readonly bit: number;
  /** Its memory slices as a bit set. */
  readonly slices: number;
}

interface Placed {
  readonly pos: number;
  readonly profile: MigProfile;
  /** Start of the created GI; null for a reuse. */
  readonly start: number | null;
}

/** One usable GPU while a search runs. */
interface GpuState {
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
interface Packing {
  /** Indices into the GPU state's `idle` to destroy. */
  readonly destroy: readonly number[];
  readonly placed: readonly Placed[];
  readonly ge: number;
  readonly creates: number;
}

/** A GPU's best packing, competing with the other GPUs'. */
interface Candidate extends Packing {
  readonly state: GpuState;
}

/** choosePlacement for a GPU state's model, memoized on (layout key, profile); `layout` builds the layout on a miss. */
type PlaceFn = (state: GpuState, layoutKey: number, layout: () => MigGpuInstance[], profileIndex: number) => number | null;

/**
 * Layout keys: a GI of the `i`-th profile of its model (in `-lgip` order, ≤ 7 profiles) at start `s`
 * (≤ 6) is bit `7i + s`; a layout's key is the sum of its GIs' bits (< 2^49, exact in a double; a
 * valid layout has no two GIs of one profile at one start).
 */
function giBit(profiles: readonly MigProfile[], gi: MigGpuInstance): number {
  const i = profiles.findIndex((p) => p.profileId === gi.profileId && p.memorySlices === gi.size);
  return 2 ** (7 * Math.max(0, i) + gi.start);
}

/** Memory slices of `gi` as a bit set. */
function sliceBits(gi: Pick<MigGpuInstance, 'start' | 'size'>): number {
  return ((1 << gi.size) - 1) << gi.start;
}

/** A fresh memo: one per plan, shared by both searches. */
function memoizedPlace(): PlaceFn {
  const memo = new Map<string, Map<number, number | null>>();
  return (state, layoutKey, layout, profileIndex) => {
    const model = state.gpu.model;
    let byKey = memo.get(model);
    if (byKey === undefined) { byKey = new Map(); memo.set(model, byKey); }
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
function geCompare(a: number, b: number): number {
  if (a === b || Math.abs(a - b) <= GPU_EQUIVALENT_EPSILON) return 0;
  return a > b ? 1 : -1;
}

/** Negative when positions `a` place earlier requests than `b` (both sorted ascending). */
function earlierFirst(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return b.length - a.length;
}

const positionsOf = (placed: readonly Placed[]): number[] => placed.map((p) => p.pos).sort((a, b) => a - b);

/** Negative when `a` is the better subset for its GPU: more GE, fewer destroys, fewer creates, earlier requests. */
function compareOnGpu(a: Packing, b: Packing): number {
  return -geCompare(a.ge, b.ge) || a.destroy.length - b.destroy.length || a.creates - b.creates
    || earlierFirst(positionsOf(a.placed), positionsOf(b.placed));
}

const perUnit = (ge: number, units: number): number => (units === 0 ? Infinity : ge / units);

/** Negative when `a` is the better GPU to apply next (see the module comment). */
function compareAcrossGpus(a: Candidate, b: Candidate): number {
  return -geCompare(perUnit(a.ge, a.destroy.length), perUnit(b.ge, b.destroy.length))
    || -geCompare(perUnit(a.ge, a.creates), perUnit(b.ge, b.creates))
    || -geCompare(a.ge, b.ge)
    || a.state.gpu.gpuIndex - b.state.gpu.gpuIndex;
}

/** Packs `remaining` onto `state` after destroying the idle GIs in `mask`; null when the mask breaks a reservation. */
function pack(stateIndex: number, state: GpuState, mask: number, remaining: readonly Req[], place: PlaceFn): Packing | null {
  const profiles = state.profiles;
  const available = new Array<number>(profiles.length).fill(0);
  const destroy: number[] = [];
  let layoutKey = state.fixedKey;
  let occupied = state.fixedSlices;
  let usedCompute = state.fixedCompute;
  let count = state.fixed.length;
  state.idle.forEach((idle, i) => {
    if ((mask & (1 << i)) !== 0) { destroy.push(i); return; }
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
    ...state.fixed, ...state.idle.filter((_, i) => (mask & (1 << i)) === 0).map((g) => g.gi), ...created,
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
    const start = count < state.maxInstances && usedCompute + profile.computeSlices <= state.computeSlices
      && (state.placementSlices[k] ?? []).some((bits) => (occupied & bits) === 0)
      ? place(state, layoutKey, layout, k)
      : null;
    if (start === null) { failed |= 1 << k; continue; }
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
    if (idle === undefined || (occupied & idle.slices) !== 0 || count >= state.maxInstances
      || usedCompute + idle.profile.computeSlices > state.computeSlices
      || !isValidLayout(state.gpu.model, [...layout(), ...kept, idle.gi])) return true;
    occupied |= idle.slices;
    usedCompute += idle.profile.computeSlices;
    count++;
    kept.push(idle.gi);
    return false;
  });
  return { destroy: needed, placed, ge, creates: created.length };
}

/** A cached packing of one mask, with every request either packing order placed (to invalidate it). */
interface CacheEntry {
  readonly packing: Packing | null;
  readonly touches: readonly number[];
}

/**
 * The best subset to destroy on one GPU for `remaining`; null when nothing can be placed there.
 * Each subset is packed in queue order and, when that leaves an eligible request out, also largest
 * profile first (the order in which a batch of GIs fits best); the better packing counts.
 * `cache[mask]` holds packings from earlier rounds that are still exact (see {@link search}).
 */
function bestOnGpu(stateIndex: number, state: GpuState, remaining: readonly Req[], place: PlaceFn, cache: (CacheEntry | undefined)[]): Packing | null {
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

function reserve(state: GpuState, profile: MigProfile, pos: number): void {
  state.reserved.set(profile, [...(state.reserved.get(profile) ?? []), pos]);
  const k = state.profiles.indexOf(profile);
  state.reservedCount[k] = (state.reservedCount[k] ?? 0) + 1;
}

function applyCandidate(candidate: Candidate): void {
  const state = candidate.state;
  const gone = new Set(candidate.destroy);
  state.destroyed.push(...state.idle.filter((_, i) => gone.has(i)));
  state.idle = state.idle.filter((_, i) => !gone.has(i));
  for (const p of candidate.placed) {
    if (p.start === null) {
      reserve(state, p.profile, p.pos);
    } else {
      const gi: MigGpuInstance = { profileId: p.profile.profileId, start: p.start, size: p.profile.memorySlices, inUse: true };
      state.fixed.push(gi);
      state.fixedKey += giBit(state.profiles, gi);
      state.fixedSlices |= sliceBits(gi);
      state.fixedCompute += p.profile.computeSlices;
      state.created.push(p);
    }
  }
}

interface SearchResult {
  readonly states: GpuState[];
  /** pos → placement. */
  readonly placed: Map<number, { state: GpuState; placed: Placed }>;
  readonly ge: number;
  readonly destroys: number;
  readonly creates: number;
}

/** Search states of the usable GPUs (valid layouts of MIG models), in the order given. */
function freshStates(usable: readonly MigPlanGpu[]): GpuState[] {
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
      gpu, profiles,
      placementSlices: profiles.map((p) => p.placementStarts.map((start) => sliceBits({ start, size: p.placementSizeSlices }))),
      computeSlices: geometry?.computeSlices ?? 0,
      maxInstances: geometry?.maxInstances ?? 0,
      fixedKey: fixed.reduce((sum, gi) => sum + giBit(profiles, gi), 0),
      fixedSlices: fixed.reduce((bits, gi) => bits | sliceBits(gi), 0),
      fixedCompute,
      reservedCount: profiles.map(() => 0),
      fixed, idle, destroyed: [], created: [], reserved: new Map(), bound: new Map(),
    };
  });
}

/**
 * Identifies what a packing of a GPU depends on besides the queue: the model, the fixed GIs, the idle
 * GIs in order and the reservations per profile. GPUs with one signature pack identically, since
 * requests choose their profile per model.
 */
function signatureOf(state: GpuState): string {
  const reserved = state.reservedCount.join(',');
  return `${state.profiles[0]?.gpuModel ?? state.gpu.model}|${state.fixedKey}|${state.idle.map((g) => g.bit).join(',')}|${reserved}`;
}

function search(usable: readonly MigPlanGpu[], requests: readonly Req[], reuseFirst: boolean, place: PlaceFn): SearchResult {
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
      if (cache === undefined) { cache = []; caches.set(signature, cache); }
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
      cache.forEach((c, mask) => { if (c?.touches.some((pos) => placed.has(pos))) cache[mask] = undefined; });
    }
  }
  for (const state of states) {
    // Bind reusing requests to idle GIs of their profile: in queue order, lowest start first.
    for (const [profile, positions] of state.reserved) {
      const gis = state.idle.filter((g) => g.profile === profile).map((g) => g.gi);
      [...positions].sort((a, b) => a - b).forEach((pos, i) => {
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
    states, placed, ge,
    destroys: states.reduce((sum, s) => sum + s.destroyed.length, 0),
    creates: states.reduce((sum, s) => sum + s.created.length, 0),
  };
}

/** Negative when search result `a` is the better plan. */
function compareResults(a: SearchResult, b: SearchResult): number {
  return -geCompare(a.ge, b.ge) || a.destroys - b.destroys || a.creates - b.creates
    || earlierFirst([...a.placed.keys()].sort((x, y) => x - y), [...b.placed.keys()].sort((x, y) => x - y));
}

/** Orders profiles largest first: memory slices, then compute slices. */
function largestFirst(a: MigProfile, b: MigProfile): number {
  return b.memorySlices - a.memorySlices || b.computeSlices - a.computeSlices;
}

function formatGe(ge: number): string {
  return (Math.round(ge * 1000) / 1000).toString();
}

/**
 * Plans the MIG layout changes that let the queue run: which idle GIs to destroy, which GIs to
 * create where, and which GI each request gets. See the module comment for the search, its bound and
 * its guarantees, and docs/mig.md ("Planning reconfigurations") for worked examples.
 *
 * GPUs not schedulable, of a model without MIG profiles, or whose layout is invalid
 * ({@link isValidLayout}) are left as they are and get nothing. A request whose profile is a
 * `MigProfile` can go only to GPUs of that profile's model.
 *
 * Example (H100-80GB, idle `1g.10gb` GIs at 0, 1 and 5; queue: one `3g.40gb`): destroy the 1g at 5,
 * create the 3g at 4 (start 0 would need two destroys).
 *
 * @throws RangeError on two GPUs with one index, two requests with one job ID, a request's
 *   gpuEquivalents not positive and finite, or a per-model choice returning a profile of another model.
 */
export function planMigReconfiguration(input: MigReconfigurationInput): MigReconfigurationPlan {
  const indices = new Set<number>();
  for (const gpu of input.gpus) {
    if (indices.has(gpu.gpuIndex)) throw new RangeError(`GPU index ${gpu.gpuIndex} appears twice`);
    indices.add(gpu.gpuIndex);
  }
  const jobIds = new Set<number>();
  for (const r of input.queue) {
    if (jobIds.has(r.jobId)) throw new RangeError(`job ${r.jobId} appears twice in the queue`);
    jobIds.add(r.jobId);
    if (!Number.isFinite(r.gpuEquivalents) || r.gpuEquivalents <= 0) {
      throw new RangeError(`job ${r.jobId}: gpuEquivalents must be positive and finite, got ${r.gpuEquivalents}`);
    }
  }

  const explanation: string[] = [];
  const usable: MigPlanGpu[] = [];
  for (const gpu of [...input.gpus].sort((a, b) => a.gpuIndex - b.gpuIndex)) {
    if (!gpu.schedulable) explanation.push(`GPU ${gpu.gpuIndex}: not schedulable, left as it is`);
    else if (migGeometry(gpu.model) === undefined) explanation.push(`GPU ${gpu.gpuIndex}: ${gpu.model} has no MIG profiles, left as it is`);
    else if (!isValidLayout(gpu.model, gpu.gis)) explanation.push(`GPU ${gpu.gpuIndex}: its GI layout is not valid for ${gpu.model}, left as it is`);
    else usable.push(gpu);
  }

  // A request's profile per model, asked once per model (catalog name), so GPUs of one model agree.
  const requests: Req[] = input.queue.map((r, pos) => {
    const byModel = new Map<string, MigProfile | undefined>();
    const profileOn = (model: string): MigProfile | undefined => {
      const canonical = migProfilesFor(model)[0]?.gpuModel ?? model;
      if (byModel.has(canonical)) return byModel.get(canonical);
      const profile = typeof r.profile === 'function' ? r.profile(canonical) : r.profile;
      const ofModel = profile !== undefined && migProfilesFor(canonical).includes(profile);
      if (typeof r.profile === 'function' && profile !== undefined && !ofModel) {
        throw new RangeError(`job ${r.jobId}: the profile chosen for ${canonical} (${profile.name} of ${profile.gpuModel}) is not a profile of that model`);
      }
      byModel.set(canonical, ofModel ? profile : undefined);
      return byModel.get(canonical);
    };
    const profiles = usable.map((gpu) => profileOn(gpu.model));
    return {
      pos, jobId: r.jobId, ge: r.gpuEquivalents, profiles,
      profileIndexes: profiles.map((p, i) => (p === undefined ? -1 : migProfilesFor(usable[i]?.model ?? '').indexOf(p))),
    };
  });

  const place = memoizedPlace();
  let result = search(usable, requests, false, place);
  const anyIdleReuse = requests.some((r) => usable.some((gpu, i) => {
    const profile = r.profiles[i];
    return profile !== undefined && gpu.gis.some((gi) => !gi.inUse && gi.profileId === profile.profileId && gi.size === profile.memorySlices);
  }));
  if (anyIdleReuse) {
    const reuseFirst = search(usable, requests, true, place);
    if (compareResults(reuseFirst, result) < 0) result = reuseFirst;
  }
  return toPlan(input, requests, result, explanation);
}

function toPlan(input: MigReconfigurationInput, requests: readonly Req[], result: SearchResult, notes: readonly string[]): MigReconfigurationPlan {
  const destroy: MigPlanDestroy[] = [];
  const create: MigPlanCreate[] = [];
  const assignmentByPos = new Map<number, MigPlanAssignment>();
  const jobOf = (pos: number): number => requests[pos]?.jobId ?? -1;
  const perGpuLines: string[] = [];
  /** Per state: the GIs taken after the plan (in use, created, reused), all marked in use. */
  const taken = new Map<GpuState, MigGpuInstance[]>();

  for (const state of result.states) {
    const gpuIndex = state.gpu.gpuIndex;
    const model = state.gpu.model;
    const destroyed = [...state.destroyed].sort((a, b) => a.gi.start - b.gi.start);
    for (const d of destroyed) destroy.push({ gpuIndex, start: d.gi.start, profileId: d.gi.profileId });
    const created = [...state.created].sort((a, b) => largestFirst(a.profile, b.profile) || (a.start ?? 0) - (b.start ?? 0));
    for (const c of created) {
      const start = c.start ?? 0;
      create.push({ gpuIndex, profileId: c.profile.profileId, start, size: c.profile.memorySlices });
      assignmentByPos.set(c.pos, { jobId: jobOf(c.pos), gpuIndex, start, profileId: c.profile.profileId, reused: false });
    }
    const bound = [...state.bound].sort((a, b) => a[0] - b[0]);
    for (const [pos, gi] of bound) {
      assignmentByPos.set(pos, { jobId: jobOf(pos), gpuIndex, start: gi.start, profileId: gi.profileId, reused: true });
    }
    taken.set(state, [...state.fixed, ...bound.map(([, gi]) => gi)].map((gi) => ({ ...gi, inUse: true })).sort((a, b) => a.start - b.start));

    const actions = [
      ...destroyed.map((d) => `destroy ${describeMigGi(model, d.gi)}`),
      ...created.map((c) => `create ${c.profile.name} at ${c.start ?? 0}:${c.profile.memorySlices} for job ${jobOf(c.pos)}`),
    ];
    const reuses = bound.map(([pos, gi]) => `job ${jobOf(pos)} reuses ${describeMigGi(model, gi)}`);
    if (actions.length > 0 || reuses.length > 0) perGpuLines.push(`GPU ${gpuIndex} (${model}): ${[...actions, ...reuses].join('; ')}`);
  }

  const assignments: MigPlanAssignment[] = [];
  const unplaced: MigPlanUnplaced[] = [];
  const unplacedLines: string[] = [];
  const whyNot = new Map<string, string>();
  for (const req of requests) {
    const a = assignmentByPos.get(req.pos);
    if (a !== undefined) { assignments.push(a); continue; }
    const reasons: string[] = [];
    result.states.forEach((state, i) => {
      const profile = req.profiles[i];
      if (profile === undefined) return;
      const key = `${state.gpu.gpuIndex}/${profile.profileId}`;
      let text = whyNot.get(key);
      if (text === undefined) {
        const fit = explainMigFit(state.gpu.model, taken.get(state) ?? [], profile);
        text = fit.fits
          ? `GPU ${state.gpu.gpuIndex}: ${profile.name} would need idle GIs the plan keeps for other requests`
          : `GPU ${state.gpu.gpuIndex}: ${fit.reason}`;
        whyNot.set(key, text);
      }
      reasons.push(text);
    });
    const reason = reasons.length === 0
      ? 'no schedulable MIG GPU with a valid layout offers a profile for it'
      : `does not fit even with every idle GI destroyed — ${reasons.join(' | ')}`;
    unplaced.push({ jobId: req.jobId, reason });
    unplacedLines.push(`job ${req.jobId} not placed: ${reason}`);
  }

  const totalGe = requests.reduce((sum, r) => sum + r.ge, 0);
  const summary = `places ${assignments.length} of ${input.queue.length} request${input.queue.length === 1 ? '' : 's'} `
    + `(${formatGe(result.ge)} of ${formatGe(totalGe)} GPU-equivalents), destroying ${destroy.length} idle GI${destroy.length === 1 ? '' : 's'} `
    + `and creating ${create.length}; ${assignments.filter((a) => a.reused).length} reuse${assignments.filter((a) => a.reused).length === 1 ? 's' : ''} an idle GI`;
  return {
    destroy, create, assignments, unplaced,
    explanation: [summary, ...notes, ...perGpuLines, ...unplacedLines],
    placedGpuEquivalents: result.ge,
  };
}

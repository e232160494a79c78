/**
 * Mode selection for `mode: auto`: the cheapest sharing mode that gives the isolation a job asks
 * for (docs/sharing-modes.md):
 * - whole GPUs (`gpuMilli` = 1000, on one or more GPUs) → `exclusive`;
 * - `strict` → the smallest MIG profile of the GPU model whose usable memory (the profile table's
 *   figure, not its name) covers `gpuMemoryMiB` and whose compute slices cover
 *   ceil(gpuMilli × slices / 1000); on a model without MIG, or when no profile is big enough,
 *   `exclusive` whole GPUs;
 * - `standard` (the default) → `mps` (driver-enforced memory limit and thread share);
 * - `none` → `timeslice`.
 * A request that names only memory gets its compute share from it: gpuMilli = floor(1000 ×
 * gpuMemoryMiB / model memory), at least 1.
 */
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import { migGeometry } from '../mig/mig-profiles.js';
import type { MigProfile } from '../mig/mig-profiles.js';
import { smallestProfileFor } from '../mig/mig-allocator.js';
import type { EffectiveMode, IsolationLevel } from '../model/request.js';

/** The decision for one request on one GPU model. */
export interface ModeSelection {
  readonly mode: EffectiveMode;
  /** The MIG profile for `mig`; null otherwise. */
  readonly migProfile: MigProfile | null;
  /**
   * Why this mode, for `gpushare show` (e.g. `strict isolation: 3g.20gb is the smallest MIG profile with ≥ 15360 MiB
   * and ≥ 2 compute slices`).
   */
  readonly reason: string;
}

/**
 * compute share per GPU in milli-GPU: as given, or (memory only) the share of the model's memory,
 * rounded down, 1..1000. Rounding down keeps memory-only requests that together ask for exactly
 * one GPU's memory within its 1000 milli-GPU (three 8 GiB requests on a 24 GiB GPU get 333 each,
 * not 334), as long as each asks for at least 1/1000 of the memory (below that the share is 1).
 */
export function effectiveGpuMilli(
  gpuMilli: number | null,
  gpuMemoryMiB: number | null,
  modelMemoryMiB: number,
): number {
  if (gpuMilli !== null) return gpuMilli;
  if (gpuMemoryMiB === null || modelMemoryMiB <= 0) return GPU_MILLI_PER_GPU;
  return Math.min(GPU_MILLI_PER_GPU, Math.max(1, Math.floor((GPU_MILLI_PER_GPU * gpuMemoryMiB) / modelMemoryMiB)));
}

/**
 * Chooses the mode for `mode: auto` on a GPU of `model` (catalog name) with `modelMemoryMiB`.
 * Pure; never throws for a valid request.
 */
export function selectMode(
  request: { gpuMilli: number; gpuMemoryMiB: number | null; isolation: IsolationLevel },
  model: string,
  modelMemoryMiB: number,
): ModeSelection {
  const { gpuMilli, isolation } = request;
  if (gpuMilli >= GPU_MILLI_PER_GPU) return { mode: 'exclusive', migProfile: null, reason: 'whole GPUs run exclusive' };
  if (isolation === 'none') return { mode: 'timeslice', migProfile: null, reason: 'isolation none: time-slicing' };
  if (isolation === 'standard')
    return {
      mode: 'mps',
      migProfile: null,
      reason: "isolation standard: MPS (memory limit per process where the GPU's MPS daemon runs)",
    };
  const geometry = migGeometry(model);
  if (!geometry)
    return { mode: 'exclusive', migProfile: null, reason: `strict isolation: ${model} has no MIG, so a whole GPU` };
  const memory = request.gpuMemoryMiB ?? Math.floor((gpuMilli * modelMemoryMiB) / GPU_MILLI_PER_GPU);
  const profile = smallestProfileFor(model, { gpuMilli, gpuMemoryMiB: memory });
  if (!profile)
    return {
      mode: 'exclusive',
      migProfile: null,
      reason: `strict isolation: no MIG profile of ${model} has ${memory} MiB and enough compute, so a whole GPU`,
    };
  const slices = Math.ceil((gpuMilli * geometry.computeSlices) / GPU_MILLI_PER_GPU);
  return {
    mode: 'mig',
    migProfile: profile,
    reason:
      `strict isolation: ${profile.name} is the smallest MIG profile of ${model} with ≥ ${memory} MiB (` +
      `${profile.usableMemoryMiB} usable) and ≥ ${slices} compute slice(s)`,
  };
}

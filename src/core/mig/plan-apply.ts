/**
 * Applying a MIG reconfiguration plan (src/core/mig/plan-reconfiguration.ts) to a GPU's layout: the
 * part of a plan for one GPU, and the layouts met while applying it. Pure.
 */
import type { MigGpuInstance } from './mig-allocator.js';
import type { MigGpuPlanPart, MigGpuPlanPartView, MigReconfigurationPlan } from './plan-types.js';

/** The destroys and creates of `plan` for GPU `gpuIndex`, in plan order (empty lists when none). */
export function migPlanForGpu(
  plan: Pick<MigReconfigurationPlan, 'destroy' | 'create'>,
  gpuIndex: number,
): MigGpuPlanPart {
  return {
    destroy: plan.destroy.filter((d) => d.gpuIndex === gpuIndex).map(({ start, profileId }) => ({ start, profileId })),
    create: plan.create
      .filter((c) => c.gpuIndex === gpuIndex)
      .map(({ profileId, start, size }) => ({ profileId, start, size })),
  };
}

/**
 * The layouts met while applying `part` to `gis`: one after each destroy, then one after each
 * create, in order. A destroyed GI is removed; a created GI is appended idle (`inUse: false`) — the
 * job assigned to it marks it in use when it starts. Geometry is not checked (no model here): check
 * each layout with `isValidLayout` (mig-allocator.ts).
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
    if (target.inUse)
      throw new RangeError(
        `the GI of profile ID ${d.profileId} at ${d.start}:${target.size} is in use and cannot be destroyed`,
      );
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

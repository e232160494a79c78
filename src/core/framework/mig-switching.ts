/**
 * MIG mode on demand (`ClusterStateOptions.migModeOnDemand`): a `mig` job that finds no room on
 * the MIG GPUs of its node switches the node's empty GPUs into MIG mode, lowest index first, one at
 * a time, until it fits. The switches it does not land on are undone (all of them when it still
 * does not fit), so a GPU enters MIG mode only to host an instance. The placement marks each GPU it
 * switched with `migChanges.enableMig`, so that the caller switches it before creating the instance.
 */
import type { MigChanges, Placement } from '../model/assignment.js';
import type { DeviceState } from './unit-groups.js';

const NO_CHANGES: MigChanges = { destroy: [], create: [] };

/**
 * Places a job by switching GPUs into MIG mode as needed.
 * @param switchable the node's GPUs that may switch (empty, schedulable, not in MIG mode), by ascending index
 * @param setMig switches one GPU into MIG mode (true) or back (false)
 * @param place the MIG allocator's placement on the node as its GPUs are now; null when it finds none
 * @returns the placement, with `migChanges.enableMig` on the GPUs switched for it, or null (nothing left switched)
 */
export function placeSwitchingIntoMig(
  switchable: readonly DeviceState[],
  setMig: (state: DeviceState, enabled: boolean) => void,
  place: () => Placement | null,
): Placement | null {
  const switched: DeviceState[] = [];
  let placement: Placement | null = null;
  for (const state of switchable) {
    setMig(state, true);
    switched.push(state);
    placement = place();
    if (placement !== null) break;
  }
  if (placement === null) {
    for (const state of switched.reverse()) setMig(state, false);
    return null;
  }
  const used = new Set(placement.gpus.map((g) => g.index));
  for (const state of switched) if (!used.has(state.device.index)) setMig(state, false);
  const enabled = new Set(switched.map((s) => s.device.index).filter((i) => used.has(i)));
  return {
    ...placement,
    gpus: placement.gpus.map((g) =>
      enabled.has(g.index) ? { ...g, migChanges: { ...(g.migChanges ?? NO_CHANGES), enableMig: true } } : g,
    ),
  };
}

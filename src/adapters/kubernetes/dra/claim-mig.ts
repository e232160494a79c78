/**
 * The MIG instance of a claim's `mig` device: made ready at prepare (used when it exists, created
 * at its placement otherwise) and destroyed at unprepare, through the MigManager port.
 */
import type { MigInstanceState, MigManager } from '../../../app/ports/mig-manager.js';
import type { AllocatedDevice } from './claim-allocation.js';
import type { CreatedMigInstance } from './claim-checkpoint.js';
import { PREPARE_ERROR_CODES, PrepareFailure } from './prepare-failure.js';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Destroys a GPU instance a claim created; done when it is already gone.
 * @throws Error when it is still there after the destroy
 */
export async function destroyMigInstance(mig: MigManager, created: CreatedMigInstance): Promise<void> {
  const result = await mig.apply(created.gpuIndex, {
    destroy: [{ start: created.start, profileId: created.profileId, gpuInstanceId: created.gpuInstanceId }],
    create: [],
  });
  if (!result.ok && result.destroyed === 0) {
    const still = (await mig.listInstances(created.gpuIndex)).some(
      (i) => i.gpuInstanceId === created.gpuInstanceId && i.start === created.start,
    );
    if (still) throw new Error(result.error ?? 'the GPU instance is still there');
  }
}

/**
 * The MIG device UUID of `device`'s placement: the existing instance's, or a new one's (pushed on
 * `created`, even when the create then fails, so the caller can undo it).
 * @throws PrepareFailure MigCreateFailed
 */
export async function ensureMigInstance(
  mig: MigManager,
  device: AllocatedDevice,
  created: CreatedMigInstance[],
): Promise<string> {
  const placement = device.mig!;
  const index = device.gpu.index;
  const fail = (why: string): PrepareFailure =>
    new PrepareFailure(
      PREPARE_ERROR_CODES.migCreateFailed,
      { device: device.device, gpu: index, profileId: placement.profileId, start: placement.start },
      `the MIG instance ${placement.profileName} at slice ${placement.start} of GPU ${index} (device ` +
        `${device.device}) could not be made ready: ${why}`,
    );
  let existing: MigInstanceState | undefined;
  try {
    existing = (await mig.listInstances(index)).find(
      (i) => i.profileId === placement.profileId && i.start === placement.start,
    );
  } catch (error) {
    throw fail(messageOf(error));
  }
  if (existing !== undefined) {
    if (existing.migDeviceUuid === null) throw fail('it exists without a MIG device (no compute instance)');
    return existing.migDeviceUuid;
  }
  let made: MigInstanceState | undefined;
  try {
    const result = await mig.apply(index, {
      destroy: [],
      create: [{ profileId: placement.profileId, start: placement.start }],
    });
    made = result.created[0];
    if (made !== undefined)
      created.push({
        gpuIndex: index,
        profileId: made.profileId,
        start: made.start,
        gpuInstanceId: made.gpuInstanceId,
      });
    if (!result.ok || made === undefined) throw new Error(result.error ?? 'not created');
  } catch (error) {
    throw fail(messageOf(error));
  }
  if (made.migDeviceUuid === null) throw fail('it was created without a MIG device UUID');
  return made.migDeviceUuid;
}

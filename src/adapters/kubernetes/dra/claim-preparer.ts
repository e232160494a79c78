/**
 * NodePrepareResources and NodeUnprepareResources for one node, apart from gRPC: reads the claim,
 * resolves its allocation (claim-allocation.ts), makes sure each MIG placement's GPU instance
 * exists (through the MigManager port: nvidia-smi, or the stand-in for simulated GPUs), starts the
 * MPS daemon of each GPU of an `mps` share, writes the claim's CDI spec (claim-cdi.ts) and
 * checkpoints the claim (claim-checkpoint.ts). Idempotent: a claim UID already checkpointed is
 * answered from the checkpoint, creating nothing; an unknown UID unprepares as a success. Calls
 * run one at a time (a queue), so the checkpoint is never written by two at once.
 *
 * Per-claim failures are {@link PrepareFailure}s (code, details, message): the gRPC service puts
 * `<code>: <message>` in the claim's `error` and the kubelet retries. What a failed prepare made
 * (a MIG instance, the spec file) is undone before it answers.
 *
 * Known limit: a driver killed between creating a MIG instance and writing the checkpoint leaves
 * the instance; the next prepare of that claim finds and uses it, but does not count it as its
 * own, so its unprepare keeps it.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MigManager } from '../../../app/ports/mig-manager.js';
import type { MpsDaemons } from '../device-plugin/prepare-container.js';
import { writeFileAtomic } from '../atomic-file.js';
import {
  allocatedDevices,
  ClaimAllocationError,
  type AllocatedDevice,
  type NodeGpu,
  type ResourceClaimObject,
} from './claim-allocation.js';
import {
  claimCdiDeviceId,
  claimCdiSpec,
  claimCdiSpecFileName,
  claimContainerEdits,
  claimMode,
  deviceIdOf,
  type ReadyDevice,
} from './claim-cdi.js';
import type { ClaimCheckpoint, CreatedMigInstance, PreparedClaim, PreparedDevice } from './claim-checkpoint.js';
import { destroyMigInstance, ensureMigInstance } from './claim-mig.js';
import { PREPARE_ERROR_CODES, PrepareFailure } from './prepare-failure.js';

/** Reads a ResourceClaim from the API server. */
export interface ClaimReader {
  /** Rejects with {@link ClaimNotFoundError} when there is no such claim, else with the transport's error. */
  read(namespace: string, name: string): Promise<ResourceClaimObject>;
}

/** The claim does not exist (HTTP 404). */
export class ClaimNotFoundError extends Error {
  override readonly name = 'ClaimNotFoundError';
}

/** What the preparer needs. */
export interface ClaimPreparerDeps {
  readonly nodeName: string;
  /** This node's GPUs (index, UUID, model, memory). */
  readonly gpus: readonly NodeGpu[];
  readonly claims: ClaimReader;
  readonly mig: MigManager;
  /** MPS daemons; null where MPS is not offered (an `mps` share then fails with MpsDaemonFailed). */
  readonly mps: MpsDaemons | null;
  /** Where the claims' CDI specs are written. */
  readonly cdiDir: string;
  readonly checkpoint: ClaimCheckpoint;
}

/** A claim prepared (or found prepared). */
export interface PreparedOutcome {
  readonly devices: readonly PreparedDevice[];
  /** False when the answer came from the checkpoint. */
  readonly created: boolean;
}

/** The preparer. */
export interface ClaimPreparer {
  /** Prepares one claim. Rejects only with {@link PrepareFailure}. */
  prepare(claim: { namespace: string; name: string; uid: string }): Promise<PreparedOutcome>;
  /** Unprepares one claim (unknown UID: done). Rejects only with {@link PrepareFailure}. */
  unprepare(uid: string): Promise<void>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Creates the preparer. */
export function createClaimPreparer(deps: ClaimPreparerDeps): ClaimPreparer {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function pipeDirectories(ready: readonly ReadyDevice[]): Promise<Map<string, string> | null> {
    if (claimMode(ready) !== 'mps') return null;
    const byDevice = new Map<string, string>();
    for (const id of new Set(ready.map(deviceIdOf))) {
      if (deps.mps === null)
        throw new PrepareFailure(
          PREPARE_ERROR_CODES.mpsFailed,
          { device: id },
          `the claim asks for MPS, but node ${deps.nodeName} runs no MPS daemons`,
        );
      try {
        byDevice.set(id, (await deps.mps.ensureDaemon({ key: id })).pipeDirectory);
      } catch (error) {
        throw new PrepareFailure(
          PREPARE_ERROR_CODES.mpsFailed,
          { device: id },
          `the MPS daemon of ${id} did not start: ${messageOf(error)}`,
        );
      }
    }
    return byDevice;
  }

  async function prepareNew(claim: { namespace: string; name: string; uid: string }): Promise<PreparedOutcome> {
    const label = `${claim.namespace}/${claim.name}`;
    let object: ResourceClaimObject;
    try {
      object = await deps.claims.read(claim.namespace, claim.name);
    } catch (error) {
      if (error instanceof ClaimNotFoundError)
        throw new PrepareFailure(PREPARE_ERROR_CODES.notFound, { claim: label }, `claim ${label} does not exist`);
      throw new PrepareFailure(
        PREPARE_ERROR_CODES.readFailed,
        { claim: label },
        `claim ${label} could not be read: ${messageOf(error)}`,
      );
    }
    let allocated: AllocatedDevice[];
    try {
      allocated = allocatedDevices(object, claim.uid, deps.nodeName, deps.gpus);
    } catch (error) {
      if (error instanceof ClaimAllocationError) throw new PrepareFailure(error.code, error.details, error.message);
      throw error;
    }
    const created: CreatedMigInstance[] = [];
    let specFile: string | null = null;
    try {
      const ready: ReadyDevice[] = [];
      for (const device of allocated)
        ready.push({
          allocated: device,
          migDeviceUuid: device.kind === 'mig' ? await ensureMigInstance(deps.mig, device, created) : null,
        });
      if (ready.length > 0) {
        const pipes = await pipeDirectories(ready);
        const edits = claimContainerEdits(deps.nodeName, ready, pipes === null ? null : { byDevice: pipes });
        const path = join(deps.cdiDir, claimCdiSpecFileName(claim.uid));
        try {
          await writeFileAtomic(path, `${JSON.stringify(claimCdiSpec(claim.uid, ready, edits), null, 2)}\n`, {
            fileMode: 0o644,
            directoryMode: 0o755,
          });
        } catch (error) {
          throw new PrepareFailure(
            PREPARE_ERROR_CODES.cdiFailed,
            { claim: label, file: path },
            `the CDI spec ${path} could not be written: ${messageOf(error)}`,
          );
        }
        specFile = path;
      }
      const devices: PreparedDevice[] = allocated.map((d) => ({
        request: d.request,
        pool: d.pool,
        device: d.device,
        shareId: d.shareId,
        cdiDeviceIds: [claimCdiDeviceId(claim.uid, d.device)],
      }));
      const entry: PreparedClaim = {
        namespace: claim.namespace,
        name: claim.name,
        devices,
        specFile,
        migCreated: created,
      };
      try {
        await deps.checkpoint.put(claim.uid, entry);
      } catch (error) {
        throw new PrepareFailure(
          PREPARE_ERROR_CODES.checkpointFailed,
          { claim: label, file: deps.checkpoint.file },
          `the checkpoint ${deps.checkpoint.file} could not be written: ${messageOf(error)}`,
        );
      }
      return { devices, created: true };
    } catch (error) {
      if (specFile !== null) await rm(specFile, { force: true });
      for (const c of created.reverse()) await destroyMigInstance(deps.mig, c).catch(() => undefined);
      throw error;
    }
  }

  async function unprepareOne(uid: string): Promise<void> {
    const entry = deps.checkpoint.get(uid);
    if (entry === undefined) return;
    if (entry.specFile !== null) await rm(entry.specFile, { force: true });
    for (const created of entry.migCreated) {
      try {
        await destroyMigInstance(deps.mig, created);
      } catch (error) {
        throw new PrepareFailure(
          PREPARE_ERROR_CODES.migDestroyFailed,
          { claimUid: uid, gpu: created.gpuIndex, gpuInstanceId: created.gpuInstanceId },
          `GPU instance ${created.gpuInstanceId} of GPU ${created.gpuIndex} could not be destroyed: ` +
            messageOf(error),
        );
      }
    }
    try {
      await deps.checkpoint.remove(uid);
    } catch (error) {
      throw new PrepareFailure(
        PREPARE_ERROR_CODES.checkpointFailed,
        { claimUid: uid, file: deps.checkpoint.file },
        `the checkpoint ${deps.checkpoint.file} could not be written: ${messageOf(error)}`,
      );
    }
  }

  return {
    prepare: (claim) =>
      serial(async () => {
        const known = deps.checkpoint.get(claim.uid);
        return known !== undefined ? { devices: known.devices, created: false } : prepareNew(claim);
      }),
    unprepare: (uid) => serial(() => unprepareOne(uid)),
  };
}

/**
 * PreStartContainer's work: find the pod that holds a container's slots, read that pod's gpushare
 * assignment and write the CDI spec of each slot from it. The kubelet's calls carry device ids,
 * not the pod, so the pod is found through the kubelet's own record of who holds those ids (the
 * PodResources API), never by a node-wide lock, a timer or by matching amounts.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { POD_ANNOTATIONS } from '../schema/names.js';
import { assignedDeviceIds, parseAssignment, type PodAssignment } from '../schema/pod-assignment.js';
import { cdiSpecFor, containerEditsFor, type MpsPipeDirectories } from './cdi-spec.js';
import { cdiSpecFileName, writeCdiSpec } from './cdi-writer.js';
import { findDeviceHolders, type PodResourcesLister, type SlotHolder } from './pod-resources-client.js';
import type { PodSource } from './pod-source.js';

/** A failed device plugin call: the gRPC status code the kubelet gets and the message it shows. */
export class DevicePluginCallError extends Error {
  override readonly name = 'DevicePluginCallError';
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

/** The MPS daemons of the node (the app port MpsControl fits): one per GPU or MIG device UUID. */
export interface MpsDaemons {
  /** Makes sure the device's daemon runs; resolves with its pipe directory. Rejects when it cannot. */
  ensureDaemon(device: { key: string }): Promise<{ pipeDirectory: string }>;
}

/** What preparing a container needs. */
export interface PrepareContainerDeps {
  /** This node's name: an assignment naming another node is refused. */
  readonly nodeName: string;
  /** The plugin's resource name (`gpushare.io/gpu-slot`). */
  readonly resourceName: string;
  readonly podResources: PodResourcesLister;
  readonly pods: PodSource;
  /** Directory the CDI specs are written to. */
  readonly cdiDir: string;
  /** MPS daemons; null where MPS is not offered (an `mps` pod then fails with a message saying so). */
  readonly mps: MpsDaemons | null;
  /** Limit on reading the pod, ms (the kubelet gives PreStartContainer 30 s in all). @defaultValue 20000 */
  readonly podReadTimeoutMs?: number;
  /** This node's GPUs (index → UUID): an assignment naming a GPU the node does not have is refused. */
  readonly gpus?: readonly { readonly index: number; readonly uuid: string }[];
}

/** A container made ready to start. */
export interface PreparedContainer {
  readonly holder: SlotHolder;
  readonly assignment: PodAssignment;
  /** The device UUIDs the container gets (CUDA_VISIBLE_DEVICES). */
  readonly deviceIds: readonly string[];
  /** The spec files written, one per slot. */
  readonly specFiles: readonly string[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The message for a pod the extender did not place here. */
export function notPlacedMessage(namespace: string, pod: string, why: string): string {
  return (
    `pod ${namespace}/${pod} was not placed by the gpushare extender (${why}); gpushare nodes give GPUs ` +
    `only to pods the gpushare extender binds: schedule it with the gpushare scheduler`
  );
}

async function pipeDirectories(
  deps: PrepareContainerDeps,
  holder: SlotHolder,
  assignment: PodAssignment,
): Promise<MpsPipeDirectories | null> {
  if (assignment.mode !== 'mps') return null;
  if (deps.mps === null)
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      `pod ${holder.namespace}/${holder.pod} is assigned MPS, but node ${deps.nodeName} runs no MPS daemons`,
    );
  const byDevice = new Map<string, string>();
  for (const id of assignedDeviceIds(assignment)) {
    try {
      byDevice.set(id, (await deps.mps.ensureDaemon({ key: id })).pipeDirectory);
    } catch (error) {
      throw new DevicePluginCallError(
        status.UNAVAILABLE,
        `the MPS daemon of ${id} for pod ${holder.namespace}/${holder.pod} did not start: ${messageOf(error)}`,
      );
    }
  }
  return { byDevice };
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Prepares the container holding `slotIds` (see {@link prepareSlots}); when that fails, the slots'
 * spec files are removed, so that no spec written for an earlier holder of a slot outlives a
 * refusal.
 */
export async function prepareContainer(
  deps: PrepareContainerDeps,
  slotIds: readonly string[],
): Promise<PreparedContainer> {
  try {
    return await prepareSlots(deps, slotIds);
  } catch (error) {
    await Promise.all(
      slotIds.map((slot) => rm(join(deps.cdiDir, cdiSpecFileName(slot)), { force: true }).catch(() => undefined)),
    );
    throw error;
  }
}

/**
 * Steps: (1) List the kubelet's PodResources and find the one container holding every id in
 * `slotIds`; (2) read its pod; (3) check the pod's assignment exists, is readable and names this
 * node, and that the container is the one the pod's `gpushare.io/container` names (when present);
 * (4) for `mps`, make sure each assigned device's daemon runs; (5) write one CDI spec per slot.
 * @throws DevicePluginCallError: INVALID_ARGUMENT (no ids), UNAVAILABLE (PodResources or pod source
 *   unreadable, MPS daemon failed), NOT_FOUND (no container holds the ids, pod gone),
 *   FAILED_PRECONDITION (ids held twice, no or foreign assignment, wrong container, MPS not
 *   offered), INTERNAL (spec not written)
 */
async function prepareSlots(deps: PrepareContainerDeps, slotIds: readonly string[]): Promise<PreparedContainer> {
  if (slotIds.length === 0)
    throw new DevicePluginCallError(status.INVALID_ARGUMENT, 'PreStartContainer named no devices');
  let pods;
  try {
    pods = await deps.podResources.list();
  } catch (error) {
    throw new DevicePluginCallError(status.UNAVAILABLE, `cannot list the kubelet's pod resources: ${messageOf(error)}`);
  }
  const holders = findDeviceHolders(pods, deps.resourceName, slotIds);
  if (holders.length === 0)
    throw new DevicePluginCallError(
      status.NOT_FOUND,
      `no container holds ${deps.resourceName} ${slotIds.join(',')} in the kubelet's pod resources`,
    );
  if (holders.length > 1) {
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      `${deps.resourceName} ${slotIds.join(',')} are held by several containers: ` +
        `${holders.map((h) => `${h.namespace}/${h.pod}/${h.container}`).join(', ')}`,
    );
  }
  const holder = holders[0]!;
  const name = `${holder.namespace}/${holder.pod}`;
  let pod;
  try {
    pod = await withTimeout(deps.pods.getPod(holder.namespace, holder.pod), deps.podReadTimeoutMs ?? 20_000);
  } catch (error) {
    throw new DevicePluginCallError(status.UNAVAILABLE, `cannot read pod ${name}: ${messageOf(error)}`);
  }
  if (pod === null)
    throw new DevicePluginCallError(status.NOT_FOUND, `pod ${name} (holder of ${slotIds.join(',')}) does not exist`);
  const parsed = parseAssignment(pod.annotations);
  if (parsed === null)
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      notPlacedMessage(holder.namespace, holder.pod, `it has no ${POD_ANNOTATIONS.assignment} annotation`),
    );
  if ('error' in parsed)
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      notPlacedMessage(holder.namespace, holder.pod, parsed.error),
    );
  if (parsed.node !== deps.nodeName) {
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      notPlacedMessage(
        holder.namespace,
        holder.pod,
        `its assignment names node ${parsed.node}, this is node ${deps.nodeName}`,
      ),
    );
  }
  if (deps.gpus !== undefined) {
    const uuidOf = new Map(deps.gpus.map((g) => [g.index, g.uuid]));
    const foreign = parsed.gpus.find((g) => uuidOf.get(g.index) !== g.uuid);
    if (foreign !== undefined) {
      throw new DevicePluginCallError(
        status.FAILED_PRECONDITION,
        notPlacedMessage(
          holder.namespace,
          holder.pod,
          `its assignment names GPU ${foreign.index} ${foreign.uuid}, which is not a GPU of node ${deps.nodeName}`,
        ),
      );
    }
  }
  const gpuContainer = pod.annotations[POD_ANNOTATIONS.container];
  if (gpuContainer !== undefined && gpuContainer !== holder.container) {
    throw new DevicePluginCallError(
      status.FAILED_PRECONDITION,
      `container ${holder.container} of pod ${name} holds ${deps.resourceName}, but ` +
        `${POD_ANNOTATIONS.container} gives the GPUs to container ${gpuContainer}`,
    );
  }
  const edits = containerEditsFor(parsed, await pipeDirectories(deps, holder, parsed));
  const specFiles: string[] = [];
  for (const slot of slotIds) {
    try {
      specFiles.push(await writeCdiSpec(deps.cdiDir, slot, cdiSpecFor(slot, edits)));
    } catch (error) {
      throw new DevicePluginCallError(
        status.INTERNAL,
        `cannot write the CDI spec of ${slot} for pod ${name} in ${deps.cdiDir}: ${messageOf(error)}`,
      );
    }
  }
  return { holder, assignment: parsed, deviceIds: assignedDeviceIds(parsed), specFiles };
}

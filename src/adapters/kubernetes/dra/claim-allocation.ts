/**
 * What a claim's allocation gives this node: the devices of driver `gpu.gpushare.io` in this
 * node's pool, each resolved to the GPU (and MIG placement) it stands for, with the share it
 * consumes and its sharing mode. Pure: the preparer reads the claim and acts on the answer.
 *
 * - `gpu-<i>` (whole): the GPU, 1000 milli-GPU and all its memory, mode `exclusive`;
 * - `gpu-<i>-shared`: the GPU with the allocation's `consumedCapacity` (`gpuMilli`, `memory` in
 *   MiB, rounded up); a capacity the claim did not name was consumed at its policy default, 0
 *   (resource-slices.ts sharedRequestPolicies): compute or memory not reserved. Mode from the
 *   driver's opaque config (share-config.ts), `timeslice` by default;
 * - `gpu-<i>-mig-<profileId>-<start>`: the MIG placement (profile from the catalog), mode `mig`.
 *
 * Facts: `status.allocation.devices.results[]` = {request, driver, pool, device, shareID,
 * consumedCapacity} (../shared docs K8S-DRA-CONTRACTS.md §1.5, §2.1); the kubelet sends only the
 * claim's identity, so the driver reads the claim and checks its UID (§3.2).
 */
import { migGeometry, migProfilesFor } from '../../../core/index.js';
import { quantityValue } from '../schema/quantity.js';
import { DRA_CAPACITY, DRA_DRIVER } from './dra-names.js';
import { shareModeFor, ShareConfigError, type AllocatedConfig } from './share-config.js';

/** A GPU of this node, as the driver discovered it. */
export interface NodeGpu {
  readonly index: number;
  readonly uuid: string;
  readonly model: string;
  readonly gpuMemoryMiB: number;
}

/** The MIG placement a `mig` device stands for. */
export interface MigPlacement {
  readonly profileId: number;
  readonly profileName: string;
  readonly start: number;
  readonly size: number;
  readonly computeSlices: number;
}

/** One device of a claim's allocation, resolved on this node. */
export interface AllocatedDevice {
  /** The request it was allocated for (`req` or `req/sub`). */
  readonly request: string;
  /** Pool (this node's name) and device name, as in the allocation. */
  readonly pool: string;
  readonly device: string;
  /** The allocation's shareID (shared devices); null otherwise. */
  readonly shareId: string | null;
  readonly kind: 'gpu' | 'shared' | 'mig';
  readonly gpu: NodeGpu;
  /** Compute share, milli-GPU (0 = not reserved). */
  readonly gpuMilli: number;
  /** Memory, MiB (0 = not reserved). */
  readonly memoryMiB: number;
  readonly mode: 'exclusive' | 'timeslice' | 'mps' | 'mig';
  /** For `mig`: the placement; else null. */
  readonly mig: MigPlacement | null;
}

/** Codes of {@link ClaimAllocationError}. */
export const CLAIM_ERROR_CODES = {
  uidMismatch: 'ClaimUidMismatch',
  notAllocated: 'ClaimNotAllocated',
  unknownDevice: 'UnknownDevice',
  badCapacity: 'InvalidConsumedCapacity',
  badConfig: 'InvalidDriverConfig',
} as const;

/** Why a claim cannot be prepared here: a code and structured details. */
export class ClaimAllocationError extends Error {
  override readonly name = 'ClaimAllocationError';
  constructor(
    readonly code: (typeof CLAIM_ERROR_CODES)[keyof typeof CLAIM_ERROR_CODES],
    readonly details: Readonly<Record<string, string | number>>,
    message: string,
  ) {
    super(message);
  }
}

/** The fields of a `resource.k8s.io/v1` ResourceClaim the driver reads. */
export interface ResourceClaimObject {
  readonly metadata: { readonly namespace?: string; readonly name: string; readonly uid: string };
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: readonly {
          readonly request: string;
          readonly driver: string;
          readonly pool: string;
          readonly device: string;
          readonly shareID?: string;
          readonly consumedCapacity?: Readonly<Record<string, string>>;
        }[];
        readonly config?: readonly AllocatedConfig[];
      };
    };
  };
}

const WHOLE = /^gpu-(\d+)$/;
const SHARED = /^gpu-(\d+)-shared$/;
const MIG = /^gpu-(\d+)-mig-(\d+)-(\d+)$/;

function capacity(
  consumed: Readonly<Record<string, string>> | undefined,
  name: string,
  device: string,
  scale: number,
): number {
  const raw = consumed?.[name];
  if (raw === undefined) return 0;
  const value = quantityValue(raw);
  if (value === null)
    throw new ClaimAllocationError(
      CLAIM_ERROR_CODES.badCapacity,
      { device, capacity: name, value: raw },
      `consumedCapacity.${name} of device ${device} is not a quantity: ${raw}`,
    );
  return Math.max(0, Math.ceil(value / scale - 1e-9));
}

/**
 * The devices `claim` was given in pool `nodeName` of this driver, in allocation order.
 * @param expectedUid the UID the kubelet named: a claim with another UID was deleted and recreated
 * @throws ClaimAllocationError (uid mismatch, not allocated, a device this node does not have,
 *   a consumed capacity that is no quantity, a bad opaque config)
 */
export function allocatedDevices(
  claim: ResourceClaimObject,
  expectedUid: string,
  nodeName: string,
  gpus: readonly NodeGpu[],
): AllocatedDevice[] {
  const name = `${claim.metadata.namespace ?? ''}/${claim.metadata.name}`;
  if (claim.metadata.uid !== expectedUid)
    throw new ClaimAllocationError(
      CLAIM_ERROR_CODES.uidMismatch,
      { claim: name, expectedUid, foundUid: claim.metadata.uid },
      `claim ${name} has UID ${claim.metadata.uid}, not ${expectedUid}`,
    );
  const allocation = claim.status?.allocation;
  if (allocation === undefined)
    throw new ClaimAllocationError(CLAIM_ERROR_CODES.notAllocated, { claim: name }, `claim ${name} is not allocated`);
  const configs = allocation.devices?.config ?? [];
  const byIndex = new Map(gpus.map((g) => [g.index, g]));
  const unknown = (device: string, why: string): ClaimAllocationError =>
    new ClaimAllocationError(
      CLAIM_ERROR_CODES.unknownDevice,
      { claim: name, device, node: nodeName },
      `device ${device} of claim ${name} ${why} on node ${nodeName}`,
    );
  const gpuOf = (device: string, index: string): NodeGpu => {
    const gpu = byIndex.get(Number(index));
    if (gpu === undefined) throw unknown(device, `names GPU ${index}, which does not exist`);
    return gpu;
  };
  const modeFor = (request: string): 'timeslice' | 'mps' => {
    try {
      return shareModeFor(configs, request);
    } catch (error) {
      if (!(error instanceof ShareConfigError)) throw error;
      throw new ClaimAllocationError(
        CLAIM_ERROR_CODES.badConfig,
        { claim: name, field: error.field, allowed: error.allowed.join('|'), found: error.found },
        `claim ${name}: ${error.message}`,
      );
    }
  };
  const out: AllocatedDevice[] = [];
  for (const r of allocation.devices?.results ?? []) {
    if (r.driver !== DRA_DRIVER || r.pool !== nodeName) continue;
    const base = { request: r.request, pool: r.pool, device: r.device, shareId: r.shareID ?? null };
    let m: RegExpExecArray | null;
    if ((m = WHOLE.exec(r.device))) {
      const gpu = gpuOf(r.device, m[1]!);
      out.push({
        ...base,
        kind: 'gpu',
        gpu,
        gpuMilli: 1000,
        memoryMiB: gpu.gpuMemoryMiB,
        mode: 'exclusive',
        mig: null,
      });
    } else if ((m = SHARED.exec(r.device))) {
      const gpu = gpuOf(r.device, m[1]!);
      out.push({
        ...base,
        kind: 'shared',
        gpu,
        gpuMilli: Math.min(1000, capacity(r.consumedCapacity, DRA_CAPACITY.gpuMilli, r.device, 1)),
        memoryMiB: Math.min(gpu.gpuMemoryMiB, capacity(r.consumedCapacity, DRA_CAPACITY.memory, r.device, 2 ** 20)),
        mode: modeFor(r.request),
        mig: null,
      });
    } else if ((m = MIG.exec(r.device))) {
      const gpu = gpuOf(r.device, m[1]!);
      const profileId = Number(m[2]);
      const start = Number(m[3]);
      const profile = migProfilesFor(gpu.model).find(
        (p) => p.profileId === profileId && p.placementStarts.includes(start),
      );
      const geometry = migGeometry(gpu.model);
      if (profile === undefined || geometry === undefined)
        throw unknown(r.device, `names MIG profile ${profileId} at slice ${start}, which ${gpu.model} does not have`);
      out.push({
        ...base,
        kind: 'mig',
        gpu,
        gpuMilli: Math.floor((1000 * profile.computeSlices) / geometry.computeSlices),
        memoryMiB: profile.usableMemoryMiB,
        mode: 'mig',
        mig: {
          profileId,
          profileName: profile.name,
          start,
          size: profile.placementSizeSlices,
          computeSlices: profile.computeSlices,
        },
      });
    } else {
      throw unknown(r.device, 'is not a device this driver publishes');
    }
  }
  return out;
}

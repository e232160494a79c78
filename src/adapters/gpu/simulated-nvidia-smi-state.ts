// The stand-in nvidia-smi's state (simulated-nvidia-smi.ts): GPUs with models and MIG layouts,
// their types, the exit codes, a fresh state from a GPU spec, MIG device UUIDs, and the check of a
// parsed state. See docs/gpus.md, "The stand-in nvidia-smi".
import { createHash } from 'node:crypto';
import { findGpuModel, findMigProfile } from '../../core/index.js';
import { DEFAULT_SIMULATION_SEED, simulatedGpuUuid } from './simulated-gpus.js';

/** One compute instance in the stand-in's state. */
export interface SimulatedSmiComputeInstance {
  /** CI ID within its GI. */
  id: number;
  /**
   * CI profile ID (NVML compute-instance profile: 0 = 1 slice, 1 = 2, 2 = 3, 3 = 4, 4 = 7, 5 = 8, 6 = 6, 7 = 1 rev1).
   */
  profileId: number;
}

/** One GPU instance in the stand-in's state. Its size comes from the profile. */
export interface SimulatedSmiGpuInstance {
  /** GI ID. */
  id: number;
  /** GI profile ID on the GPU's model (`-cgi` ID). */
  profileId: number;
  /** First memory slice. */
  start: number;
  computeInstances: SimulatedSmiComputeInstance[];
}

/** One GPU of the stand-in; its index is its position in {@link SimulatedSmiState.gpus}. */
export interface SimulatedSmiGpu {
  /** `GPU-xxxxxxxx-…`. */
  uuid: string;
  /** Catalog model name (src/core/model/gpu-models.ts), e.g. `A100-80GB`. */
  model: string;
  /** Product name `-L` prints, e.g. `NVIDIA A100-SXM4-80GB`. */
  name: string;
  migEnabled: boolean;
  gpuInstances: SimulatedSmiGpuInstance[];
}

/** The stand-in's whole state (the JSON file's content). */
export interface SimulatedSmiState {
  version: 1;
  gpus: SimulatedSmiGpu[];
}

/** What one run printed, its exit code, and the state after it. */
export interface SimulatedSmiResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The state after the command (a copy; the input state is not modified). */
  state: SimulatedSmiState;
  /** True when the command changed the state (created or destroyed something). */
  changed: boolean;
}

/**
 * Exit codes of the stand-in, taken from the RETURN VALUE list of nvidia-smi(1): 0 success, 2 "a
 * supplied argument or flag is invalid", 6 "a query to find an object was unsuccessful", 255 "other
 * error or internal driver error". Which code the real nvidia-smi returns for each MIG failure is
 * not recorded (shared contract notes N.2: "exits non-zero (verify exit code)"); the stand-in's
 * choices are below, and the MigManager relies only on zero vs non-zero plus the printed message.
 */
export const SIMULATED_SMI_EXIT = {
  ok: 0,
  /** Unknown flag, bad value, bad combination, unknown profile, a start that is no placement of the profile. */
  invalidArgument: 2,
  /** No such GPU; no MIG-enabled GPU; no GI / CI to list or destroy. */
  notFound: 6,
  /** Insufficient Resources (creation refused) and In use by another client (GI with CIs). */
  otherError: 255,
  /** The stand-in's own failure: unreadable or locked state file, bad stand-in arguments. */
  standInError: 255,
} as const;

/** Product names `-L` prints per catalog model (real names; they map back via catalogModelForGpuName). */
const PRODUCT_NAMES: Readonly<Record<string, string>> = {
  'A100-40GB': 'NVIDIA A100-SXM4-40GB',
  'A100-80GB': 'NVIDIA A100-SXM4-80GB',
  'H100-80GB': 'NVIDIA H100 80GB HBM3',
  'H200-141GB': 'NVIDIA H200',
  'A30-24GB': 'NVIDIA A30',
  A10: 'NVIDIA A10',
  L4: 'NVIDIA L4',
  T4: 'Tesla T4',
  V100M16: 'Tesla V100-SXM2-16GB',
  V100M32: 'Tesla V100-SXM2-32GB',
  P100: 'Tesla P100-PCIE-16GB',
};

/** One GPU to put in a new state. */
export interface SimulatedSmiGpuSpec {
  /** Catalog model name or alias. */
  model: string;
  /** MIG mode on (MIG-capable models only). */
  mig: boolean;
  /** How many such GPUs (default 1). */
  count?: number;
  /** Product name; default the real name of the model (e.g. `NVIDIA A100-SXM4-80GB`). */
  name?: string;
}

/**
 * A state with the given GPUs (expanded by `count`, indices in order) and no GIs. UUIDs are
 * {@link simulatedGpuUuid}(seed, index, model), the same as the simulated inventory's for the same
 * spec and seed ({@link DEFAULT_SIMULATION_SEED} by default). Throws RangeError for a model not in
 * the catalog, or `mig` on a model without MIG.
 */
export function createSimulatedNvidiaSmiState(
  gpus: readonly SimulatedSmiGpuSpec[],
  options: { seed?: string } = {},
): SimulatedSmiState {
  const seed = options.seed ?? DEFAULT_SIMULATION_SEED;
  const expanded = gpus.flatMap((g) => Array.from({ length: g.count ?? 1 }, () => g));
  return {
    version: 1,
    gpus: expanded.map((g, index) => {
      const spec = findGpuModel(g.model);
      if (spec === undefined) throw new RangeError(`unknown GPU model "${g.model}"`);
      if (g.mig && !spec.migCapable) throw new RangeError(`GPU model "${spec.name}" does not support MIG`);
      return {
        uuid: simulatedGpuUuid(seed, index, spec.name),
        model: spec.name,
        name: g.name ?? PRODUCT_NAMES[spec.name] ?? `NVIDIA ${spec.name}`,
        migEnabled: g.mig,
        gpuInstances: [],
      };
    }),
  };
}

/**
 * Stable MIG device UUID `MIG-xxxxxxxx-xxxx-5xxx-[89ab]xxx-xxxxxxxxxxxx` from the SHA-256 of
 * (GPU UUID, GI ID, CI ID), with the version/variant bits of a name-based UUID as in real R470+
 * MIG UUIDs. The same GI/CI IDs on the same GPU always give the same UUID (as with real GPUs, a
 * re-created instance with the same IDs gets the same UUID).
 */
export function simulatedMigDeviceUuid(gpuUuid: string, gpuInstanceId: number, computeInstanceId: number): string {
  const h = createHash('sha256').update(`${gpuUuid}\u0000${gpuInstanceId}\u0000${computeInstanceId}`).digest('hex');
  const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `MIG-${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------
// State checks

/** The state file or value is malformed; the message names the field. */
export class SimulatedSmiStateError extends Error {
  override readonly name = 'SimulatedSmiStateError';
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Checks a parsed state: GPUs with a catalog model, GIs of that model's profiles with unique IDs,
 * CIs with unique IDs. Does not check that the layout is valid (a test may set up any layout).
 * Throws {@link SimulatedSmiStateError}.
 */
export function checkSimulatedNvidiaSmiState(value: unknown): SimulatedSmiState {
  const fail = (what: string): never => {
    throw new SimulatedSmiStateError(`simulated nvidia-smi state: ${what}`);
  };
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const v = value as { version?: unknown; gpus?: unknown };
  if (v.version !== 1) fail(`version must be 1, got ${JSON.stringify(v.version)}`);
  if (!Array.isArray(v.gpus)) return fail('gpus must be an array');
  v.gpus.forEach((g: Partial<SimulatedSmiGpu>, i) => {
    const at = `gpus[${i}]`;
    if (typeof g !== 'object' || g === null) fail(`${at} is not an object`);
    if (typeof g.uuid !== 'string' || !g.uuid.startsWith('GPU-')) fail(`${at}.uuid must be a GPU- UUID`);
    if (typeof g.name !== 'string' || g.name === '') fail(`${at}.name must be a non-empty string`);
    if (typeof g.model !== 'string' || findGpuModel(g.model) === undefined)
      fail(`${at}.model ${JSON.stringify(g.model)} is not a catalog model`);
    if (typeof g.migEnabled !== 'boolean') fail(`${at}.migEnabled must be a boolean`);
    if (!Array.isArray(g.gpuInstances)) return fail(`${at}.gpuInstances must be an array`);
    const ids = new Set<number>();
    g.gpuInstances.forEach((gi: Partial<SimulatedSmiGpuInstance>, k) => {
      const gat = `${at}.gpuInstances[${k}]`;
      if (!isInt(gi.id) || !isInt(gi.profileId) || !isInt(gi.start))
        fail(`${gat}: id, profileId and start must be non-negative integers`);
      if (ids.has(gi.id as number)) fail(`${gat}: duplicate GPU instance ID ${gi.id}`);
      ids.add(gi.id as number);
      if (findMigProfile(g.model as string, gi.profileId as number) === undefined)
        fail(`${gat}: no profile ${gi.profileId} on ${g.model}`);
      if (!Array.isArray(gi.computeInstances)) return fail(`${gat}.computeInstances must be an array`);
      const ciIds = new Set<number>();
      gi.computeInstances.forEach((ci: Partial<SimulatedSmiComputeInstance>, c) => {
        if (!isInt(ci.id) || !isInt(ci.profileId))
          fail(`${gat}.computeInstances[${c}]: id and profileId must be non-negative integers`);
        if (ciIds.has(ci.id as number)) fail(`${gat}.computeInstances[${c}]: duplicate compute instance ID ${ci.id}`);
        ciIds.add(ci.id as number);
      });
    });
  });
  return value as SimulatedSmiState;
}

// A stand-in `nvidia-smi` for simulated GPUs and tests: given argv and a state (GPUs with models
// and MIG layouts, persisted as a JSON file), prints the real output formats of `-L`, `mig -lgi`,
// `mig -lci`, `mig -cgi … [-C]`, `mig -dci` and `mig -dgi`, changes the state like the driver
// would, and exits with a code from nvidia-smi's documented return values. Simulated GPUs run the
// real MigManager (nvidia-smi-mig-manager.ts) against it, through simulated-nvidia-smi-cli.ts, so
// the parsers are exercised at run time too. See docs/gpus.md, "The stand-in nvidia-smi".
//
// Output shapes are copied from the recorded outputs in test/fixtures/nvidia-smi/ (`-L`: R470+
// format; `mig`: NVIDIA MIG User Guide r580 examples). Geometry decisions (does a GI fit, where
// does a GI without an explicit placement go) are the core's: isValidLayout, validStartsFor,
// choosePlacement (src/core/mig/mig-allocator.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import {
  choosePlacement, findGpuModel, findMigProfile, migGeometry, migProfilesFor, validStartsFor,
  type MigGpuInstance, type MigProfile,
} from '../../core/index.js';
import { DEFAULT_SIMULATION_SEED, simulatedGpuUuid } from './simulated-gpus.js';

/** One compute instance in the stand-in's state. */
export interface SimulatedSmiComputeInstance {
  /** CI ID within its GI. */
  id: number;
  /** CI profile ID (NVML compute-instance profile: 0 = 1 slice, 1 = 2, 2 = 3, 3 = 4, 4 = 7, 5 = 8, 6 = 6, 7 = 1 rev1). */
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
  'A100-40GB': 'NVIDIA A100-SXM4-40GB', 'A100-80GB': 'NVIDIA A100-SXM4-80GB', 'H100-80GB': 'NVIDIA H100 80GB HBM3',
  'H200-141GB': 'NVIDIA H200', 'A30-24GB': 'NVIDIA A30', A10: 'NVIDIA A10', L4: 'NVIDIA L4', T4: 'Tesla T4',
  V100M16: 'Tesla V100-SXM2-16GB', V100M32: 'Tesla V100-SXM2-32GB', P100: 'Tesla P100-PCIE-16GB',
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
export function createSimulatedNvidiaSmiState(gpus: readonly SimulatedSmiGpuSpec[], options: { seed?: string } = {}): SimulatedSmiState {
  const seed = options.seed ?? DEFAULT_SIMULATION_SEED;
  const expanded = gpus.flatMap((g) => Array.from({ length: g.count ?? 1 }, () => g));
  return {
    version: 1,
    gpus: expanded.map((g, index) => {
      const spec = findGpuModel(g.model);
      if (spec === undefined) throw new RangeError(`unknown GPU model "${g.model}"`);
      if (g.mig && !spec.migCapable) throw new RangeError(`GPU model "${spec.name}" does not support MIG`);
      return {
        uuid: simulatedGpuUuid(seed, index, spec.name), model: spec.name, name: g.name ?? PRODUCT_NAMES[spec.name] ?? `NVIDIA ${spec.name}`,
        migEnabled: g.mig, gpuInstances: [],
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
  const fail = (what: string): never => { throw new SimulatedSmiStateError(`simulated nvidia-smi state: ${what}`); };
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const v = value as { version?: unknown; gpus?: unknown };
  if (v.version !== 1) fail(`version must be 1, got ${JSON.stringify(v.version)}`);
  if (!Array.isArray(v.gpus)) return fail('gpus must be an array');
  v.gpus.forEach((g: Partial<SimulatedSmiGpu>, i) => {
    const at = `gpus[${i}]`;
    if (typeof g !== 'object' || g === null) fail(`${at} is not an object`);
    if (typeof g.uuid !== 'string' || !g.uuid.startsWith('GPU-')) fail(`${at}.uuid must be a GPU- UUID`);
    if (typeof g.name !== 'string' || g.name === '') fail(`${at}.name must be a non-empty string`);
    if (typeof g.model !== 'string' || findGpuModel(g.model) === undefined) fail(`${at}.model ${JSON.stringify(g.model)} is not a catalog model`);
    if (typeof g.migEnabled !== 'boolean') fail(`${at}.migEnabled must be a boolean`);
    if (!Array.isArray(g.gpuInstances)) return fail(`${at}.gpuInstances must be an array`);
    const ids = new Set<number>();
    g.gpuInstances.forEach((gi: Partial<SimulatedSmiGpuInstance>, k) => {
      const gat = `${at}.gpuInstances[${k}]`;
      if (!isInt(gi.id) || !isInt(gi.profileId) || !isInt(gi.start)) fail(`${gat}: id, profileId and start must be non-negative integers`);
      if (ids.has(gi.id as number)) fail(`${gat}: duplicate GPU instance ID ${gi.id}`);
      ids.add(gi.id as number);
      if (findMigProfile(g.model as string, gi.profileId as number) === undefined) fail(`${gat}: no profile ${gi.profileId} on ${g.model}`);
      if (!Array.isArray(gi.computeInstances)) return fail(`${gat}.computeInstances must be an array`);
      const ciIds = new Set<number>();
      gi.computeInstances.forEach((ci: Partial<SimulatedSmiComputeInstance>, c) => {
        if (!isInt(ci.id) || !isInt(ci.profileId)) fail(`${gat}.computeInstances[${c}]: id and profileId must be non-negative integers`);
        if (ciIds.has(ci.id as number)) fail(`${gat}.computeInstances[${c}]: duplicate compute instance ID ${ci.id}`);
        ciIds.add(ci.id as number);
      });
    });
  });
  return value as SimulatedSmiState;
}

// ---------------------------------------------------------------------------------------------
// Output formats

const w2 = (n: number): string => String(n).padStart(2);

/** NVML compute-instance profile ID → compute slices (1_SLICE … 8_SLICE, 6_SLICE, 1_SLICE_REV1). */
const CI_SLICES_BY_PROFILE: Readonly<Record<number, number>> = { 0: 1, 1: 2, 2: 3, 3: 4, 4: 7, 5: 8, 6: 6, 7: 1 };
/** Compute slices → the CI profile ID of a full-width CI (`-C`); a 3g GI's is 2 (recorded `-cgi … -C`). */
const CI_PROFILE_BY_SLICES: Readonly<Record<number, number>> = { 1: 0, 2: 1, 3: 2, 4: 3, 7: 4, 8: 5, 6: 6 };

/** CI profile name: the GI's name for a full-width CI, `<c>c.<gi name>` otherwise (e.g. `1c.3g.20gb`). */
function ciName(gi: MigProfile, ciProfileId: number): string {
  const slices = CI_SLICES_BY_PROFILE[ciProfileId];
  return slices === undefined || slices === gi.computeSlices ? gi.name : `${slices}c.${gi.name}`;
}

const LGI_BORDER = `+${'-'.repeat(52)}+`;
const LGI_HEADER = [
  LGI_BORDER,
  '| GPU instances:                                     |',
  '| GPU   Name          Profile  Instance   Placement  |',
  '|                       ID       ID       Start:Size |',
  `|${'='.repeat(52)}|`,
];
const LCI_BORDER = `+${'-'.repeat(55)}+`;
const LCI_HEADER = [
  LCI_BORDER,
  '| Compute instances:                                    |',
  '| GPU     GPU       Name             Profile   Instance |',
  '|       Instance                       ID        ID     |',
  '|         ID                                            |',
  `|${'='.repeat(55)}|`,
];

/** A `-lgi` row; column widths reproduce the recorded rows byte for byte. */
function lgiRow(gpu: number, name: string, profileId: number, id: number, start: number, size: number): string {
  return `|${String(gpu).padStart(4)}  ${`MIG ${name}`.padEnd(14)}${String(profileId).padStart(5)}${String(id).padStart(9)}`
    + `${String(start).padStart(11)}:${String(size).padEnd(6)}|`;
}

/** A `-lci` row (the recorded format, without the Placement column of newer drivers). */
function lciRow(gpu: number, gi: number, name: string, profileId: number, ci: number): string {
  return `|${String(gpu).padStart(4)}${String(gi).padStart(7)}${' '.repeat(7)}${`MIG ${name}`.padEnd(16)}`
    + `${String(profileId).padStart(6)}${String(ci).padStart(10)}     |`;
}

// ---------------------------------------------------------------------------------------------
// Commands

/** Output being built by one run. */
class Out {
  readonly lines: string[] = [];
  exitCode: number = SIMULATED_SMI_EXIT.ok;
  changed = false;
  print(line: string): void { this.lines.push(line); }
  /** Records a failure; the first failure's code wins. */
  fail(code: number): void { if (this.exitCode === SIMULATED_SMI_EXIT.ok) this.exitCode = code; }
}

class ArgError extends Error {}

const INVALID_COMBINATION = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.";

function profileOf(gpu: SimulatedSmiGpu, gi: SimulatedSmiGpuInstance): MigProfile {
  const p = findMigProfile(gpu.model, gi.profileId);
  if (p === undefined) throw new SimulatedSmiStateError(`no profile ${gi.profileId} on ${gpu.model}`);
  return p;
}

function layoutOf(gpu: SimulatedSmiGpu): MigGpuInstance[] {
  return gpu.gpuInstances.map((gi) => ({ profileId: gi.profileId, start: gi.start, size: profileOf(gpu, gi).memorySlices, inUse: true }));
}

/** GI IDs in `-lgip` profile order, then by ID (the order of the recorded `-lgi` tables). */
function sortedGis(gpu: SimulatedSmiGpu): SimulatedSmiGpuInstance[] {
  const order = migProfilesFor(gpu.model);
  return [...gpu.gpuInstances].sort((a, b) => order.indexOf(profileOf(gpu, a)) - order.indexOf(profileOf(gpu, b)) || a.id - b.id);
}

/**
 * The GI ID the stand-in gives a new GI: the heap index of its memory block in the binary tree of
 * memory slices — (memory slices / size − 1) + start / size: 0 for the whole GPU, 1–2 for halves,
 * 3–6 for quarters, 7–13 for eighths on an 8-slice GPU. This reproduces every GI ID in the recorded
 * outputs (e.g. 1g at 6 → 13, 2g at 4 → 5, 3g at 4 → 2) except the guide's 2 × 3g.20gb `-lgi`, where
 * IDs 1 and 2 are the other way round. The next free ID is used if that one is taken.
 */
function newGiId(gpu: SimulatedSmiGpu, profile: MigProfile, start: number): number {
  const slices = migGeometry(gpu.model)?.memorySlices ?? 8;
  const size = profile.memorySlices;
  const taken = new Set(gpu.gpuInstances.map((g) => g.id));
  let id = Math.max(0, slices / size - 1 + Math.floor(start / size));
  while (taken.has(id)) id++;
  return id;
}

function list(state: SimulatedSmiState, targets: readonly number[], out: Out): void {
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    out.print(`GPU ${index}: ${gpu.name} (UUID: ${gpu.uuid})`);
    if (!gpu.migEnabled) continue;
    let device = 0;
    for (const gi of [...gpu.gpuInstances].sort((a, b) => a.id - b.id)) {
      for (const ci of [...gi.computeInstances].sort((a, b) => a.id - b.id)) {
        const uuid = simulatedMigDeviceUuid(gpu.uuid, gi.id, ci.id);
        out.print(`  MIG ${ciName(profileOf(gpu, gi), ci.profileId).padEnd(11)} Device ${w2(device)}: (UUID: ${uuid})`);
        device++;
      }
    }
  }
}

function listGpuInstances(state: SimulatedSmiState, targets: readonly number[], out: Out): void {
  const rows: string[] = [];
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const gi of sortedGis(gpu)) {
      const p = profileOf(gpu, gi);
      rows.push(lgiRow(index, p.name, p.profileId, gi.id, gi.start, p.memorySlices));
    }
  }
  if (rows.length === 0) {
    out.print('No GPU instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  LGI_HEADER.forEach((l) => out.print(l));
  for (const row of rows) { out.print(row); out.print(LGI_BORDER); }
}

function listComputeInstances(state: SimulatedSmiState, targets: readonly number[], giFilter: number[] | null, out: Out): void {
  const rows: string[] = [];
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const gi of [...gpu.gpuInstances].sort((a, b) => a.id - b.id)) {
      if (giFilter !== null && !giFilter.includes(gi.id)) continue;
      for (const ci of [...gi.computeInstances].sort((a, b) => a.id - b.id)) {
        rows.push(lciRow(index, gi.id, ciName(profileOf(gpu, gi), ci.profileId), ci.profileId, ci.id));
      }
    }
  }
  if (rows.length === 0) {
    out.print('No compute instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  LCI_HEADER.forEach((l) => out.print(l));
  for (const row of rows) { out.print(row); out.print(LCI_BORDER); }
}

/**
 * `-cgi <item>[,<item>…] [-C]`, item = profile ID or name (`9`, `3g.20gb`, `MIG 3g.20gb`), optionally
 * `:<start>`. Items are created in order; the first failure stops the run (the recorded
 * `-cgi 19,19,14,9` fails on its last item, so whether the driver goes on is not recorded).
 * Without a start the GI goes where the core's choosePlacement puts it (the driver's own choice is
 * not documented and differs in recordings, e.g. a second 1g at 4 where the core picks 5).
 */
function createGpuInstances(state: SimulatedSmiState, targets: readonly number[], items: readonly string[], withCi: boolean, out: Out): void {
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const item of items) {
      const m = /^(.+?)(?::(\d+))?$/.exec(item.trim());
      const profileText = (m?.[1] ?? item).trim();
      const profile = findMigProfile(gpu.model, profileText);
      const refuse = (reason: string, code: number): void => {
        out.print(`Unable to create a GPU instance on GPU ${w2(index)} using profile ${profileText}: ${reason}`);
        out.print(`Failed to create GPU instances: ${reason}`);
        out.fail(code);
      };
      if (profile === undefined) { refuse('Invalid Argument', SIMULATED_SMI_EXIT.invalidArgument); return; }
      let start: number | null;
      if (m?.[2] !== undefined) {
        start = Number(m[2]);
        if (!profile.placementStarts.includes(start)) { refuse('Invalid Argument', SIMULATED_SMI_EXIT.invalidArgument); return; }
        if (!validStartsFor(gpu.model, layoutOf(gpu), profile).includes(start)) start = null;
      } else {
        start = choosePlacement(gpu.model, layoutOf(gpu), profile);
      }
      if (start === null) { refuse('Insufficient Resources', SIMULATED_SMI_EXIT.otherError); return; }
      const gi: SimulatedSmiGpuInstance = { id: newGiId(gpu, profile, start), profileId: profile.profileId, start, computeInstances: [] };
      gpu.gpuInstances.push(gi);
      out.changed = true;
      out.print(`Successfully created GPU instance ID ${w2(gi.id)} on GPU ${w2(index)} using profile MIG ${profile.name} (ID ${w2(profile.profileId)})`);
      if (withCi) {
        const ciProfileId = CI_PROFILE_BY_SLICES[profile.computeSlices] ?? 0;
        gi.computeInstances.push({ id: 0, profileId: ciProfileId });
        out.print(`Successfully created compute instance ID ${w2(0)} on GPU ${w2(index)} GPU instance ID ${w2(gi.id)} `
          + `using profile MIG ${ciName(profile, ciProfileId)} (ID ${w2(ciProfileId)})`);
      }
    }
  }
}

/** `-dci [-gi G,…] [-ci C,…]`: destroys the CIs (all, or the listed ones) of the GIs (all, or the listed ones). */
function destroyComputeInstances(state: SimulatedSmiState, targets: readonly number[], giList: number[] | null, ciList: number[] | null, out: Out): void {
  let destroyed = 0;
  let firstReason: string | null = null;
  const failLine = (line: string, reason: string): void => {
    out.print(`${line}: ${reason}`);
    firstReason ??= reason;
  };
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const giId of giList ?? [...gpu.gpuInstances].map((g) => g.id).sort((a, b) => a - b)) {
      const gi = gpu.gpuInstances.find((g) => g.id === giId);
      if (gi === undefined) {
        if (giList !== null) failLine(`Unable to find GPU instance ID ${w2(giId)} on GPU ${w2(index)}`, 'Not Found');
        continue;
      }
      for (const ciId of ciList ?? gi.computeInstances.map((c) => c.id).sort((a, b) => a - b)) {
        const k = gi.computeInstances.findIndex((c) => c.id === ciId);
        if (k < 0) {
          failLine(`Unable to destroy compute instance ID ${w2(ciId)} from GPU ${w2(index)} GPU instance ID ${w2(giId)}`, 'Not Found');
          continue;
        }
        gi.computeInstances.splice(k, 1);
        destroyed++;
        out.changed = true;
        out.print(`Successfully destroyed compute instance ID ${w2(ciId)} from GPU ${w2(index)} GPU instance ID ${w2(giId)}`);
      }
    }
  }
  if (firstReason !== null) {
    out.print(`Failed to destroy compute instances: ${firstReason}`);
    out.fail(SIMULATED_SMI_EXIT.notFound);
  } else if (destroyed === 0) {
    out.print('No compute instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
  }
}

/** `-dgi [-gi G,…]`: destroys the GIs (all, or the listed ones); a GI that still has CIs is refused (in use). */
function destroyGpuInstances(state: SimulatedSmiState, targets: readonly number[], giList: number[] | null, out: Out): void {
  let destroyed = 0;
  let first: { reason: string; code: number } | null = null;
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const giId of giList ?? [...gpu.gpuInstances].map((g) => g.id).sort((a, b) => a - b)) {
      const k = gpu.gpuInstances.findIndex((g) => g.id === giId);
      const gi = gpu.gpuInstances[k];
      let reason: string | null = null;
      let code: number = SIMULATED_SMI_EXIT.ok;
      if (gi === undefined) { reason = 'Not Found'; code = SIMULATED_SMI_EXIT.notFound; }
      else if (gi.computeInstances.length > 0) { reason = 'In use by another client'; code = SIMULATED_SMI_EXIT.otherError; }
      if (reason !== null) {
        out.print(`Unable to destroy GPU instance ID ${w2(giId)} from GPU ${w2(index)}: ${reason}`);
        first ??= { reason, code };
        continue;
      }
      gpu.gpuInstances.splice(k, 1);
      destroyed++;
      out.changed = true;
      out.print(`Successfully destroyed GPU instance ID ${w2(giId)} from GPU ${w2(index)}`);
    }
  }
  if (first !== null) {
    out.print(`Failed to destroy GPU instances: ${first.reason}`);
    out.fail(first.code);
  } else if (destroyed === 0) {
    out.print('No GPU instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
  }
}

/** Parses a comma list of non-negative integers (`-gi 1,2`). */
function intList(flag: string, value: string | undefined): number[] {
  if (value === undefined || !/^\d+(,\d+)*$/.test(value)) throw new ArgError(`Invalid value for ${flag}: ${value ?? '(missing)'}`);
  return value.split(',').map(Number);
}

/** Resolves `-i` (index or GPU UUID, comma list) to GPU indices; null = all GPUs. */
function selectGpus(state: SimulatedSmiState, id: string | undefined): number[] | null {
  if (id === undefined) return null;
  const indices: number[] = [];
  for (const part of id.split(',')) {
    const index = /^\d+$/.test(part) ? Number(part) : state.gpus.findIndex((g) => g.uuid === part);
    if (index < 0 || index >= state.gpus.length) return [];
    indices.push(index);
  }
  return indices;
}

/** Splits `--flag=value` into flag and value, for the long options. */
function splitArgs(argv: readonly string[]): string[] {
  return argv.flatMap((a) => (a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a]));
}

const MIG_FLAGS: Readonly<Record<string, string>> = {
  '-i': 'id', '--id': 'id',
  '-lgi': 'lgi', '--list-gpu-instances': 'lgi',
  '-lci': 'lci', '--list-compute-instances': 'lci',
  '-cgi': 'cgi', '--create-gpu-instance': 'cgi',
  '-C': 'C', '--default-compute-instance': 'C',
  '-dci': 'dci', '--destroy-compute-instance': 'dci',
  '-dgi': 'dgi', '--destroy-gpu-instance': 'dgi',
  '-gi': 'gi', '--gpu-instance-id': 'gi',
  '-ci': 'ci', '--compute-instance-id': 'ci',
};
const TAKES_VALUE = new Set(['id', 'cgi', 'gi', 'ci']);
const ACTIONS = ['lgi', 'lci', 'cgi', 'dci', 'dgi'];

function runMig(state: SimulatedSmiState, argv: readonly string[], out: Out): void {
  const opts = new Map<string, string | true>();
  for (let k = 0; k < argv.length; k++) {
    const key = MIG_FLAGS[argv[k]!];
    if (key === undefined || opts.has(key)) throw new ArgError(INVALID_COMBINATION);
    if (TAKES_VALUE.has(key)) {
      const value = argv[++k];
      if (value === undefined) throw new ArgError(INVALID_COMBINATION);
      opts.set(key, value);
    } else {
      opts.set(key, true);
    }
  }
  const actions = ACTIONS.filter((a) => opts.has(a));
  const action = actions[0];
  if (actions.length !== 1 || action === undefined || (opts.has('C') && action !== 'cgi')
    || (opts.has('ci') && action !== 'dci') || (opts.has('gi') && (action === 'lgi' || action === 'cgi'))) {
    throw new ArgError(INVALID_COMBINATION);
  }
  const str = (key: string): string | undefined => { const v = opts.get(key); return typeof v === 'string' ? v : undefined; };
  const selected = selectGpus(state, str('id'));
  if (selected !== null && selected.length === 0) {
    out.print('No devices were found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  const targets = (selected ?? state.gpus.map((_, i) => i)).filter((i) => state.gpus[i]!.migEnabled);
  if (targets.length === 0) {
    out.print('No MIG-enabled devices found.');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  const gi = opts.has('gi') ? intList('-gi', str('gi')) : null;
  const ci = opts.has('ci') ? intList('-ci', str('ci')) : null;
  switch (action) {
    case 'lgi': listGpuInstances(state, targets, out); break;
    case 'lci': listComputeInstances(state, targets, gi, out); break;
    case 'cgi': createGpuInstances(state, targets, (str('cgi') ?? '').split(','), opts.has('C'), out); break;
    case 'dci': destroyComputeInstances(state, targets, gi, ci, out); break;
    default: destroyGpuInstances(state, targets, gi, out); break;
  }
}

/**
 * Runs one stand-in nvidia-smi command on a copy of `state`. `argv` are the arguments after the
 * program name. Supported: `-L` / `--list-gpus` (optionally with `-i`), and `mig` with `-i`, `-lgi`,
 * `-lci [-gi]`, `-cgi LIST [-C]`, `-dci [-gi] [-ci]`, `-dgi [-gi]` (long forms and `--flag=value`
 * too). Anything else prints `Invalid combination of input arguments…` and exits 2. All messages go
 * to stdout. Never throws for bad arguments; throws SimulatedSmiStateError for a state whose GIs
 * name unknown profiles.
 */
export function runSimulatedNvidiaSmi(argv: readonly string[], state: SimulatedSmiState): SimulatedSmiResult {
  const copy = checkSimulatedNvidiaSmiState(JSON.parse(JSON.stringify(state)) as unknown);
  const out = new Out();
  try {
    const args = splitArgs(argv);
    if (args[0] === 'mig') {
      runMig(copy, args.slice(1), out);
    } else {
      const listFlag = args.filter((a) => a === '-L' || a === '--list-gpus');
      const rest = args.filter((a) => a !== '-L' && a !== '--list-gpus');
      if (listFlag.length !== 1 || !(rest.length === 0 || (rest.length === 2 && (rest[0] === '-i' || rest[0] === '--id')))) {
        throw new ArgError(INVALID_COMBINATION);
      }
      const selected = selectGpus(copy, rest[1]);
      if (copy.gpus.length === 0 || (selected !== null && selected.length === 0)) {
        out.print('No devices were found');
        out.fail(SIMULATED_SMI_EXIT.notFound);
      } else {
        list(copy, selected ?? copy.gpus.map((_, i) => i), out);
      }
    }
  } catch (e) {
    if (!(e instanceof ArgError)) throw e;
    out.print(e.message);
    out.fail(SIMULATED_SMI_EXIT.invalidArgument);
  }
  const stdout = out.lines.length === 0 ? '' : `${out.lines.join('\n')}\n`;
  return { stdout, stderr: '', exitCode: out.exitCode, state: copy, changed: out.changed };
}

// ---------------------------------------------------------------------------------------------
// State file

/** Reads and checks a state file. Throws SimulatedSmiStateError (or the fs error) when it cannot. */
export function readSimulatedNvidiaSmiState(file: string): SimulatedSmiState {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new SimulatedSmiStateError(`simulated nvidia-smi state ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return checkSimulatedNvidiaSmiState(value);
}

/** Writes a state file atomically (temp file in the same directory, then rename). */
export function writeSimulatedNvidiaSmiState(file: string, state: SimulatedSmiState): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(checkSimulatedNvidiaSmiState(state), null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Longest wait for the state file's lock, and the age after which a lock is taken as stale (ms). */
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `fn` holding `<file>.lock` (a directory: mkdir is atomic), so concurrent runs do not lose updates. */
function withStateLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) { rmSync(lock, { recursive: true, force: true }); continue; }
      } catch { /* removed meanwhile: retry */ }
      if (Date.now() > deadline) throw new SimulatedSmiStateError(`simulated nvidia-smi state ${file}: still locked after ${LOCK_WAIT_MS} ms (${lock})`);
      sleepSync(10);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Runs one command against the state in `stateFile` (read, run, write back when changed), holding
 * a lock file so that concurrent runs are serialised. Throws SimulatedSmiStateError when the file
 * cannot be read, is malformed, or stays locked.
 */
export function runSimulatedNvidiaSmiOnFile(argv: readonly string[], stateFile: string): SimulatedSmiResult {
  return withStateLock(stateFile, () => {
    const result = runSimulatedNvidiaSmi(argv, readSimulatedNvidiaSmiState(stateFile));
    if (result.changed) writeSimulatedNvidiaSmiState(stateFile, result.state);
    return result;
  });
}

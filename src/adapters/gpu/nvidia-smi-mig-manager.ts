// MigManager on `nvidia-smi mig`: destroys and creates GPU instances with explicit placements,
// then reads the layout back (`mig -lgi`, `mig -lci`, `-L`) and reports what exists. The same code
// drives simulated GPUs, with `execFile` pointed at the stand-in nvidia-smi
// (simulated-nvidia-smi.ts). See docs/gpus.md, "MIG manager".
import { findMigProfile, type MigProfile } from '../../core/index.js';
import type {
  MigApplyResult,
  MigComputeInstanceState,
  MigCreateItem,
  MigDestroyItem,
  MigInstanceState,
  MigManager,
  MigPlan,
} from '../../app/ports/mig-manager.js';
import { catalogModelForGpuName } from './nvidia-smi-inventory.js';
import {
  INSUFFICIENT_RESOURCES,
  NO_COMPUTE_INSTANCES_PATTERN,
  NO_GPU_INSTANCES_PATTERN,
  isInsufficientResources,
  parseMigCommandOutput,
  parseMigComputeInstances,
  parseMigGpuInstances,
  type ParsedComputeInstance,
  type ParsedGpuInstance,
} from './nvidia-smi-mig-parse.js';
import { NvidiaSmiParseError, parseListGpus, type ListedGpu, type ListedMigDevice } from './nvidia-smi-parse.js';
import { runCommand, type CommandResult, type RunCommandFn } from './run-command.js';

/** Options of {@link createNvidiaSmiMigManager}. */
export interface NvidiaSmiMigManagerOptions {
  /** Program to run; `nvidia-smi` (looked up on PATH) by default. */
  nvidiaSmiPath?: string;
  /** Process runner; {@link runCommand} by default. */
  execFile?: RunCommandFn;
  /** Limit per command in ms; {@link DEFAULT_MIG_COMMAND_TIMEOUT_MS} by default. */
  timeoutMs?: number;
}

/** Default per-command limit (ms). Creating a GI takes well under a second to a few seconds. */
export const DEFAULT_MIG_COMMAND_TIMEOUT_MS = 60_000;

/**
 * nvidia-smi could not be run, or printed something that cannot be read, while reading the MIG
 * layout: the layout is unknown. The message names the command line and the cause.
 */
export class MigCommandError extends Error {
  override readonly name = 'MigCommandError';
}

/** stdout then stderr, trimmed, for parsing (nvidia-smi's choice of stream is not relied on) and quoting. */
function outputOf(result: CommandResult): string {
  return [result.stdout.trim(), result.stderr.trim()].filter((s) => s !== '').join('\n');
}

function checkIndex(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
}

function checkPlan(gpuIndex: number, plan: MigPlan): void {
  checkIndex('gpuIndex', gpuIndex);
  plan.destroy.forEach((d, i) => {
    checkIndex(`plan.destroy[${i}].start`, d.start);
    checkIndex(`plan.destroy[${i}].profileId`, d.profileId);
    if (d.gpuInstanceId !== undefined) checkIndex(`plan.destroy[${i}].gpuInstanceId`, d.gpuInstanceId);
  });
  plan.create.forEach((c, i) => {
    checkIndex(`plan.create[${i}].start`, c.start);
    checkIndex(`plan.create[${i}].profileId`, c.profileId);
  });
}

/** A MIG device of `-L` with the GI/CI it belongs to. */
interface MatchedDevice {
  gpuInstanceId: number;
  computeInstanceId: number;
  uuid: string;
}

const LEGACY_MIG_UUID = /^MIG-GPU-[^/]+\/(\d+)\/(\d+)$/;

/**
 * Matches the MIG devices of `-L` (one GPU) to its compute instances (`-lci`).
 *
 * Rule: `-L` lists a GPU's MIG devices in ascending (GI ID, CI ID) order — the order of the
 * device index. Recorded evidence: in the R450 `-L` outputs the legacy UUIDs
 * `MIG-GPU-<gpu>/<gi>/<ci>` ascend that way, and in the 590.48.01 H100/H200 captures `-q` gives
 * device Index 0..n with ascending (GI, CI). So the k-th device is the k-th (GI, CI) pair of `-lci`
 * sorted by GI then CI. The match is accepted only when the counts are equal and every device's
 * profile name equals its CI's `-lci` name (`3g.40gb` for a full-width CI, `1c.3g.40gb` for a
 * 1-slice CI); otherwise no device of the GPU gets a UUID. Legacy UUIDs carry their GI and CI and
 * are matched by them. Limit: if a driver ordered devices differently, a swap between two devices
 * of the same profile name would go unnoticed (different names are caught).
 */
export function matchMigDevices(
  devices: readonly ListedMigDevice[],
  cis: readonly ParsedComputeInstance[],
): MatchedDevice[] {
  const legacy = devices.map((d) => LEGACY_MIG_UUID.exec(d.uuid));
  if (devices.length > 0 && legacy.every((m) => m !== null)) {
    return devices.map((d, k) => ({
      gpuInstanceId: Number(legacy[k]?.[1]),
      computeInstanceId: Number(legacy[k]?.[2]),
      uuid: d.uuid,
    }));
  }
  const pairs = [...cis].sort((a, b) => a.gpuInstanceId - b.gpuInstanceId || a.computeInstanceId - b.computeInstanceId);
  if (pairs.length !== devices.length) return [];
  const matched: MatchedDevice[] = [];
  for (const [k, ci] of pairs.entries()) {
    const device = devices[k];
    if (device === undefined || device.profile !== ci.profileName) return [];
    matched.push({ gpuInstanceId: ci.gpuInstanceId, computeInstanceId: ci.computeInstanceId, uuid: device.uuid });
  }
  return matched;
}

/**
 * Builds the instance states of one GPU from its parsed `-lgi`, `-lci` and `-L` views (each already
 * filtered to that GPU), by ascending placement start.
 */
export function buildMigInstanceStates(
  gis: readonly ParsedGpuInstance[],
  cis: readonly ParsedComputeInstance[],
  listed: ListedGpu | undefined,
): MigInstanceState[] {
  const devices = matchMigDevices(listed?.migDevices ?? [], cis);
  return [...gis]
    .sort((a, b) => a.start - b.start || a.gpuInstanceId - b.gpuInstanceId)
    .map((g) => {
      const computeInstances: MigComputeInstanceState[] = cis
        .filter((c) => c.gpuInstanceId === g.gpuInstanceId)
        .sort((a, b) => a.computeInstanceId - b.computeInstanceId)
        .map((c) => ({ computeInstanceId: c.computeInstanceId, profileId: c.profileId }));
      const first = computeInstances[0];
      const device =
        first === undefined
          ? undefined
          : devices.find((d) => d.gpuInstanceId === g.gpuInstanceId && d.computeInstanceId === first.computeInstanceId);
      return {
        gpuInstanceId: g.gpuInstanceId,
        profileId: g.profileId,
        profileName: g.profileName,
        start: g.start,
        size: g.size,
        computeInstances,
        migDeviceUuid: device?.uuid ?? null,
      };
    });
}

/** One GPU's layout as read back, and the GPU's catalog model (from its `-L` name). */
interface ReadBack {
  instances: MigInstanceState[];
  model: string | null;
}

/** Thrown inside apply to stop at a failed step; turned into `error`. */
class StopApply extends Error {}

/**
 * MigManager on the real `nvidia-smi` (or any program printing its formats). Operations on one GPU
 * index are serialised (each waits for the previous one to finish); different GPUs run
 * independently.
 *
 * Commands (N = GPU index, G = GI ID, P = profile ID, S = placement start):
 * - listInstances: `nvidia-smi mig -i N -lgi`, then (if any GI) `nvidia-smi mig -i N -lci` and
 *   `nvidia-smi -L`.
 * - apply: reads the layout as above; per destroy item `nvidia-smi mig -i N -dci -gi G` (skipped when
 *   the GI has no CI) then `nvidia-smi mig -i N -dgi -gi G`; per create item, largest profile first
 *   (memory slices, then compute slices, from the catalog model of the `-L` name; plan order when
 *   unknown), `nvidia-smi mig -i N -cgi P:S -C`; then reads the layout back.
 */
export function createNvidiaSmiMigManager(options: NvidiaSmiMigManagerOptions = {}): MigManager {
  const program = options.nvidiaSmiPath ?? 'nvidia-smi';
  const run = options.execFile ?? runCommand;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MIG_COMMAND_TIMEOUT_MS;
  const queues = new Map<number, Promise<unknown>>();

  const commandLine = (args: readonly string[]): string => [program, ...args].join(' ');

  async function exec(args: readonly string[]): Promise<CommandResult> {
    try {
      return await run(program, args, { timeoutMs });
    } catch (e) {
      throw new MigCommandError(`${commandLine(args)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Runs a listing command; `emptyPattern` output means "none" whatever the exit code. Null then. */
  async function list(args: readonly string[], emptyPattern: RegExp | null): Promise<string | null> {
    const result = await exec(args);
    const output = outputOf(result);
    if (emptyPattern !== null && emptyPattern.test(output)) return null;
    if (result.exitCode !== 0) {
      throw new MigCommandError(
        `${commandLine(args)}: exited with code ${result.exitCode}${output === '' ? '' : `: ${output.slice(0, 500)}`}`,
      );
    }
    return result.stdout;
  }

  function parsed<T>(args: readonly string[], parse: () => T): T {
    try {
      return parse();
    } catch (e) {
      if (e instanceof NvidiaSmiParseError) throw new MigCommandError(`${commandLine(args)}: ${e.message}`);
      throw e;
    }
  }

  async function readBack(gpuIndex: number): Promise<ReadBack> {
    const i = String(gpuIndex);
    const lgiArgs = ['mig', '-i', i, '-lgi'];
    const lgiText = await list(lgiArgs, NO_GPU_INSTANCES_PATTERN);
    const gis =
      lgiText === null ? [] : parsed(lgiArgs, () => parseMigGpuInstances(lgiText)).filter((g) => g.gpu === gpuIndex);
    const lArgs = ['-L'];
    const lText = await list(lArgs, null);
    const listed = parsed(lArgs, () => parseListGpus(lText ?? '')).find((g) => g.index === gpuIndex);
    if (listed === undefined) throw new MigCommandError(`${commandLine(lArgs)}: GPU ${gpuIndex} is not listed`);
    const model = catalogModelForGpuName(listed.name);
    if (gis.length === 0) return { instances: [], model };
    const lciArgs = ['mig', '-i', i, '-lci'];
    const lciText = await list(lciArgs, NO_COMPUTE_INSTANCES_PATTERN);
    const cis =
      lciText === null
        ? []
        : parsed(lciArgs, () => parseMigComputeInstances(lciText)).filter((c) => c.gpu === gpuIndex);
    return { instances: buildMigInstanceStates(gis, cis, listed), model };
  }

  /** Runs one changing command; throws StopApply with the categorised error when it failed. */
  async function change(
    args: readonly string[],
    tolerate: RegExp | null = null,
  ): Promise<ReturnType<typeof parseMigCommandOutput>> {
    const result = await exec(args);
    const output = outputOf(result);
    const report = parseMigCommandOutput(output);
    if (tolerate !== null && tolerate.test(output)) return report;
    if (result.exitCode !== 0 || report.failures.length > 0) {
      const category = isInsufficientResources(report) ? INSUFFICIENT_RESOURCES : 'Command failed';
      throw new StopApply(
        `${category}: ${commandLine(args)} exited with code ${result.exitCode}${output === '' ? '' : `: ${output}`}`,
      );
    }
    return report;
  }

  function sizeOf(model: string | null, profileId: number): MigProfile | undefined {
    return model === null ? undefined : findMigProfile(model, profileId);
  }

  async function apply(gpuIndex: number, plan: MigPlan): Promise<MigApplyResult> {
    checkPlan(gpuIndex, plan);
    const i = String(gpuIndex);
    const before = await readBack(gpuIndex);
    let error: string | null = null;
    let destroyed = 0;
    const targets: MigInstanceState[] = [];
    try {
      for (const item of plan.destroy) {
        const target = resolveDestroy(before.instances, item);
        if (target !== null && !targets.includes(target)) targets.push(target);
      }
      for (const target of targets) {
        const gi = String(target.gpuInstanceId);
        if (target.computeInstances.length > 0)
          await change(['mig', '-i', i, '-dci', '-gi', gi], NO_COMPUTE_INSTANCES_PATTERN);
        const report = await change(['mig', '-i', i, '-dgi', '-gi', gi]);
        if (report.gpuInstancesDestroyed.some((d) => d.gpuInstanceId === target.gpuInstanceId)) destroyed++;
      }
      const remaining = before.instances.filter((g) => !targets.includes(g));
      for (const item of largestFirst(plan.create, (p) => sizeOf(before.model, p))) {
        if (remaining.some((g) => g.profileId === item.profileId && g.start === item.start)) continue;
        await change(['mig', '-i', i, '-cgi', `${item.profileId}:${item.start}`, '-C']);
      }
    } catch (e) {
      if (!(e instanceof StopApply)) throw e;
      error = e.message;
    }
    const after = await readBack(gpuIndex);
    const created = plan.create
      .map((c) => after.instances.find((g) => g.profileId === c.profileId && g.start === c.start))
      .filter((g): g is MigInstanceState => g !== undefined);
    if (error === null) error = differences(plan, targets, after.instances);
    return { ok: error === null, created, destroyed, error };
  }

  function serialised<T>(gpuIndex: number, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(gpuIndex) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(gpuIndex, settled);
    void settled.then(() => {
      if (queues.get(gpuIndex) === settled) queues.delete(gpuIndex);
    });
    return next;
  }

  return {
    listInstances: (gpuIndex) =>
      serialised(gpuIndex, async () => {
        checkIndex('gpuIndex', gpuIndex);
        return (await readBack(gpuIndex)).instances;
      }),
    apply: (gpuIndex, plan) => serialised(gpuIndex, () => apply(gpuIndex, plan)),
  };
}

/**
 * The GI a destroy item names, or null when no such GI exists (already gone). With
 * `gpuInstanceId`, a GI of that ID with another start or profile stops the apply (`Mismatch`):
 * the caller's view is stale and the wrong GI must not be destroyed.
 */
function resolveDestroy(instances: readonly MigInstanceState[], item: MigDestroyItem): MigInstanceState | null {
  if (item.gpuInstanceId !== undefined) {
    const byId = instances.find((g) => g.gpuInstanceId === item.gpuInstanceId);
    if (byId === undefined) return null;
    if (byId.start !== item.start || byId.profileId !== item.profileId) {
      throw new StopApply(
        `Mismatch: GPU instance ${item.gpuInstanceId} is profile ${byId.profileId} at ${byId.start}:${byId.size}, ` +
          `not profile ${item.profileId} at ${item.start}; nothing destroyed`,
      );
    }
    return byId;
  }
  return instances.find((g) => g.start === item.start && g.profileId === item.profileId) ?? null;
}

/** Create items ordered largest profile first (memory, then compute slices); unknown sizes keep plan order, last. */
function largestFirst(
  items: readonly MigCreateItem[],
  profileOf: (profileId: number) => MigProfile | undefined,
): MigCreateItem[] {
  const size = (c: MigCreateItem): [number, number] => {
    const p = profileOf(c.profileId);
    return p === undefined ? [-1, -1] : [p.memorySlices, p.computeSlices];
  };
  return items
    .map((c, k) => ({ c, k, s: size(c) }))
    .sort((a, b) => b.s[0] - a.s[0] || b.s[1] - a.s[1] || a.k - b.k)
    .map((x) => x.c);
}

/** Why the read-back differs from the plan although every command succeeded; null when it matches. */
function differences(
  plan: MigPlan,
  targets: readonly MigInstanceState[],
  after: readonly MigInstanceState[],
): string | null {
  const problems: string[] = [];
  for (const c of plan.create) {
    if (!after.some((g) => g.profileId === c.profileId && g.start === c.start))
      problems.push(`profile ${c.profileId} at ${c.start} is missing`);
  }
  for (const t of targets) {
    const recreated = plan.create.some((c) => c.profileId === t.profileId && c.start === t.start);
    if (
      !recreated &&
      after.some((g) => g.gpuInstanceId === t.gpuInstanceId && g.start === t.start && g.profileId === t.profileId)
    ) {
      problems.push(`GPU instance ${t.gpuInstanceId} (profile ${t.profileId} at ${t.start}) still exists`);
    }
  }
  return problems.length === 0 ? null : `Not applied: after the commands, ${problems.join('; ')}`;
}

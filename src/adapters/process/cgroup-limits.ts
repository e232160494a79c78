/**
 * Host limits of an attempt as cgroup settings: `cpuMilli` becomes a CFS quota (v1
 * `cpu.cfs_quota_us` / `cpu.cfs_period_us`, v2 `cpu.max`), `cpuWeight` a CPU weight (v1
 * `cpu.shares`, v2 `cpu.weight`), `hostMemoryMiB` a memory limit (v1 `memory.limit_in_bytes`, v2
 * `memory.max`) and `pidsMax` a process limit (`pids.max`, v1 and v2). Detects which controllers
 * this host offers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCgroup, readCgroupFile, writeCgroupFile } from './cgroup-dir.js';
import type { CgroupLayout } from './cgroup-layout.js';

/** CFS period used for CPU limits, microseconds. */
export const CPU_PERIOD_US = 100_000;
/** Smallest CFS quota the kernel accepts, microseconds. */
export const MIN_CPU_QUOTA_US = 1_000;
/** Bytes in one MiB. */
const BYTES_PER_MIB = 1024 * 1024;

/** Where one limit is enforced: a v1 hierarchy or the v2 one, by its `gpushare` parent directory. */
export interface LimitHierarchy {
  /** cgroup version of the hierarchy. */
  version: 'v1' | 'v2';
  /** The parent directory (`<mount>/gpushare`) under which job cgroups are made. */
  parentDir: string;
}

/** Which limits this host can enforce, and where. */
export interface LimitSupport {
  /** Hierarchy for `cpuMilli`, null when no CPU controller is usable. */
  cpu: LimitHierarchy | null;
  /** Hierarchy for `hostMemoryMiB`, null when no memory controller is usable. */
  memory: LimitHierarchy | null;
  /** Hierarchy for `pidsMax`, null when no pids controller is usable. */
  pids: LimitHierarchy | null;
}

/** Largest CPU weight (v2 `cpu.weight` range 1-10000; 100 is the kernel's default). */
export const MAX_CPU_WEIGHT = 10_000;

/**
 * The control-file values that give a cgroup CPU weight `cpuWeight` (1-10000, v2 `cpu.weight`; on
 * v1 `cpu.shares` = weight × 1024 / 100, so the default weight 100 is the default 1024 shares).
 * Throws RangeError for a value outside 1-10000.
 */
export function cpuWeightValues(cpuWeight: number, version: 'v1' | 'v2'): Array<[file: string, value: string]> {
  if (!Number.isSafeInteger(cpuWeight) || cpuWeight < 1 || cpuWeight > MAX_CPU_WEIGHT)
    throw new RangeError(`cpuWeight must be an integer between 1 and ${MAX_CPU_WEIGHT}, got ${cpuWeight}`);
  return version === 'v1'
    ? [['cpu.shares', String(Math.max(2, Math.round((cpuWeight * 1024) / 100)))]]
    : [['cpu.weight', String(cpuWeight)]];
}

/**
 * The control-file value that limits a cgroup to `pidsMax` processes and threads (`pids.max`, the
 * same file in v1 and v2). Throws RangeError for a value that is not a positive integer.
 */
export function pidsLimitValues(pidsMax: number): Array<[file: string, value: string]> {
  if (!Number.isSafeInteger(pidsMax) || pidsMax <= 0)
    throw new RangeError(`pidsMax must be a positive integer, got ${pidsMax}`);
  return [['pids.max', String(pidsMax)]];
}

/**
 * The control-file values that limit a cgroup to `cpuMilli` milli-cores: quota = cpuMilli × 100
 * µs per 100 000 µs period (at least {@link MIN_CPU_QUOTA_US}). Throws RangeError for a value
 * that is not a positive integer.
 */
export function cpuLimitValues(cpuMilli: number, version: 'v1' | 'v2'): Array<[file: string, value: string]> {
  if (!Number.isSafeInteger(cpuMilli) || cpuMilli <= 0)
    throw new RangeError(`cpuMilli must be a positive integer, got ${cpuMilli}`);
  const quotaUs = Math.max(MIN_CPU_QUOTA_US, Math.round((cpuMilli * CPU_PERIOD_US) / 1000));
  return version === 'v1'
    ? [
        ['cpu.cfs_period_us', String(CPU_PERIOD_US)],
        ['cpu.cfs_quota_us', String(quotaUs)],
      ]
    : [['cpu.max', `${quotaUs} ${CPU_PERIOD_US}`]];
}

/**
 * The control-file values that limit a cgroup to `hostMemoryMiB` MiB (bytes = MiB × 1 048 576).
 * Throws RangeError for a value that is not a positive integer.
 */
export function memoryLimitValues(hostMemoryMiB: number, version: 'v1' | 'v2'): Array<[file: string, value: string]> {
  if (!Number.isSafeInteger(hostMemoryMiB) || hostMemoryMiB <= 0) {
    throw new RangeError(`hostMemoryMiB must be a positive integer, got ${hostMemoryMiB}`);
  }
  const bytes = String(hostMemoryMiB * BYTES_PER_MIB);
  return version === 'v1' ? [['memory.limit_in_bytes', bytes]] : [['memory.max', bytes]];
}

/**
 * Enables `controller` for the children of every directory from the v2 mount down to
 * `parentDir` (`cgroup.subtree_control`); false when the kernel refuses.
 */
function enableV2Controller(mount: string, parentDir: string, controller: string): boolean {
  const levels = parentDir
    .slice(mount.length)
    .split('/')
    .filter((s) => s !== '');
  let dir = mount;
  try {
    for (let i = 0; i <= levels.length; i += 1) {
      const enabled = readCgroupFile(dir, 'cgroup.subtree_control').split(/\s+/);
      if (!enabled.includes(controller)) writeCgroupFile(dir, 'cgroup.subtree_control', `+${controller}`);
      if (i < levels.length) {
        dir = join(dir, levels[i] ?? '');
        createCgroup(dir);
      }
    }
    return true;
  } catch {
    return false;
  }
}

/** Share of the kernel's `pid_max` that all of a server's jobs together may hold (the rest stays the host's). */
export const JOBS_PIDS_SHARE = 0.75;

/**
 * The `pids.max` of the parent cgroup of all of a server's jobs: {@link JOBS_PIDS_SHARE} of the
 * kernel's `pid_max` (`/proc/sys/kernel/pid_max`), so that many jobs each under their own limit can
 * still not take the processes the host and the server need. Throws RangeError for a `pidMax` that
 * is not a positive integer.
 */
export function allJobsPidsLimitValues(pidMax: number): Array<[file: string, value: string]> {
  if (!Number.isSafeInteger(pidMax) || pidMax <= 0)
    throw new RangeError(`pidMax must be a positive integer, got ${pidMax}`);
  return [['pids.max', String(Math.max(1, Math.floor(pidMax * JOBS_PIDS_SHARE)))]];
}

/**
 * Finds where `controller` ('cpu', 'memory' or 'pids') can be limited: the v2 hierarchy when it offers
 * the controller (enabling it down to the parent), else its v1 hierarchy when the parent can be
 * made there and has `probeFile`. Null when neither works.
 */
function detectController(
  layout: CgroupLayout,
  cgroupParent: string,
  controller: 'cpu' | 'memory' | 'pids',
  probeFile: string,
): LimitHierarchy | null {
  if (layout.v2Mount !== null && layout.v2Controllers.includes(controller)) {
    const parentDir = join(layout.v2Mount, cgroupParent);
    if (enableV2Controller(layout.v2Mount, parentDir, controller)) return { version: 'v2', parentDir };
  }
  const mount = layout.v1Mounts[controller];
  if (mount === undefined) return null;
  const parentDir = join(mount, cgroupParent);
  try {
    createCgroup(parentDir);
    return existsSync(join(parentDir, probeFile)) ? { version: 'v1', parentDir } : null;
  } catch {
    return null;
  }
}

/**
 * Detects which host limits can be enforced under `cgroupParent` (e.g. `gpushare`). Probing
 * creates the parent directory in the candidate hierarchies (and on v2 enables the controller
 * for its children).
 */
export function detectLimitSupport(layout: CgroupLayout, cgroupParent: string): LimitSupport {
  return {
    cpu: detectController(layout, cgroupParent, 'cpu', 'cpu.cfs_quota_us'),
    memory: detectController(layout, cgroupParent, 'memory', 'memory.limit_in_bytes'),
    pids: detectController(layout, cgroupParent, 'pids', 'pids.max'),
  };
}

/**
 * Writes limit values (from {@link cpuLimitValues} / {@link memoryLimitValues}) into cgroup
 * `dir`, in order. Throws naming the file when the kernel refuses one.
 */
export function writeLimits(dir: string, values: ReadonlyArray<readonly [string, string]>): void {
  for (const [file, value] of values) {
    try {
      writeCgroupFile(dir, file, value);
    } catch (error) {
      throw new Error(`cannot set ${join(dir, file)} to ${value}: ${(error as Error).message}`);
    }
  }
}

/**
 * Caps all of a server's jobs together (the parent cgroup `parentDir` of the pids hierarchy) at
 * {@link allJobsPidsLimitValues} of the kernel's `pid_max`. A host whose `pid_max` cannot be read,
 * or a kernel that refuses the value, leaves the parent uncapped: `onRefused` is told why.
 */
export function capAllJobsPids(parentDir: string, onRefused: (message: string) => void): void {
  try {
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
    writeLimits(parentDir, allJobsPidsLimitValues(pidMax));
  } catch (error) {
    onRefused(`all jobs together are not capped below pid_max: ${(error as Error).message}`);
  }
}

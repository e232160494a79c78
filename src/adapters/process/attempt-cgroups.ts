/**
 * The cgroups one attempt joins and the limit values written into each (docs/processes.md "Host
 * limits"): its freezer cgroup, a CPU weight and a CFS quota in the CPU hierarchy, a process limit
 * in the pids hierarchy and a memory limit in the memory hierarchy, each only where this host has
 * the controller. Several limits of one hierarchy share its directory. Pure: no I/O.
 */
import { join } from 'node:path';
import type { LaunchSpec } from '../../app/ports/process-launcher.js';
import type { CgroupLayout } from './cgroup-layout.js';
import {
  cpuLimitValues,
  cpuWeightValues,
  memoryLimitValues,
  pidsLimitValues,
  type LimitHierarchy,
  type LimitSupport,
} from './cgroup-limits.js';

/** One cgroup directory of an attempt. */
export interface AttemptCgroup {
  dir: string;
  /** Mount point of its hierarchy, and the v1 controller naming it (null for v2). */
  mount: string;
  controller: string | null;
  limits: Array<[string, string]>;
}

/** The attempt's cgroups, and the limits it asked for that this host cannot enforce (for a warning). */
export interface AttemptCgroupPlan {
  readonly cgroups: AttemptCgroup[];
  /** `cpuMilli`, `hostMemoryMiB`, `pidsMax`: asked for, but this host has no such controller. */
  readonly notEnforced: string[];
}

/**
 * Plans the cgroups named `key` of an attempt of `spec`.
 * @param freezer the parent directory of the attempt's freezer cgroup and its version; null: no freezer cgroup
 * @throws RangeError for a limit value out of range (cgroup-limits.ts)
 */
export function planAttemptCgroups(
  layout: CgroupLayout,
  limits: LimitSupport,
  freezer: { readonly parentDir: string; readonly version: 'v1' | 'v2' } | null,
  spec: Pick<LaunchSpec, 'cpuMilli' | 'cpuWeight' | 'hostMemoryMiB' | 'pidsMax'>,
  key: string,
): AttemptCgroupPlan {
  const byDir = new Map<string, AttemptCgroup>();
  const add = (at: LimitHierarchy, controller: string, values: Array<[string, string]>): void => {
    const dir = join(at.parentDir, key);
    const mount = at.version === 'v2' ? (layout.v2Mount ?? '') : (layout.v1Mounts[controller] ?? '');
    const entry = byDir.get(dir) ?? { dir, mount, controller: at.version === 'v2' ? null : controller, limits: [] };
    entry.limits.push(...values);
    byDir.set(dir, entry);
  };
  if (freezer !== null) add(freezer, 'freezer', []);
  const { cpu, memory, pids } = limits;
  const pidsMax = spec.pidsMax ?? 0;
  if (spec.cpuWeight !== undefined && cpu !== null) add(cpu, 'cpu', cpuWeightValues(spec.cpuWeight, cpu.version));
  if (spec.cpuMilli > 0 && cpu !== null) add(cpu, 'cpu', cpuLimitValues(spec.cpuMilli, cpu.version));
  if (pidsMax > 0 && pids !== null) add(pids, 'pids', pidsLimitValues(pidsMax));
  if (spec.hostMemoryMiB > 0 && memory !== null)
    add(memory, 'memory', memoryLimitValues(spec.hostMemoryMiB, memory.version));
  const notEnforced = [
    ...(spec.cpuMilli > 0 && cpu === null ? ['cpuMilli'] : []),
    ...(spec.hostMemoryMiB > 0 && memory === null ? ['hostMemoryMiB'] : []),
    ...(pidsMax > 0 && pids === null ? ['pidsMax'] : []),
  ];
  return { cgroups: [...byDir.values()], notEnforced };
}

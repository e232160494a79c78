/**
 * What the kernel counted when an attempt met its host limits, read from its cgroups: how often a
 * fork was refused at `pids.max` (`pids.events` `max`), how many processes the OOM killer ended
 * at the memory limit (v1 `memory.oom_control`, v2 `memory.events`: `oom_kill`) and how many CFS
 * periods held the attempt at its CPU quota (`cpu.stat` `nr_throttled`).
 */
import { join } from 'node:path';
import type { HostLimitEvents } from '../../app/ports/process-launcher.js';
import { readCgroupFile } from './cgroup-dir.js';
import type { LimitSupport } from './cgroup-limits.js';

/**
 * The number after `key` on its line of a flat-keyed control file (`max 3`, `oom_kill 1`); 0 when
 * the line is absent.
 */
export function keyedCount(text: string, key: string): number {
  for (const line of text.split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name === key && value !== undefined && /^\d+$/.test(value)) return Number(value);
  }
  return 0;
}

/** `keyedCount` of control file `file` in `dir`; 0 when the file cannot be read (no such cgroup). */
function countIn(dir: string, file: string, key: string): number {
  try {
    return keyedCount(readCgroupFile(dir, file), key);
  } catch {
    return 0;
  }
}

/**
 * The limit events of the attempt whose cgroups are named `key`, in the hierarchies of `limits`
 * (a hierarchy this host lacks counts 0); without `withCpu` `cpu.stat` is not read (0). Never throws.
 */
export function readLimitEvents(limits: LimitSupport, key: string, withCpu: boolean): HostLimitEvents {
  const { cpu, memory, pids } = limits;
  return {
    pidsMaxHits: pids === null ? 0 : countIn(join(pids.parentDir, key), 'pids.events', 'max'),
    oomKills:
      memory === null
        ? 0
        : countIn(
            join(memory.parentDir, key),
            memory.version === 'v1' ? 'memory.oom_control' : 'memory.events',
            'oom_kill',
          ),
    cpuThrottledPeriods: cpu === null || !withCpu ? 0 : countIn(join(cpu.parentDir, key), 'cpu.stat', 'nr_throttled'),
  };
}

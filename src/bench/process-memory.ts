/**
 * Resident memory of processes, from /proc (Linux): VmRSS (`/proc/<pid>/status`) and PSS
 * (`/proc/<pid>/smaps_rollup`, which shares each shared page among the processes that map it),
 * and what gpushare runs beside one job: the job's process group leader and the processes
 * between it and the command (bubblewrap and its init in the sandbox; none without).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../host/proc-identity.js';

/** Resident memory of a set of processes, KiB. */
export interface MemoryKiB {
  rssKiB: number;
  pssKiB: number;
}

/** A `kB` field of a /proc file, KiB; 0 when missing. */
function kibField(text: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}

/** VmRSS and PSS of process `pid`; zeros when it is gone (or unreadable). */
export function processMemory(pid: number): MemoryKiB {
  try {
    const rssKiB = kibField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
    const pssKiB = kibField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
    return { rssKiB, pssKiB };
  } catch {
    return { rssKiB: 0, pssKiB: 0 };
  }
}

/** The sum of the memory of `pids`. */
export function sumMemory(pids: readonly number[]): MemoryKiB {
  return pids
    .map(processMemory)
    .reduce((a, b) => ({ rssKiB: a.rssKiB + b.rssKiB, pssKiB: a.pssKiB + b.pssKiB }), { rssKiB: 0, pssKiB: 0 });
}

/**
 * The processes gpushare runs for one job beside its command: `jobPid` (the process group leader
 * the supervisor started) and every process from it down to the command's parent. Empty when the
 * command is the leader itself (no sandbox); `[jobPid]` when the command is not found below it.
 */
export function helperPids(jobPid: number, commandPid: number): number[] {
  if (commandPid === jobPid) return [];
  const chain: number[] = [];
  for (let pid = readProcStat(commandPid)?.ppid ?? 0, steps = 0; pid > 1 && steps < 16; steps++) {
    chain.push(pid);
    if (pid === jobPid) return chain;
    pid = readProcStat(pid)?.ppid ?? 0;
  }
  return [jobPid];
}

/** The pids of live processes whose command line holds every one of `parts`. */
export function processesWithArguments(...parts: string[]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (parts.every((part) => args.includes(part))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** KiB as MiB with one decimal. */
export function mib(kib: number): string {
  return (kib / 1024).toFixed(1);
}

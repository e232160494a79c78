/**
 * The members of a process group, read from /proc: used to check that a SIGSTOP took effect and
 * to measure a job's CPU time.
 */
import { readdirSync } from 'node:fs';
import { readProcStat, type ProcStat } from '../../host/proc-identity.js';

/** Clock ticks per second of `/proc/<pid>/stat` CPU times (USER_HZ, 100 on Linux). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** The stat of every live process whose process group is `pgid` (zombies included). */
export function listProcessGroup(pgid: number): ProcStat[] {
  const members: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat !== null && stat.pgrp === pgid) members.push(stat);
  }
  return members;
}

/**
 * CPU time (user + system) of the processes now in process group `pgid`, in milliseconds.
 * Processes that already exited are not counted.
 */
export function processGroupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const stat of listProcessGroup(pgid)) ticks += stat.utimeTicks + stat.stimeTicks;
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * Reads a process's identity from `/proc/<pid>/stat`: its state, process group and start time.
 * A pid alone is not an identity (the kernel reuses pids); pid + start time is.
 */
import { readFileSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` gpushare uses. */
export interface ProcStat {
  /** Process id (field 1). */
  pid: number;
  /** One-letter state (field 3): R, S, D, T, t, Z, X, I, ... */
  state: string;
  /** Parent pid (field 4). */
  ppid: number;
  /** Process group id (field 5). */
  pgrp: number;
  /** Session id (field 6). */
  session: number;
  /** User-mode CPU time in clock ticks (field 14), all threads. */
  utimeTicks: number;
  /** Kernel-mode CPU time in clock ticks (field 15), all threads. */
  stimeTicks: number;
  /** Start time in clock ticks since boot (field 22), kept as the kernel's decimal string. */
  startTime: string;
}

/**
 * Parses the text of `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may
 * itself contain spaces and parentheses, so the remaining fields are read after the LAST ')'.
 * Returns null for text that does not have that shape.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 1 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // Fields from 3 (state) on; index i holds field i + 3.
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  if (!Number.isSafeInteger(pid) || rest.length < 20) return null;
  const int = (i: number): number => Number(rest[i]);
  const startTime = rest[19] ?? '';
  if (!/^\d+$/.test(startTime)) return null;
  return {
    pid,
    state: rest[0] ?? '',
    ppid: int(1),
    pgrp: int(2),
    session: int(3),
    utimeTicks: int(11),
    stimeTicks: int(12),
    startTime,
  };
}

/** Reads and parses `/proc/<pid>/stat`; null when the process does not exist (or is unreadable). */
export function readProcStat(pid: number): ProcStat | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** True for the states of a process that has exited but is not reaped yet (zombie, dead). */
export function isExitedState(state: string): boolean {
  return state === 'Z' || state === 'X' || state === 'x';
}

/**
 * The start time of process `pid` (field 22 of `/proc/<pid>/stat`, clock ticks since boot, as a
 * decimal string), or null when no such process exists.
 */
export function readProcessStartTime(pid: number): string | null {
  return readProcStat(pid)?.startTime ?? null;
}

/**
 * True when process `pid` exists, has not exited (a zombie does not count) and started at
 * `startTime` (as returned by {@link readProcessStartTime}): the same process, not a reused pid.
 */
export function isSameProcess(pid: number, startTime: string): boolean {
  const stat = readProcStat(pid);
  return stat !== null && stat.startTime === startTime && !isExitedState(stat.state);
}

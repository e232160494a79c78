/**
 * File operations on one cgroup directory (v1 or v2): create, write a control file, list and
 * kill its processes, remove it.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitUntil } from './wait-until.js';

/** The errno code of a Node.js system error, or undefined. */
export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Creates the cgroup directory `dir` (and missing parents). Throws on failure (EACCES, ...). */
export function createCgroup(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/**
 * Creates the cgroup directory `dir` when it does not exist yet (making missing parents): true when
 * this call made it, false when it was already there (a leftover the caller must look at). One
 * mkdir in the common case. Throws on any other failure (EACCES, ...).
 */
export function createNewCgroup(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') return false;
    if (code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(dir), { recursive: true });
  try {
    mkdirSync(dir);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/** Writes `value` to control file `file` of cgroup `dir`. Throws the kernel's error (EINVAL, ENOENT, ...). */
export function writeCgroupFile(dir: string, file: string, value: string): void {
  writeFileSync(join(dir, file), value);
}

/** Reads control file `file` of cgroup `dir`, trimmed. Throws when it cannot be read. */
export function readCgroupFile(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8').trim();
}

/** Pids in cgroup `dir` (`cgroup.procs`); empty when the cgroup does not exist. */
export function cgroupPids(dir: string): number[] {
  try {
    return readCgroupFile(dir, 'cgroup.procs')
      .split('\n')
      .filter((s) => s !== '')
      .map(Number);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
}

/** Sends `signal` to every process of cgroup `dir`, ignoring processes that already exited. */
export function signalCgroup(dir: string, signal: NodeJS.Signals): void {
  if (signal === 'SIGKILL' && existsSync(join(dir, 'cgroup.kill'))) {
    try {
      writeCgroupFile(dir, 'cgroup.kill', '1');
      return;
    } catch {
      // fall through to signalling each process
    }
  }
  for (const pid of cgroupPids(dir)) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if (errnoCode(error) !== 'ESRCH') throw error;
    }
  }
}

/**
 * Removes cgroup `dir`: an empty one at once (one rmdir, frozen or not); otherwise a frozen v1/v2
 * cgroup is thawed, every process still in it is killed, then the directory is removed, retrying
 * while the kernel reports it busy, for at most `timeoutMs` milliseconds. A missing directory is
 * fine (idempotent). Throws when it is still there at the deadline.
 */
export async function removeCgroup(dir: string, timeoutMs = 2000): Promise<void> {
  // The common case, an attempt's cgroup whose processes have all ended: one rmdir.
  try {
    rmdirSync(dir);
    return;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
  }
  for (const [file, value] of [
    ['freezer.state', 'THAWED'],
    ['cgroup.freeze', '0'],
  ] as const) {
    if (existsSync(join(dir, file))) {
      try {
        writeCgroupFile(dir, file, value);
      } catch {
        // best effort: a kill below still works for v2
      }
    }
  }
  let lastError: unknown = null;
  const removed = await waitUntil(
    () => {
      try {
        signalCgroup(dir, 'SIGKILL');
        rmdirSync(dir);
        return true;
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return true;
        lastError = error;
        return false;
      }
    },
    timeoutMs,
    10,
  );
  if (!removed) {
    throw new Error(`cannot remove cgroup ${dir}: ${String((lastError as Error | null)?.message ?? 'busy')}`);
  }
}

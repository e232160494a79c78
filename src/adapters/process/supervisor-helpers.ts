/**
 * Helpers of the supervisor (supervisor.ts, supervised-attempt.ts): a process group's signal (the
 * signals freezer uses it too), exec errors in words, the signal of a sandbox's exit code, the
 * sandboxed command's host pid, inherited descriptors, and atomic file writes retried
 * (asynchronously) while the disk is full.
 *
 * Node built-ins only: the supervisor runs on its own from dist/.
 */
import { closeSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';

/** The errno code of an error, or 'unknown'. */
export function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? 'unknown';
}

/**
 * Sends `signal` to process group `pgid`.
 * @param lenient when true, any failure of `kill` answers false (the supervisor's forwarding and
 *   its last SIGKILL, which must never end an attempt with an error); else only ESRCH does
 * @returns true when the signal was sent, false when the group no longer exists
 * @throws the error of `kill` other than ESRCH (EPERM, ...) unless `lenient`
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals, lenient = false): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (lenient || codeOf(error) === 'ESRCH') return false;
    throw error;
  }
}

/** Why exec fails, in words, for the errno codes a command that cannot start gives. */
const START_ERRORS: Readonly<Record<string, string>> = {
  E2BIG: 'the argument list is too long',
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOEXEC: 'not an executable format',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the file name is too long',
  ETXTBSY: 'the file is being written',
  ENOMEM: 'out of memory',
  EAGAIN: 'a process limit is reached',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
};

/**
 * `could not start python: E2BIG (the argument list is too long)`: an outcome's error for a failed
 * exec of `program` (its first 100 characters).
 */
export function couldNotStart(program: string, error: unknown): string {
  const code = codeOf(error);
  const words = START_ERRORS[code];
  const name = program.length > 100 ? `${program.slice(0, 100)}...` : program;
  return `could not start ${name}: ${code}${words === undefined ? '' : ` (${words})`}`;
}

/** The signal name of a sandbox's exit code 128 + N (N a known signal), else null. */
export function signalOfExitCode(exitCode: number | null): string | null {
  if (exitCode === null || exitCode <= 128) return null;
  return Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0] ?? null;
}

/**
 * The pids whose parent is `parentPid` (ascending): from `/proc/<pid>/task/<pid>/children` (the
 * children of its main thread, which is all of them for bubblewrap's single-threaded processes),
 * else, on a kernel without that file, by reading every `/proc/<pid>/stat` (a cost that grows with
 * the number of processes on the host).
 */
function childPids(parentPid: number): number[] {
  try {
    const text = readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8').trim();
    return text === ''
      ? []
      : text
          .split(' ')
          .map(Number)
          .sort((a, b) => a - b);
  } catch {
    if (!existsSync(`/proc/${parentPid}`)) return [];
  }
  return scanChildPids(parentPid);
}

/** The pids whose parent is `parentPid`, from every /proc/<pid>/stat (ascending). */
function scanChildPids(parentPid: number): number[] {
  const children: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parentPid) children.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return children.sort((a, b) => a - b);
}

/**
 * The host pid of a sandboxed command: bubblewrap (`bwrapPid`, the supervisor's child) starts its
 * init process (pid 1 of the job's PID namespace), which starts the command (pid 2 there, after
 * setpriv and the environment shell have exec'd into it); null until that process exists.
 */
export function sandboxedCommandPid(bwrapPid: number): number | null {
  const init = childPids(bwrapPid)[0];
  return init === undefined ? null : (childPids(init)[0] ?? null);
}

/**
 * The process group of a sandboxed command (`commandPid`), read from /proc: bubblewrap's init (pid 1
 * of the job's PID namespace) makes a session of its own (`--new-session`) before it starts the
 * command, so the group is the init's (or the command's own, if it called setsid) and holds the
 * command and its descendants, never bubblewrap's outer process (`bwrapPid`). The init ignores
 * every signal but SIGKILL and SIGSTOP sent from outside its namespace (the kernel's rule for a
 * namespace's init without handlers), so a signal to the group reaches the command's processes
 * only. Null when the command has ended or its group would be bubblewrap's.
 */
export function sandboxedCommandGroup(commandPid: number, bwrapPid: number | null): number | null {
  try {
    const stat = readFileSync(`/proc/${commandPid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses: state, ppid, pgrp, ...
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return Number.isSafeInteger(pgrp) && pgrp > 1 && pgrp !== bwrapPid ? pgrp : null;
  } catch {
    return null;
  }
}

/**
 * Closes the descriptors this process inherited from whoever started it (a log pipe, a socket of
 * the server): they are not close-on-exec, so every job would get them. Node's own descriptors are
 * close-on-exec (O_CLOEXEC, 02000000 in the octal `flags:` of /proc/self/fdinfo) and stay open.
 */
export function closeInheritedDescriptors(): void {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fdinfo');
  } catch {
    return; // no /proc: nothing to learn from
  }
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & 0o2000000) === 0) closeSync(fd);
    } catch {
      // closed meanwhile
    }
  }
}

/** First and longest wait between tries of a write that found the disk full, ms. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5000;

/** Unique suffix of temporary files of this process. */
let tmpCounter = 0;

/**
 * Writes `data` to `path` atomically: a temporary file (mode 0600: job folders may be passable by
 * others) in the same directory, then rename. One try, asynchronous; resolves false (the temporary
 * file removed) when it failed, e.g. on a full disk.
 */
export async function tryWriteAtomically(path: string, data: string): Promise<boolean> {
  const tmp = `${path}.tmp-${process.pid}-${tmpCounter++}`;
  try {
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, path);
    return true;
  } catch {
    await unlink(tmp).catch(() => undefined);
    return false;
  }
}

/**
 * {@link tryWriteAtomically} until it succeeds: a try that fails is repeated 0.5 s, then doubling
 * up to 5 s, later. Other work of the process goes on meanwhile. Resolves once written.
 */
export async function writeAtomicallyUntilDone(path: string, data: string): Promise<void> {
  for (
    let waitMs = RETRY_FIRST_MS;
    !(await tryWriteAtomically(path, data));
    waitMs = Math.min(RETRY_MAX_MS, waitMs * 2)
  ) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

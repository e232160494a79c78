/**
 * The supervisor of one job attempt: `node supervisor.js <attempt-n.launch.json>`.
 *
 * Started detached (its own session) by the launcher, so it outlives the server. It reads and
 * deletes its spec, joins the attempt's cgroups (so the command and all its descendants start
 * inside them), starts the command in its own process group with stdout/stderr appended to the
 * log files, moves itself back out of the cgroups, writes the job's pid file (the process group it
 * signals, and the command's own host pid: in the sandbox the process bubblewrap's init starts),
 * forwards SIGTERM,
 * SIGINT, SIGUSR1, SIGUSR2 and SIGHUP to the job's process group, and when the command ends
 * kills what is left of its process group and writes the outcome atomically (tmp + rename). The
 * command's stdout and stderr come through pipes and are written with a size cap (capped-log.ts:
 * head and tail kept, the cut marked). A full disk stops nothing: log bytes without room are
 * counted and marked, and the pid and outcome files are written again until they fit (the
 * supervisor stays alive meanwhile, so the server waits for the outcome instead of taking the
 * attempt for lost). The
 * outcome says when the first forwarded signal reached the command while it was still running
 * (`signalDeliveredAtMs`), so a job that exits 0 after a preemption signal is known to have been
 * stopped, not to have finished.
 * Exit codes of the supervisor itself: 0 once an outcome is written, 2 when the spec is unreadable.
 *
 * Node built-ins only, sandbox-argv.js and capped-log.js (which import only Node built-ins): this
 * file runs on its own from dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { closeSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { shellEnvironmentFile } from './sandbox-argv.js';
import { CappedLog, DEFAULT_LOG_CAP_BYTES } from './capped-log.js';
import type { SupervisorSpec } from './supervisor-spec.js';

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGUSR1', 'SIGUSR2', 'SIGHUP'];

/** Writes `data` to `path` atomically: a temporary file in the same directory, then rename. */
function writeAtomically(path: string, data: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** The errno code of an error, or 'unknown'. */
function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? 'unknown';
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
function couldNotStart(program: string, error: unknown): string {
  const code = codeOf(error);
  const words = START_ERRORS[code];
  const name = program.length > 100 ? `${program.slice(0, 100)}...` : program;
  return `could not start ${name}: ${code}${words === undefined ? '' : ` (${words})`}`;
}

/** First and longest wait between tries of a write that found the disk full, ms. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5000;

/** Sleeps `ms` without returning to the event loop (nothing is left to do meanwhile). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The capped logs of the command's stdout and stderr, once it runs. */
const logs: CappedLog[] = [];

/**
 * Records the outcome and exits 0. The logs get their tails first. A write that fails (the disk
 * is full) is tried again, 0.5 s then doubling up to 5 s apart, until it succeeds: the outcome
 * (end, exit code, times) is never lost, and the process stays alive until it is written.
 */
function finish(spec: SupervisorSpec, outcome: {
  exitCode: number | null; signal: string | null; startedAtMs: number; error: string | null;
}): never {
  for (const log of logs.splice(0)) log.end();
  const text = `${JSON.stringify({ ...outcome, endedAtMs: Date.now(), signalDeliveredAtMs })}\n`;
  for (let waitMs = RETRY_FIRST_MS; ; waitMs = Math.min(RETRY_MAX_MS, waitMs * 2)) {
    try {
      writeAtomically(spec.outcomePath, text);
      process.exit(0);
    } catch {
      sleepSync(waitMs);
    }
  }
}

/** Writes the pid file; tried again later (while the command runs) when the disk has no room. */
function writePidFile(spec: SupervisorSpec, jobPid: number, commandPid: number | null, waitMs = RETRY_FIRST_MS): void {
  try {
    writeAtomically(spec.pidPath, `${JSON.stringify({ jobPid, commandPid })}\n`);
  } catch {
    setTimeout(() => writePidFile(spec, jobPid, commandPid, Math.min(RETRY_MAX_MS, waitMs * 2)), waitMs).unref();
  }
}

/** Reads the spec file named on the command line and deletes it (it holds the environment). */
function readSpec(): SupervisorSpec {
  const specPath = process.argv[2];
  if (specPath === undefined) process.exit(2);
  try {
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as SupervisorSpec;
    try {
      unlinkSync(specPath);
    } catch {
      // already gone: nothing to protect
    }
    return spec;
  } catch {
    process.exit(2);
  }
}

/** Writes this process's pid to each cgroup of the spec; returns an error message or null. */
function joinCgroups(spec: SupervisorSpec): string | null {
  for (const cgroup of spec.cgroups) {
    try {
      writeFileSync(cgroup.joinProcsFile, String(process.pid));
    } catch (error) {
      return `cannot join cgroup ${cgroup.joinProcsFile}: ${codeOf(error)}`;
    }
  }
  return null;
}

/** Moves this process back to its original cgroups (best effort). */
function leaveCgroups(spec: SupervisorSpec): void {
  for (const cgroup of spec.cgroups) {
    if (cgroup.leaveProcsFile === null) continue;
    try {
      writeFileSync(cgroup.leaveProcsFile, String(process.pid));
    } catch {
      // stays in the job's cgroup: still correct, only frozen and charged with the job
    }
  }
}

/** When a forwarded signal first reached the running command, epoch ms; null while none has. */
let signalDeliveredAtMs: number | null = null;

/** Sends `signal` to process group `pgid`; false when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group has exited
  }
}

/** Longest wait for a sandboxed command to appear before the pid file is written without its pid. */
const COMMAND_PID_WAIT_MS = 2000;

/** The pids whose parent is `parentPid`, from /proc/<pid>/stat (ascending). */
function childPids(parentPid: number): number[] {
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
 * The host pid of a sandboxed command: bubblewrap (`bwrapPid`, which the wrapper shell became)
 * starts its init process (pid 1 of the job's PID namespace), which starts the command (pid 2 there,
 * after setpriv, the environment shell and env have exec'd into it); null until that process exists.
 */
function sandboxedCommandPid(bwrapPid: number): number | null {
  const init = childPids(bwrapPid)[0];
  return init === undefined ? null : (childPids(init)[0] ?? null);
}

/** PATH of the root processes that set a sandbox up (the job's own PATH never reaches them). */
const CLEAN_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The job's environment as a shell file (`export NAME='value'` lines), opened for reading and
 * already unlinked (it holds the job's secrets): a descriptor for the sandbox to copy in.
 */
function openEnvironmentFile(spec: SupervisorSpec): number {
  const path = `${spec.outcomePath}.env-${process.pid}`;
  writeFileSync(path, shellEnvironmentFile(spec.environment), { mode: 0o600 });
  const fd = openSync(path, 'r');
  unlinkSync(path);
  return fd;
}

/** The signal name of a sandbox's exit code 128 + N (N a known signal), else null. */
function signalOfExitCode(exitCode: number | null): string | null {
  if (exitCode === null || exitCode <= 128) return null;
  return Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0] ?? null;
}

/**
 * Closes the descriptors this process inherited from whoever started the server (a log pipe, a
 * socket): they are not close-on-exec, so the job would get them. Node's own descriptors are
 * close-on-exec (O_CLOEXEC, 02000000 in the octal `flags:` of /proc/self/fdinfo) and stay open.
 */
function closeInheritedDescriptors(): void {
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

/** Runs the attempt. */
function main(): void {
  closeInheritedDescriptors();
  const spec = readSpec();
  const startedAtMs = Date.now();
  process.on('uncaughtException', (error) => {
    finish(spec, { exitCode: null, signal: null, startedAtMs, error: `supervisor failed: ${error.message}` });
  });
  let child: ChildProcess | null = null;
  let exited = false;
  for (const signal of FORWARDED_SIGNALS) {
    process.on(signal, () => {
      // Delivered only while the command has not been seen to exit: a signal that comes after
      // its exit stops nothing.
      if (child?.pid !== undefined && !exited && signalGroup(child.pid, signal)) signalDeliveredAtMs ??= Date.now();
    });
  }
  const setupError = joinCgroups(spec);
  if (setupError !== null) finish(spec, { exitCode: null, signal: null, startedAtMs, error: setupError });
  try {
    if (!statSync(spec.workingDirectory).isDirectory()) throw new Error('not a directory');
  } catch {
    finish(spec, { exitCode: null, signal: null, startedAtMs, error: `working directory not found: ${spec.workingDirectory}` });
  }
  const [command, ...args] = spec.argv;
  if (command === undefined || command === '') {
    finish(spec, { exitCode: 127, signal: null, startedAtMs, error: 'command not found: empty argv' });
  }
  const out = openSync(spec.stdoutPath, 'a');
  const err = openSync(spec.stderrPath, 'a');
  const sandboxed = spec.environmentFd !== undefined;
  const environmentFile = sandboxed ? openEnvironmentFile(spec) : null;
  const stdio: (number | 'ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  if (environmentFile !== null) {
    while (stdio.length < spec.environmentFd!) stdio.push('ignore');
    stdio[spec.environmentFd!] = environmentFile;
  }
  let started: ChildProcess;
  try {
    started = spawn(command, args, {
      cwd: spec.workingDirectory, env: sandboxed ? { PATH: CLEAN_PATH } : spec.environment, detached: true, stdio,
    });
  } catch (error) {
    // Node throws at once for most exec failures (E2BIG: the argument list is too long, ...).
    finish(spec, { exitCode: null, signal: null, startedAtMs, error: couldNotStart(command, error) });
  }
  child = started;
  const capBytes = spec.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
  const outLog = new CappedLog(out, capBytes);
  const errLog = new CappedLog(err, capBytes);
  logs.push(outLog, errLog);
  started.stdout?.on('data', (chunk: Buffer) => outLog.write(chunk));
  started.stderr?.on('data', (chunk: Buffer) => errLog.write(chunk));
  if (environmentFile !== null) closeSync(environmentFile);
  leaveCgroups(spec);
  // ... and reports a few (ENOENT, EACCES, EAGAIN, EMFILE) as an event instead.
  started.on('error', (error) => finish(spec, { exitCode: null, signal: null, startedAtMs, error: couldNotStart(command, error) }));
  if (started.pid === undefined) return; // the 'error' event follows
  const jobPid = started.pid;
  // The pid file names the command's own host pid too: in the sandbox it is not jobPid (bubblewrap)
  // but the process bubblewrap starts it in, found once it exists (at most COMMAND_PID_WAIT_MS).
  const sandboxDeadlineMs = Date.now() + COMMAND_PID_WAIT_MS;
  const writePidAndCommand = (): void => {
    const commandPid = sandboxed ? sandboxedCommandPid(jobPid) : jobPid;
    if (commandPid === null && !exited && Date.now() < sandboxDeadlineMs) {
      setTimeout(writePidAndCommand, 5);
      return;
    }
    writePidFile(spec, jobPid, commandPid);
  };
  writePidAndCommand();
  started.on('exit', (exitCode, signal) => {
    exited = true;
    signalGroup(jobPid, 'SIGKILL'); // the attempt ends with its command: no stragglers
    const encoded = spec.exitCodeEncodesSignal === true ? signalOfExitCode(exitCode) : null;
    const outcome = encoded === null ? { exitCode, signal, startedAtMs, error: null } : { exitCode: null, signal: encoded, startedAtMs, error: null };
    // The pipes hold the command's last output: read them to their end (every writer of the group
    // is dead now), at most 2 s in case a process that left the group still holds them.
    let done = false;
    const settle = (): void => {
      if (done) return;
      done = true;
      finish(spec, outcome);
    };
    let open = [started.stdout, started.stderr].filter((s) => s !== null && !s.readableEnded).length;
    if (open === 0) settle();
    for (const stream of [started.stdout, started.stderr]) {
      if (stream === null || stream.readableEnded) continue;
      stream.once('end', () => {
        open -= 1;
        if (open === 0) settle();
      });
    }
    setTimeout(settle, 2000).unref();
  });
}

main();

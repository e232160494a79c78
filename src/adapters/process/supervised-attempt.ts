/**
 * One attempt supervised by the supervisor of a data directory (supervisor.ts): joins the
 * attempt's cgroups, starts the command in its own process group with stdout/stderr written to the
 * capped logs, moves the supervisor back out of the cgroups (join → spawn → leave in one
 * synchronous step, so several attempts never mix), writes the pid file, forwards signals to the
 * process group (recording when the first one reached the running command), and when the command
 * ends kills what is left of its process group and writes the outcome atomically. Writes that find
 * the disk full are tried again asynchronously until they fit: one attempt waiting for room never
 * holds up another. Everything an attempt does is caught: an error ends that attempt only
 * (`supervisor failed: ...`). See docs/processes.md.
 *
 * Node built-ins only (and files that import only them): the supervisor runs on its own from dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CappedLog, DEFAULT_LOG_CAP_BYTES } from './capped-log.js';
import { ownCgroupDirectory } from './cgroup-layout.js';
import { bubblewrapEnvironmentArgs, shellEnvironmentFile } from './sandbox-argv.js';
import {
  codeOf,
  couldNotStart,
  sandboxedCommandGroup,
  sandboxedCommandPid,
  signalGroup,
  signalOfExitCode,
  tryWriteAtomically,
  writeAtomicallyUntilDone,
} from './supervisor-helpers.js';
import type { SupervisorSpec } from './supervisor-spec.js';

/** Longest wait for a sandboxed command to appear before the pid file is written without its pid. */
const COMMAND_PID_WAIT_MS = 2000;
/** Longest wait for the pipes to end after the command exited (a process that left the group may hold them). */
const PIPE_DRAIN_MS = 2000;
/** PATH of the root processes that set a sandbox up (the job's own PATH never reaches them). */
const CLEAN_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** The job's pids once known: both null when the command did not start. */
export interface AttemptPids {
  jobPid: number | null;
  commandPid: number | null;
}

/** What an attempt tells its supervisor. */
export interface AttemptHooks {
  /** The pids are known and the pid file written once (or the command failed and its outcome is written once). */
  onReady(pids: AttemptPids): void;
  /** The outcome is written: the attempt is over. */
  onDone(): void;
  /** A line for the supervisor's log. */
  log(message: string, fields?: object): void;
}

/** How the command ended. */
interface Ending {
  exitCode: number | null;
  signal: string | null;
  error: string | null;
}

/** One supervised attempt; {@link start} runs it. */
export class SupervisedAttempt {
  private child: ChildProcess | null = null;
  /** The sandboxed command's host pid and process group once found (null: not yet, or not sandboxed). */
  private commandPid: number | null = null;
  private exited = false;
  private finished = false;
  private ready = false;
  private signalDeliveredAtMs: number | null = null;
  private readonly logs: CappedLog[] = [];
  private readonly fds: number[] = [];
  /** `cgroup.procs` of the supervisor's own cgroup in each hierarchy joined (null: not found). */
  private readonly homes: (string | null)[] = [];
  private readonly startedAtMs = Date.now();
  /**
   * Settles once the pid file has been tried the first time (at once when the command did not
   * start): the outcome is written after it, so a command that ends at once is still answered with
   * its pids, and a reader who finds the outcome finds the pid file.
   */
  private pidFileTried: Promise<void> = Promise.resolve();

  constructor(
    private readonly spec: SupervisorSpec,
    private readonly hooks: AttemptHooks,
  ) {}

  /** The outcome file: the attempt's name on the channel. */
  get outcomePath(): string {
    return this.spec.outcomePath;
  }

  /**
   * Sends `signal` to the command's process group; true when it reached the command while it was
   * still running (the first such time is recorded as `signalDeliveredAtMs`).
   */
  signal(signal: NodeJS.Signals): boolean {
    const pid = this.child?.pid;
    if (pid === undefined || this.exited) return false;
    // A sandboxed command has a process group of its own (bwrap --new-session), without bubblewrap's
    // outer process, whose default disposition would end the sandbox. Until the command exists
    // there is nothing to deliver to.
    let group: number | null = pid;
    if (this.spec.environmentFd !== undefined) {
      this.commandPid ??= sandboxedCommandPid(pid);
      group = this.commandPid === null ? null : sandboxedCommandGroup(this.commandPid, pid);
    }
    if (group === null || !signalGroup(group, signal, true)) return false;
    this.signalDeliveredAtMs ??= Date.now();
    return true;
  }

  /** Starts the command (synchronously up to the spawn); every failure ends in an outcome. */
  start(): void {
    try {
      this.spawnCommand();
    } catch (error) {
      this.finish({ exitCode: null, signal: null, error: `supervisor failed: ${(error as Error).message}` });
    }
  }

  private spawnCommand(): void {
    const spec = this.spec;
    try {
      if (!statSync(spec.workingDirectory).isDirectory()) throw new Error('not a directory');
    } catch {
      this.finish({ exitCode: null, signal: null, error: `working directory not found: ${spec.workingDirectory}` });
      return;
    }
    const [command, ...args] = spec.argv;
    if (command === undefined || command === '') {
      this.finish({ exitCode: 127, signal: null, error: 'command not found: empty argv' });
      return;
    }
    const out = this.open(spec.stdoutPath);
    const err = this.open(spec.stderrPath);
    const sandboxed = spec.environmentFd !== undefined;
    const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
    if (sandboxed) {
      // The job's environment goes through a pipe (never a file): the sandbox reads it to its end.
      while (stdio.length < spec.environmentFd!) stdio.push('ignore');
      stdio[spec.environmentFd!] = 'pipe';
    }
    const joinError = this.joinCgroups();
    if (joinError !== null) {
      this.leaveCgroups();
      this.finish({ exitCode: null, signal: null, error: joinError });
      return;
    }
    let started: ChildProcess;
    // The user-namespace chain starts under the tenant's uid with umask 077 (inherited at the fork).
    const umask = spec.runAs !== undefined ? process.umask(0o077) : null;
    try {
      started = spawn(command, args, {
        cwd: spec.workingDirectory,
        env: sandboxed ? { PATH: CLEAN_PATH } : spec.environment,
        detached: true,
        stdio,
        ...(spec.runAs !== undefined ? { uid: spec.runAs.uid, gid: spec.runAs.gid } : {}),
      });
    } catch (error) {
      // Node throws at once for most exec failures (E2BIG: the argument list is too long, ...).
      this.finish({ exitCode: null, signal: null, error: couldNotStart(command, error) });
      return;
    } finally {
      if (umask !== null) process.umask(umask);
      // In the same tick as the join: the next attempt's join finds the supervisor back home.
      this.leaveCgroups();
    }
    if (sandboxed) this.sendEnvironment(started.stdio[spec.environmentFd!]);
    this.child = started;
    const capBytes = spec.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
    const outLog = new CappedLog(out, capBytes);
    const errLog = new CappedLog(err, capBytes);
    this.logs.push(outLog, errLog);
    started.stdout?.on('data', (chunk: Buffer) => outLog.write(chunk));
    started.stderr?.on('data', (chunk: Buffer) => errLog.write(chunk));
    // ... and reports a few (ENOENT, EACCES, EAGAIN, EMFILE) as an event instead.
    started.on('error', (error) => this.finish({ exitCode: null, signal: null, error: couldNotStart(command, error) }));
    if (started.pid === undefined) return; // the 'error' event follows
    const jobPid = started.pid;
    started.on('exit', (exitCode, signal) => this.onExit(started, exitCode, signal));
    this.pidFileTried = this.writePidFile(jobPid, sandboxed);
  }

  /** Opens a log file for appending, private to root (mode 0600; closed when the attempt ends). */
  private open(path: string): number {
    const fd = openSync(path, 'a', 0o600);
    this.fds.push(fd);
    return fd;
  }

  /**
   * Writes the job's environment, encoded as the spec says, on the sandbox's pipe and closes it.
   * A sandbox that ends before reading it all breaks the pipe: that error is the sandbox's to report.
   */
  private sendEnvironment(pipe: Readable | Writable | null | undefined): void {
    if (pipe === null || pipe === undefined || !('end' in pipe)) return;
    const stream = pipe as Writable;
    stream.on('error', () => undefined);
    const encoded =
      this.spec.runAs !== undefined
        ? bubblewrapEnvironmentArgs(this.spec.environment)
        : shellEnvironmentFile(this.spec.environment);
    // Written to the socket's far end (it stays readable after this end closes): nothing lingers.
    stream.end(encoded, () => stream.destroy());
  }

  /**
   * Writes the supervisor's pid to each cgroup of the spec, noting first the cgroup it leaves in
   * each hierarchy; an error message or null.
   */
  private joinCgroups(): string | null {
    let procSelfCgroup: string | undefined;
    try {
      procSelfCgroup = this.spec.cgroups.length > 0 ? readFileSync('/proc/self/cgroup', 'utf8') : undefined;
    } catch {
      procSelfCgroup = undefined; // each hierarchy tries again on its own
    }
    for (const cgroup of this.spec.cgroups) {
      const home = ownCgroupDirectory(cgroup.mount, cgroup.controller, procSelfCgroup);
      this.homes.push(home === null ? null : join(home, 'cgroup.procs'));
    }
    for (const cgroup of this.spec.cgroups) {
      try {
        writeFileSync(cgroup.joinProcsFile, String(process.pid));
      } catch (error) {
        return `cannot join cgroup ${cgroup.joinProcsFile}: ${codeOf(error)}`;
      }
    }
    return null;
  }

  /** Moves the supervisor back to its original cgroups (best effort). */
  private leaveCgroups(): void {
    for (const home of this.homes.splice(0)) {
      if (home === null) continue;
      try {
        writeFileSync(home, String(process.pid));
      } catch (error) {
        this.hooks.log('cannot leave a job cgroup', { cgroup: home, code: codeOf(error) });
      }
    }
  }

  /**
   * Writes the pid file once the command's own pid is known (in the sandbox it is not jobPid but
   * the process bubblewrap starts it in, found within COMMAND_PID_WAIT_MS), then reports ready;
   * resolves after this first try. A write that finds the disk full goes on in the background.
   */
  private async writePidFile(jobPid: number, sandboxed: boolean): Promise<void> {
    try {
      let commandPid = sandboxed ? sandboxedCommandPid(jobPid) : jobPid;
      const deadlineMs = Date.now() + COMMAND_PID_WAIT_MS;
      while (commandPid === null && !this.exited && Date.now() < deadlineMs) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        commandPid = sandboxedCommandPid(jobPid);
      }
      if (sandboxed) this.commandPid ??= commandPid;
      const text = `${JSON.stringify({ jobPid, commandPid })}\n`;
      const written = await tryWriteAtomically(this.spec.pidPath, text);
      this.reportReady({ jobPid, commandPid });
      if (!written) {
        this.hooks.log('the pid file does not fit: trying again', { pidPath: this.spec.pidPath });
        void writeAtomicallyUntilDone(this.spec.pidPath, text);
      }
    } catch (error) {
      this.hooks.log('the pid file could not be written', {
        pidPath: this.spec.pidPath,
        error: (error as Error).message,
      });
      this.reportReady({ jobPid, commandPid: null });
    }
  }

  private reportReady(pids: AttemptPids): void {
    if (this.ready) return;
    this.ready = true;
    this.hooks.onReady(pids);
  }

  /** The command exited: kill its group's stragglers, read the pipes to their end, record the outcome. */
  private onExit(started: ChildProcess, exitCode: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    // The attempt ends with its command: no stragglers.
    if (started.pid !== undefined) signalGroup(started.pid, 'SIGKILL', true);
    const encoded = this.spec.exitCodeEncodesSignal === true ? signalOfExitCode(exitCode) : null;
    const ending =
      encoded === null ? { exitCode, signal, error: null } : { exitCode: null, signal: encoded, error: null };
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.finish(ending);
    };
    const timer = setTimeout(settle, PIPE_DRAIN_MS);
    const streams = [started.stdout, started.stderr].filter((s) => s !== null && !s.readableEnded);
    let open = streams.length;
    for (const stream of streams) {
      stream?.once('end', () => {
        open -= 1;
        if (open === 0) settle();
      });
    }
    if (open === 0) settle();
  }

  /** Ends the logs (their tails), writes the outcome until it fits, then reports done. */
  private finish(ending: Ending): void {
    if (this.finished) return;
    this.finished = true;
    for (const log of this.logs.splice(0)) {
      try {
        log.end();
      } catch (error) {
        this.hooks.log('a log tail could not be written', { error: (error as Error).message });
      }
    }
    for (const fd of this.fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    const outcome = {
      ...ending,
      startedAtMs: this.startedAtMs,
      endedAtMs: Date.now(),
      signalDeliveredAtMs: this.signalDeliveredAtMs,
    };
    const fields = {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      startedAtMs: outcome.startedAtMs,
      endedAtMs: outcome.endedAtMs,
      error: outcome.error,
      signalDeliveredAtMs: outcome.signalDeliveredAtMs,
    };
    const text = `${JSON.stringify(fields)}\n`;
    void (async () => {
      // After the pid file's first try: else a command that ends at once would be answered
      // without its pids (commandPid null) and leave an outcome before its pid file.
      await this.pidFileTried;
      if (!(await tryWriteAtomically(this.spec.outcomePath, text))) {
        this.reportReady({ jobPid: this.child?.pid ?? null, commandPid: null });
        this.hooks.log('the outcome does not fit: trying again', { outcomePath: this.spec.outcomePath });
        await writeAtomicallyUntilDone(this.spec.outcomePath, text);
      }
      this.reportReady({ jobPid: this.child?.pid ?? null, commandPid: null });
      this.hooks.onDone();
    })();
  }
}

/**
 * The {@link ProcessLauncher} of the standalone server: each attempt runs as a real process tree
 * under the one detached supervisor of the data directory (`supervisor.ts`, reached through
 * `supervisor-client.ts`), in its own cgroups where the host has them. Handles of attempts started
 * by an older gpushare, one supervisor per attempt, keep working (signalled directly).
 * See docs/processes.md.
 */
import { existsSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  FreezerKind,
  HostLimitEvents,
  JobIsolation,
  LaunchSpec,
  LimitEnforcement,
  ProcessHandle,
  ProcessLauncher,
  ProcessOutcome,
} from '../../app/ports/process-launcher.js';
import {
  attemptCgroupKey,
  attemptFiles,
  readCommandPidFile,
  readJobPidFile,
  readOutcomeFile,
} from './attempt-files.js';
import { cgroupPids, createNewCgroup, errnoCode, removeCgroup, signalCgroup } from './cgroup-dir.js';
import { cgroupMounts, detectCgroupLayout, type CgroupLayout } from './cgroup-layout.js';
import { capAllJobsPids, detectLimitSupport, writeLimits, type LimitSupport } from './cgroup-limits.js';
import { planAttemptCgroups, type AttemptCgroup } from './attempt-cgroups.js';
import { readLimitEvents } from './cgroup-limit-events.js';
import { createFreezer, detectFreezerKinds, type Freezer } from './freezer.js';
import { isSameProcess } from '../../host/proc-identity.js';
import { resolveExecutable } from '../../host/resolve-executable.js';
import type { JobSandbox } from './sandbox.js';
import { SANDBOX_ENVIRONMENT_FD } from './sandbox-argv.js';
import { SupervisorClient, type SupervisorIdentity } from './supervisor-client.js';
import { SUPERVISOR_PROTOCOL_VERSION } from './supervisor-protocol.js';
import { sandboxedCommandGroup } from './supervisor-helpers.js';
import type { SupervisorCgroup, SupervisorSpec } from './supervisor-spec.js';
import { waitUntil } from './wait-until.js';

/** The subset of a pino logger the launcher uses. */
export interface LauncherLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Options of {@link createChildProcessLauncher}. */
export interface ChildProcessLauncherOptions {
  /** Freezer backend, or 'auto' (default) for the best one this host has. A forced backend the host lacks throws. */
  freezer?: FreezerKind | 'auto';
  /** Directory under which the cgroup hierarchies are mounted; default `/sys/fs/cgroup`. */
  cgroupRoot?: string;
  /** Parent directory of all job cgroups inside each hierarchy; default `gpushare`. */
  cgroupParent?: string;
  /** The supervisor script; default `supervisor.js` beside this module (dist/adapters/process/). */
  supervisorPath?: string;
  /**
   * The supervisor's directory (its socket, start lock and log; made with mode 0700): one
   * supervisor serves every launcher of the same directory. `gpushare serve` uses
   * `<data dir>/supervisor`.
   */
  supervisorDirectory: string;
  /** How long a supervisor with no attempt and no launcher connected waits before it exits, ms; default 30000. */
  supervisorIdleExitMs?: number;
  /** Longest wait for a freeze to take effect, milliseconds; default 2000. */
  freezeTimeoutMs?: number;
  /**
   * Longest wait in `start` for the supervisor to start the command (and, once, for a new supervisor to answer),
   * milliseconds; default 5000.
   */
  startTimeoutMs?: number;
  /** Logger for warnings (limits not enforced, failed thaws). */
  logger?: LauncherLogger;
  /** Runs every attempt in this sandbox under its tenant's uid (docs/security.md); default none. */
  sandbox?: JobSandbox | null;
  /** Without a sandbox: why, for the operator (JobIsolation.detail). */
  unsandboxedDetail?: string;
  /** Most bytes kept of each attempt's stdout and of its stderr (capped-log.ts); default 64 MiB. */
  logCapBytes?: number;
}

/** True when `path` is a regular file (an outcome written). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Throws RangeError unless `value` is an integer ≥ `min`. */
function checkInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
}

/** {@link ProcessLauncher} on child processes, cgroups and /proc. */
class ChildProcessLauncher implements ProcessLauncher {
  readonly freezerKind: FreezerKind;
  readonly enforcement: LimitEnforcement;
  readonly isolation: JobIsolation;
  private readonly freezers = new Map<FreezerKind, Freezer>();
  private readonly limits: LimitSupport;
  private readonly supervisor: SupervisorClient;

  constructor(
    private readonly layout: CgroupLayout,
    private readonly cgroupParent: string,
    requested: FreezerKind | 'auto',
    private readonly supervisorPath: string,
    private readonly freezeTimeoutMs: number,
    private readonly startTimeoutMs: number,
    private readonly logger: LauncherLogger | undefined,
    private readonly sandbox: JobSandbox | null,
    unsandboxedDetail: string,
    private readonly logCapBytes: number | undefined,
    supervisorDirectory: string,
    supervisorIdleExitMs: number,
  ) {
    this.supervisor = new SupervisorClient({
      directory: supervisorDirectory,
      supervisorPath,
      idleExitMs: supervisorIdleExitMs,
      connectTimeoutMs: Math.max(startTimeoutMs, 10_000),
    });
    this.isolation =
      sandbox !== null
        ? {
            sandboxed: true,
            detail:
              "each job runs under its tenant's own uid in a bubblewrap sandbox" +
              (sandbox.chain === 'user-namespace'
                ? ', in a user namespace of its own'
                : ' set up as root, then setpriv'),
          }
        : { sandboxed: false, detail: unsandboxedDetail };
    const available = detectFreezerKinds(layout, cgroupParent);
    if (requested !== 'auto' && !available.includes(requested)) {
      throw new Error(
        `freezer backend ${requested} is not available on this host (available: ${available.join(', ')})`,
      );
    }
    this.freezerKind = requested === 'auto' ? (available[0] ?? 'signals') : requested;
    this.limits = detectLimitSupport(layout, cgroupParent);
    if (this.limits.pids !== null)
      capAllJobsPids(this.limits.pids.parentDir, (message) => this.logger?.warn({}, message));
    this.enforcement = {
      cpuMilli: this.limits.cpu !== null,
      hostMemoryMiB: this.limits.memory !== null,
      pidsMax: this.limits.pids !== null,
      cpuWeight: this.limits.cpu !== null,
    };
  }

  /** The freezer of `kind` (cached). Throws when this host lacks its hierarchy. */
  private freezer(kind: FreezerKind): Freezer {
    let freezer = this.freezers.get(kind);
    if (freezer === undefined) {
      freezer = createFreezer(kind, this.layout, this.cgroupParent);
      this.freezers.set(kind, freezer);
    }
    return freezer;
  }

  /** The cgroups an attempt of `spec` joins, with the limit values to write into each (attempt-cgroups.ts). */
  /**
   * The supervisor spec's sandbox fields: the environment's descriptor, and for the user-namespace
   * chain the tenant's uid and gid to start bubblewrap under (which also says how the environment
   * is encoded).
   */
  private sandboxStart(spec: LaunchSpec): Pick<SupervisorSpec, 'environmentFd' | 'runAs'> {
    const sandbox = this.sandbox!;
    if (sandbox.chain === 'setpriv') return { environmentFd: SANDBOX_ENVIRONMENT_FD };
    const uid = sandbox.uidOf(spec.sandbox!.tenant); // commandLine refused a spec without it
    return { environmentFd: SANDBOX_ENVIRONMENT_FD, runAs: { uid, gid: uid } };
  }

  private plannedCgroups(spec: LaunchSpec, key: string): AttemptCgroup[] {
    const freezerDir = this.freezer(this.freezerKind).cgroupDirectory(key);
    const freezer =
      freezerDir === null
        ? null
        : {
            parentDir: join(freezerDir, '..'),
            version: this.freezerKind === 'cgroup-v2' ? ('v2' as const) : ('v1' as const),
          };
    const plan = planAttemptCgroups(this.layout, this.limits, freezer, spec, key);
    for (const limit of plan.notEnforced)
      this.logger?.warn({ jobId: spec.jobId, limit }, `${limit} not enforced: this host has no such cgroup controller`);
    return plan.cgroups;
  }

  /** Every directory cgroup `key` may have on this host (all hierarchies). */
  private cgroupDirectories(key: string): string[] {
    return cgroupMounts(this.layout).map((m) => join(m, this.cgroupParent, key));
  }

  /** {@inheritDoc ProcessLauncher.start} */
  async start(spec: LaunchSpec): Promise<ProcessHandle> {
    checkInteger('jobId', spec.jobId, 1);
    checkInteger('attempt', spec.attempt, 1);
    checkInteger('cpuMilli', spec.cpuMilli, 0);
    checkInteger('hostMemoryMiB', spec.hostMemoryMiB, 0);
    checkInteger('pidsMax', spec.pidsMax ?? 0, 0);
    if (spec.cpuWeight !== undefined) checkInteger('cpuWeight', spec.cpuWeight, 1);
    if (spec.argv.length === 0) throw new RangeError('argv must not be empty');
    if (!existsSync(spec.jobDirectory)) throw new Error(`job directory not found: ${spec.jobDirectory}`);
    if (!existsSync(this.supervisorPath))
      throw new Error(`supervisor not found at ${this.supervisorPath} (run npm run build)`);
    const files = attemptFiles(spec.jobDirectory, spec.attempt);
    for (const stale of [files.pidPath, files.outcomePath, files.launchSpecPath]) {
      try {
        unlinkSync(stale);
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT') throw error;
      }
    }
    const key = attemptCgroupKey(spec.jobId, spec.attempt);
    const cgroups = this.plannedCgroups(spec, key);
    const joined: SupervisorCgroup[] = [];
    for (const cgroup of cgroups) {
      if (!createNewCgroup(cgroup.dir)) {
        const users = cgroupPids(cgroup.dir);
        if (users.length > 0) {
          throw new Error(
            `cgroup ${cgroup.dir} is in use by pid(s) ${users.join(', ')}: another server or a lost attempt ` +
              `(use another cgroupParent or clean it up)`,
          );
        }
        await removeCgroup(cgroup.dir); // an empty leftover: may still hold old limits or a frozen state
        createNewCgroup(cgroup.dir);
      }
      writeLimits(cgroup.dir, cgroup.limits);
      joined.push({
        joinProcsFile: join(cgroup.dir, 'cgroup.procs'),
        mount: cgroup.mount,
        controller: cgroup.controller,
      });
    }
    const handleBase = {
      cgroupKey: cgroups.length > 0 ? key : null,
      freezerKind: this.freezerKind,
      stdoutPath: files.stdoutPath,
      stderrPath: files.stderrPath,
      pidPath: files.pidPath,
      outcomePath: files.outcomePath,
    };
    const supervisorSpec: SupervisorSpec = {
      argv: this.sandbox === null ? [...spec.argv] : this.sandbox.commandLine(spec),
      exitCodeEncodesSignal: this.sandbox !== null,
      ...(this.sandbox !== null ? this.sandboxStart(spec) : {}),
      workingDirectory: spec.workingDirectory,
      environment: { ...spec.environment },
      cgroups: joined,
      stdoutPath: files.stdoutPath,
      stderrPath: files.stderrPath,
      pidPath: files.pidPath,
      outcomePath: files.outcomePath,
      ...(this.logCapBytes === undefined ? {} : { logCapBytes: this.logCapBytes }),
    };
    const fail = async (why: string): Promise<never> => {
      await this.cleanup({ ...handleBase, supervisorPid: 0, supervisorStartTime: '', jobPid: null });
      try {
        unlinkSync(files.launchSpecPath);
      } catch {
        // read and deleted by the supervisor
      }
      throw new Error(`cannot start job ${spec.jobId} attempt ${spec.attempt}: ${why}`);
    };
    let identity: SupervisorIdentity;
    try {
      identity = await this.supervisor.identity();
    } catch (error) {
      return fail((error as Error).message);
    }
    // An older supervisor (still running the jobs of an earlier release) would ignore `runAs` and
    // start the user-namespace chain as root: it gets no such launch.
    if (supervisorSpec.runAs !== undefined && identity.version < SUPERVISOR_PROTOCOL_VERSION)
      return fail(
        `the supervisor (pid ${identity.pid}) is from an earlier release (protocol ${identity.version}) and cannot ` +
          `start sandboxed jobs under their tenant's uid; it exits once its jobs have ended, or stop it`,
      );
    writeFileSync(files.launchSpecPath, JSON.stringify(supervisorSpec), { mode: 0o600 });
    const handle: ProcessHandle = {
      ...handleBase,
      supervisorPid: identity.pid,
      supervisorStartTime: identity.startTime,
      supervisorShared: true,
      jobPid: null,
    };
    const answer = await this.supervisor.request({ op: 'start', specPath: files.launchSpecPath }, this.startTimeoutMs);
    if (answer !== null && !answer.ok) return fail(answer.error);
    if (answer !== null && answer.op === 'start') {
      handle.jobPid = answer.jobPid;
      handle.commandPid = answer.commandPid;
    } else {
      // No answer in time (a full disk holds the pid file back) or the supervisor went away.
      handle.jobPid = readJobPidFile(files.pidPath);
      handle.commandPid = readCommandPidFile(files.pidPath);
      if (handle.jobPid === null && this.readOutcome(handle) === null && !this.isAlive(handle)) {
        return fail(`the supervisor (pid ${identity.pid}) went away before starting the command`);
      }
    }
    this.logger?.info(
      {
        jobId: spec.jobId,
        attempt: spec.attempt,
        supervisorPid: identity.pid,
        jobPid: handle.jobPid,
        commandPid: handle.commandPid,
      },
      'attempt started',
    );
    return handle;
  }

  /** {@inheritDoc ProcessLauncher.isAlive} */
  isAlive(handle: ProcessHandle): boolean {
    if (!isSameProcess(handle.supervisorPid, handle.supervisorStartTime)) return false;
    // The shared supervisor outlives the attempt: it vouches for it until the outcome is written.
    return handle.supervisorShared !== true || !isFile(handle.outcomePath);
  }

  /** {@inheritDoc ProcessLauncher.readOutcome} */
  readOutcome(handle: ProcessHandle): ProcessOutcome | null {
    return readOutcomeFile(handle.outcomePath);
  }

  /** The job's pid: from the handle, else from the pid file (null when not known). */
  private jobPid(handle: ProcessHandle): number | null {
    return handle.jobPid ?? readJobPidFile(handle.pidPath);
  }

  /**
   * The process group of a sandboxed command, which runs in a session of its own (bwrap
   * --new-session; supervisor-helpers.ts sandboxedCommandGroup); null when not known or not sandboxed.
   */
  private commandGroup(handle: ProcessHandle): number | null {
    if (handle.supervisorShared !== true || this.sandbox === null) return null;
    const commandPid = handle.commandPid ?? readCommandPidFile(handle.pidPath);
    const jobPid = this.jobPid(handle);
    return commandPid !== null && commandPid !== jobPid ? sandboxedCommandGroup(commandPid, jobPid) : null;
  }

  /** {@inheritDoc ProcessLauncher.stop} */
  async stop(handle: ProcessHandle, signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const killCgroups = (sig: NodeJS.Signals): void => {
      if (handle.cgroupKey !== null) for (const dir of this.cgroupDirectories(handle.cgroupKey)) signalCgroup(dir, sig);
    };
    try {
      await this.thaw(handle);
    } catch (error) {
      this.logger?.warn({ supervisorPid: handle.supervisorPid, err: error }, 'thaw before stop failed');
    }
    if (!this.isAlive(handle)) {
      killCgroups('SIGKILL'); // an orphaned tree of a dead supervisor
      return;
    }
    const jobPid = this.jobPid(handle);
    const send = (pid: number, sig: NodeJS.Signals): void => {
      try {
        process.kill(pid, sig);
      } catch (error) {
        if (errnoCode(error) !== 'ESRCH') throw error;
      }
    };
    // Through the supervisor, which forwards the signal to the job's process group and records
    // whether the command was still running when it arrived. SIGKILL goes to the group itself
    // (the supervisor then records the kill), as does a signal the supervisor did not take.
    if (signal === 'SIGKILL' && jobPid !== null) send(-jobPid, signal);
    else if (handle.supervisorShared !== true)
      send(handle.supervisorPid, signal); // a supervisor of an older gpushare forwards what it gets
    else {
      const answer = await this.supervisor.request(
        { op: 'signal', outcomePath: handle.outcomePath, signal },
        Math.max(1000, graceMs),
      );
      if (answer === null || !answer.ok) {
        // A sandboxed command has a process group of its own; bubblewrap's must not get the signal.
        const group = this.commandGroup(handle) ?? jobPid;
        if (group !== null) send(-group, signal);
      }
    }
    if (await waitUntil(() => !this.isAlive(handle), graceMs, 10)) return;
    if (jobPid !== null) send(-jobPid, 'SIGKILL');
    killCgroups('SIGKILL');
  }

  /** {@inheritDoc ProcessLauncher.freeze} */
  async freeze(handle: ProcessHandle): Promise<void> {
    if (!this.isAlive(handle)) return;
    await this.freezer(handle.freezerKind).freeze(
      { cgroupKey: handle.cgroupKey, jobPid: this.jobPid(handle), commandPid: this.commandGroup(handle) },
      this.freezeTimeoutMs,
    );
  }

  /** {@inheritDoc ProcessLauncher.thaw} */
  async thaw(handle: ProcessHandle): Promise<void> {
    // Signals go to a pid: only while the supervisor vouches that it is still the job's.
    if (handle.freezerKind === 'signals' && !this.isAlive(handle)) return;
    await this.freezer(handle.freezerKind).thaw({
      cgroupKey: handle.cgroupKey,
      jobPid: this.jobPid(handle),
      commandPid: this.commandGroup(handle),
    });
  }

  /** {@inheritDoc ProcessLauncher.close} */
  close(): void {
    this.supervisor.close();
    for (const dir of cgroupMounts(this.layout).map((m) => join(m, this.cgroupParent))) {
      try {
        rmdirSync(dir); // fails while any attempt's cgroup is still in it: those stay
      } catch {
        // busy, or never made
      }
    }
  }

  /** {@inheritDoc ProcessLauncher.limitEvents} */
  limitEvents(handle: ProcessHandle, options?: { readonly cpu: boolean }): HostLimitEvents | null {
    return handle.cgroupKey === null ? null : readLimitEvents(this.limits, handle.cgroupKey, options?.cpu ?? true);
  }

  /** {@inheritDoc ProcessLauncher.cleanup} */
  async cleanup(handle: ProcessHandle): Promise<void> {
    if (handle.cgroupKey === null) return;
    for (const dir of this.cgroupDirectories(handle.cgroupKey)) await removeCgroup(dir);
  }

  /** {@inheritDoc ProcessLauncher.readAttemptOutcome} */
  readAttemptOutcome(jobDirectory: string, attempt: number): ProcessOutcome | null {
    try {
      return readOutcomeFile(attemptFiles(jobDirectory, attempt).outcomePath);
    } catch {
      return null;
    }
  }

  /** {@inheritDoc ProcessLauncher.killUnrecordedAttempt} */
  async killUnrecordedAttempt(jobId: number, jobDirectory: string, attempt: number): Promise<void> {
    const files = attemptFiles(jobDirectory, attempt);
    await this.cleanup({
      supervisorPid: 0,
      supervisorStartTime: '',
      jobPid: null,
      cgroupKey: attemptCgroupKey(jobId, attempt),
      freezerKind: this.freezerKind,
      stdoutPath: files.stdoutPath,
      stderrPath: files.stderrPath,
      pidPath: files.pidPath,
      outcomePath: files.outcomePath,
    });
  }

  /** {@inheritDoc ProcessLauncher.jobUser} */
  jobUser(tenant: string): { uid: number; gid: number } | null {
    if (this.sandbox === null) return null;
    const uid = this.sandbox.uidOf(tenant);
    return { uid, gid: uid };
  }

  /** {@inheritDoc ProcessLauncher.workingDirectoryProblem} */
  workingDirectoryProblem(path: string, tenant: string): string | null {
    if (this.sandbox !== null) return this.sandbox.workingDirectoryProblem(path, tenant);
    try {
      return statSync(path).isDirectory() ? null : `"${path}" is not a directory`;
    } catch {
      return `directory "${path}" does not exist on the server`;
    }
  }

  /** {@inheritDoc ProcessLauncher.resolveExecutable} */
  resolveExecutable(
    argv0: string,
    workingDirectory: string,
    environment: Readonly<Record<string, string>>,
    tenant?: string,
  ): string | null {
    const found = resolveExecutable(argv0, workingDirectory, environment);
    // With the sandbox, a program the tenant's uid cannot run, or one inside a hidden folder or the
    // host's /tmp, is as absent as a missing one (the answer must not tell a tenant what folders it
    // cannot enter hold).
    if (found === null || this.sandbox === null) return found;
    if (this.sandbox.isInvisible(found) || (tenant !== undefined && !this.sandbox.canRun(found, tenant))) return null;
    return found;
  }
}

/**
 * Creates the launcher. Detects the cgroup layout, the freezer backends and the enforceable
 * limits once (probing creates `<hierarchy>/<cgroupParent>` directories). Throws when
 * `options.freezer` names a backend this host lacks.
 */
export function createChildProcessLauncher(options: ChildProcessLauncherOptions): ProcessLauncher {
  const supervisorPath = options.supervisorPath ?? fileURLToPath(new URL('./supervisor.js', import.meta.url));
  return new ChildProcessLauncher(
    detectCgroupLayout(options.cgroupRoot),
    options.cgroupParent ?? 'gpushare',
    options.freezer ?? 'auto',
    supervisorPath,
    options.freezeTimeoutMs ?? 2000,
    options.startTimeoutMs ?? 5000,
    options.logger,
    options.sandbox ?? null,
    options.unsandboxedDetail ?? "jobs run as the server's own user, without a sandbox",
    options.logCapBytes,
    options.supervisorDirectory,
    options.supervisorIdleExitMs ?? 30_000,
  );
}

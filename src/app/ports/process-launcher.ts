/**
 * Port: how the standalone server (`gpushare serve`) runs one job attempt as a real process tree
 * on this host, and how it finds that tree again after the server restarts.
 *
 * Every attempt runs under a supervisor process (one for all attempts of a server) that outlives
 * the server; the supervisor records the job's pid and, when the job ends, its outcome in files of the job directory.
 * The
 * server persists the {@link ProcessHandle} and, after a restart, re-adopts the attempt by
 * checking the supervisor's pid together with its start time (safe against PID reuse).
 *
 * Types only; the adapter is `src/adapters/process/child-process-launcher.ts`.
 */

/** How a launcher stops (freezes) a job's process tree. */
export type FreezerKind = 'cgroup-v2' | 'cgroup-v1' | 'signals';

/** What to run for one attempt of one job. */
export interface LaunchSpec {
  /** Job id (positive integer). */
  jobId: number;
  /** Attempt number, 1-based; file names and cgroup names include it. */
  attempt: number;
  /** Command and arguments; `argv[0]` is resolved like execvp does (PATH of `environment`). */
  argv: readonly string[];
  /** Working directory of the command (absolute). */
  workingDirectory: string;
  /** The complete environment of the command: the caller merges any defaults in. */
  environment: Readonly<Record<string, string>>;
  /** Existing per-job directory: logs, pid and outcome files of every attempt go here. */
  jobDirectory: string;
  /** Host CPU limit in milli-cores (1000 = one vCPU); 0 = no limit. */
  cpuMilli: number;
  /** Host memory limit in MiB; 0 = no limit. */
  hostMemoryMiB: number;
  /** Most processes and threads the attempt may have at once (`pids.max`); 0 or absent = no limit. */
  pidsMax?: number;
  /** CPU weight of the attempt's cgroup against the server and other jobs (1-10000, v2 `cpu.weight`); absent = none. */
  cpuWeight?: number;
  /** What a sandboxing launcher needs (docs/security.md); ignored by a launcher without a sandbox. */
  sandbox?: LaunchSandboxSpec;
}

/** The parts of a launch a job sandbox is built from. */
export interface LaunchSandboxSpec {
  /** The job's tenant: its jobs run under the tenant's own uid. */
  readonly tenant: string;
  /** Minor numbers of the job's GPUs (`/dev/nvidiaN`). */
  readonly gpuMinors: readonly number[];
  /** The MIG instances given to the job (their capability device nodes). */
  readonly migInstances: readonly {
    readonly gpuMinor: number;
    readonly gpuInstanceId: number;
    readonly computeInstanceId: number;
  }[];
  /** Directories the job owns (its private working directory, its checkpoint directory): given to its uid, writable. */
  readonly ownedDirectories: readonly string[];
  /** Further directories it may write without owning them (an MPS daemon's pipe directory). */
  readonly sharedDirectories: readonly string[];
}

/** How a launcher keeps jobs apart on the host. */
export interface JobIsolation {
  /** True when every attempt runs in a sandbox under its tenant's uid. */
  readonly sandboxed: boolean;
  /** One line for the operator: how jobs run, or why they are not sandboxed. */
  readonly detail: string;
}

/**
 * Where a started attempt lives. Plain JSON-serialisable data: the server persists it and hands
 * it back to the launcher, possibly in a later server process.
 */
export interface ProcessHandle {
  /** Pid of the supervisor process. */
  supervisorPid: number;
  /** Start time of the supervisor: field 22 of `/proc/<pid>/stat` (clock ticks since boot), as a string. */
  supervisorStartTime: string;
  /**
   * True when the supervisor is the one of the whole server, which outlives the attempt and is
   * reached through its channel; absent for an attempt of an older gpushare, whose supervisor ran
   * that attempt only and took signals directly.
   */
  supervisorShared?: boolean;
  /**
   * Pid of the process the supervisor started, which leads the job's process group (signals go to
   * it); null until known. Without a sandbox it is the command; in the sandbox it is bubblewrap.
   */
  jobPid: number | null;
  /**
   * The command's own pid on the host, as `ps` shows it: `jobPid` without a sandbox; in the sandbox
   * the process bubblewrap's init starts (pid 2 in the job's PID namespace), which setpriv, the
   * environment shell and env exec into. Null or absent when not known (not started yet, an
   * attempt of an older gpushare, or not found within 2 s).
   */
  commandPid?: number | null;
  /** Name of the job's cgroups (`job-<id>-a<attempt>`), null when none were made. */
  cgroupKey: string | null;
  /** The freezer the attempt was started with (freeze/thaw keep using it). */
  freezerKind: FreezerKind;
  /** File the job's stdout is appended to. */
  stdoutPath: string;
  /** File the job's stderr is appended to. */
  stderrPath: string;
  /** File the supervisor writes the job's pids to (`{ "jobPid": n, "commandPid": m }`), once the command runs. */
  pidPath: string;
  /** File the supervisor writes the {@link ProcessOutcome} to, atomically, when the command ends. */
  outcomePath: string;
}

/** How an attempt ended, as recorded by its supervisor. */
export interface ProcessOutcome {
  /** Exit code of the command; null when killed by a signal or never run (then `error` says why). */
  exitCode: number | null;
  /** Name of the signal that ended the command (e.g. `SIGKILL`), else null. */
  signal: string | null;
  /** When the command was started (or failed to start), epoch milliseconds. */
  startedAtMs: number;
  /** When the command ended (or failed to start), epoch milliseconds. */
  endedAtMs: number;
  /**
   * Why the command never ran, else null: a setup failure, or an exec that failed, with its errno
   * code in words (`could not start python: E2BIG (the argument list is too long)`, `ENOENT (no such
   * file or directory)`, `EACCES (permission denied)`).
   */
  error: string | null;
  /**
   * When the first signal sent through the supervisor (`stop`) reached the command while it was
   * still running, epoch milliseconds; null when none did (the command ended on its own). Absent
   * in outcomes written by a supervisor of an older gpushare, which did not record it.
   */
  signalDeliveredAtMs?: number | null;
}

/** Which host limits a launcher enforces (true) or silently cannot (false) on this host. */
export interface LimitEnforcement {
  /** `LaunchSpec.cpuMilli` is enforced (CFS quota). */
  readonly cpuMilli: boolean;
  /** `LaunchSpec.hostMemoryMiB` is enforced (memory cgroup limit). */
  readonly hostMemoryMiB: boolean;
  /** `LaunchSpec.pidsMax` is enforced (pids cgroup `pids.max`); absent: not. */
  readonly pidsMax?: boolean;
  /** `LaunchSpec.cpuWeight` is enforced (cgroup `cpu.shares` / `cpu.weight`); absent: not. */
  readonly cpuWeight?: boolean;
}

/** What the kernel counted against an attempt's host limits so far (all 0 where a limit is not enforced). */
export interface HostLimitEvents {
  /** Forks refused at the process limit (`pids.events` `max`). */
  readonly pidsMaxHits: number;
  /** Processes the OOM killer ended at the memory limit (`oom_kill`). */
  readonly oomKills: number;
  /** CFS periods in which the attempt was held at its CPU quota (`cpu.stat` `nr_throttled`). */
  readonly cpuThrottledPeriods: number;
}

/** Starts, observes, signals, freezes and cleans up job attempts as host process trees. */
export interface ProcessLauncher {
  /** The freezer used for attempts started by this launcher. */
  readonly freezerKind: FreezerKind;
  /** Which limits this host enforces. A limit that is not enforced is ignored by `start`. */
  readonly enforcement: LimitEnforcement;
  /**
   * Starts the supervisor of one attempt, which starts the command. Resolves once the command
   * runs (the handle's `jobPid` is set) or has failed to start (an outcome is recorded), or after
   * a bounded wait with `jobPid` still null. Throws RangeError for a malformed spec, and Error
   * when the job directory is missing, the supervisor cannot be started, or the attempt's
   * cgroups cannot be made (or are still in use by processes of an earlier start).
   */
  start(spec: LaunchSpec): Promise<ProcessHandle>;
  /**
   * True while the supervisor of the handle vouches for the attempt: it is alive AND has the
   * recorded start time (PID reuse safe), and (a supervisor shared by all attempts) the attempt's
   * outcome is not written yet.
   */
  isAlive(handle: ProcessHandle): boolean;
  /**
   * Reads the outcome the supervisor recorded, or null if none yet. Never throws for a missing file; throws for a
   * malformed one.
   */
  readOutcome(handle: ProcessHandle): ProcessOutcome | null;
  /**
   * Thaws the attempt, sends `signal` to the supervisor, which forwards it to the job's whole
   * process group and records whether it reached the running command
   * (`ProcessOutcome.signalDeliveredAtMs`), and after `graceMs` sends SIGKILL to the group (and to
   * every process left in the attempt's cgroups) if the supervisor is still alive. Resolves when the signal(s) are
   * sent; waits no longer than
   * `graceMs` (milliseconds) for the exit. When the supervisor is already gone, only SIGKILLs
   * whatever is left in the attempt's cgroups (never a bare pid, which may have been reused).
   */
  stop(handle: ProcessHandle, signal: NodeJS.Signals, graceMs: number): Promise<void>;
  /**
   * Stops the whole process tree from running (no new CPU work, hence no new GPU work) and
   * resolves once the freeze is effective. A finished attempt is a no-op. Throws when the freeze
   * does not take effect within the launcher's timeout.
   */
  freeze(handle: ProcessHandle): Promise<void>;
  /** Lets a frozen process tree run again. A finished attempt is a no-op. */
  thaw(handle: ProcessHandle): Promise<void>;
  /**
   * Removes what the launcher made on the host for itself and no attempt uses any more (its empty
   * cgroup parent folders), when the server stops. Running attempts are untouched. Never throws.
   */
  close(): void;
  /**
   * What the kernel counted against the host limits of the attempt (from its cgroups, which exist
   * until `cleanup`); null when the attempt has no cgroups. Absent on a launcher without cgroups.
   * `cpu: false` (the attempt monitor, every tick) skips the CPU quota's count, which ends no job:
   * `cpuThrottledPeriods` is then 0.
   */
  limitEvents?(handle: ProcessHandle, options?: { readonly cpu: boolean }): HostLimitEvents | null;
  /** Removes the cgroups of a finished attempt, killing any process still left in them. Idempotent. */
  cleanup(handle: ProcessHandle): Promise<void>;
  /**
   * Reads the outcome of attempt `attempt` of the job whose files are in `jobDirectory` directly
   * from its outcome file (for an attempt whose handle was never stored: the server stopped while
   * launching it); null when there is none or it is unreadable.
   */
  readAttemptOutcome(jobDirectory: string, attempt: number): ProcessOutcome | null;
  /**
   * Kills whatever still runs of attempt `attempt` of job `jobId` whose launch was never recorded,
   * through the attempt's cgroups (never by a bare pid, which may have been reused). Resolves when done.
   */
  killUnrecordedAttempt(jobId: number, jobDirectory: string, attempt: number): Promise<void>;
  /** How jobs are kept apart on this host. */
  readonly isolation: JobIsolation;
  /**
   * The Unix user (uid and gid) the jobs of `tenant` run as in the sandbox, allocated on first use;
   * null without a sandbox (jobs run as the server's user).
   */
  jobUser(tenant: string): { readonly uid: number; readonly gid: number } | null;
  /**
   * Why `path` cannot be the working directory of a job of `tenant` (not an existing directory;
   * with a sandbox also: hidden from jobs, or not writable by the tenant's uid); null when it can.
   */
  workingDirectoryProblem(path: string, tenant: string): string | null;
  /**
   * Resolves `argv0` like execvp would (PATH of `environment`, relative to `workingDirectory`
   * when it contains a '/'); returns the absolute path, or null when not found or not executable.
   */
  resolveExecutable(
    argv0: string,
    workingDirectory: string,
    environment: Readonly<Record<string, string>>,
    tenant?: string,
  ): string | null;
}

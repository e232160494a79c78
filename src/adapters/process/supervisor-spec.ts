/**
 * The launch spec file the launcher writes for the supervisor (`attempt-<n>.launch.json`, mode
 * 0600 since it holds the job's environment), which the supervisor reads and deletes when the
 * launcher asks it to start the attempt. Types only.
 */

/**
 * One cgroup hierarchy the supervisor joins for the spawn of the command, then leaves for its own
 * cgroup in that hierarchy (read from /proc/self/cgroup just before), so that it is neither frozen
 * nor charged with the job.
 */
export interface SupervisorCgroup {
  /** `cgroup.procs` of the attempt's cgroup: the supervisor writes its pid here first. */
  joinProcsFile: string;
  /** Mount point of the hierarchy. */
  mount: string;
  /** The v1 controller naming the hierarchy; null for cgroup v2. */
  controller: string | null;
}

/** Everything the supervisor needs; all paths absolute. */
export interface SupervisorSpec {
  /** Command and arguments. */
  argv: string[];
  /**
   * True when argv runs the command through a sandbox that reports a command killed by signal N
   * as exit code 128 + N (bubblewrap): the outcome then names the signal instead.
   */
  exitCodeEncodesSignal?: boolean;
  /**
   * Set for a sandboxed command: argv then runs with a clean environment (nothing of the job's
   * reaches the sandbox's own processes), and `environment` is written on a pipe at this file
   * descriptor for the sandbox to hand to the command under the tenant's uid: as NUL-ended
   * `--setenv NAME VALUE` arguments for bubblewrap's `--args` when `runAs` is set (the
   * user-namespace chain), else as a shell file (`export NAME='value'` lines, the setpriv chain).
   * sandbox-argv.ts.
   */
  environmentFd?: number;
  /**
   * Set for the `user-namespace` sandbox chain: argv starts under this uid and gid, with no
   * supplementary groups and umask 077 (what the job writes is its own).
   */
  runAs?: { uid: number; gid: number };
  /** Working directory of the command. */
  workingDirectory: string;
  /** The complete environment of the command. */
  environment: Record<string, string>;
  /** Cgroups to join (possibly none). */
  cgroups: SupervisorCgroup[];
  /** File the command's stdout is appended to. */
  stdoutPath: string;
  /** File the command's stderr is appended to. */
  stderrPath: string;
  /** Most bytes kept of each of stdout and stderr (capped-log.ts); absent: 64 MiB. */
  logCapBytes?: number;
  /** File to write `{ "jobPid": n }` to once the command runs. */
  pidPath: string;
  /** File to write the outcome to (atomically) when the command ends. */
  outcomePath: string;
}

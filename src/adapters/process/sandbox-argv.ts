/**
 * The command line that runs one job attempt in its sandbox (docs/security.md), by one of two
 * chains ({@link SandboxChain}; decisions 0033 and 0036). Pure: no I/O.
 *
 * `user-namespace` (one program before the command): the supervisor starts bubblewrap under the
 * tenant's uid and gid; bubblewrap makes a user namespace that maps that uid to itself and nothing
 * else (`--unshare-user --uid U --gid U`), forbids further ones (`--disable-userns`), sets the
 * namespaces and mounts up, takes the job's environment as `--setenv` arguments read from
 * {@link SANDBOX_ENVIRONMENT_FD} (`--clearenv --args FD`, written by the supervisor with
 * {@link bubblewrapEnvironmentArgs}), and execs the command. Nothing in it ever runs as root, so a
 * job's variables (LD_PRELOAD, ...) can reach only the tenant's own processes. The folders bound in
 * must be reachable by the tenant's uid: the data directory and the job folders are then
 * traversable by others (mode 0711; every file in them stays private to its owner).
 *
 * `setpriv` (three programs before the command), where the host forbids unprivileged user
 * namespaces: bubblewrap for the namespaces and mounts, then setpriv to switch to the tenant's
 * unprivileged uid, then a shell that takes the job's environment and execs the command.
 * - bubblewrap runs as root (the supervisor's uid) so that it can bind the job's own folders out of
 *   the 0700 data directory; the job's processes then run under the tenant's uid on the host, with
 *   no capabilities and `no_new_privs` (setuid programs cannot raise them).
 * - The command runs in a session and process group of its own (`--new-session`): the supervisor
 *   sends the signals it forwards to that group, so they never reach bubblewrap's own two processes
 *   (whose default action would end the sandbox before the job could checkpoint), and the command
 *   gets them with their default dispositions. No wrapper has to ignore them first.
 * - bubblewrap exits with the command's exit code, or 128 + N when a signal N ended it.
 * - Everything that runs as root (bubblewrap, setpriv) gets a clean environment from the
 *   supervisor: a job's variables (LD_PRELOAD, BASH_ENV, ...) must never reach a root process.
 *   They reach the command through a file bubblewrap copies into the private /tmp from
 *   {@link SANDBOX_ENVIRONMENT_FD}, which a shell sources after the switch to the tenant's uid
 *   (the supervisor writes it with {@link shellEnvironmentFile}). Nothing secret is in any argv.
 */

/**
 * How a sandbox reaches the tenant's uid: `user-namespace` (bubblewrap started under that uid, in a
 * user namespace of its own) or `setpriv` (bubblewrap as root, then setpriv and a shell).
 */
export type SandboxChain = 'user-namespace' | 'setpriv';

/**
 * The file descriptor the supervisor passes the job's environment on: a shell file for the
 * `setpriv` chain ({@link shellEnvironmentFile}), bubblewrap arguments for the `user-namespace`
 * one ({@link bubblewrapEnvironmentArgs}).
 */
export const SANDBOX_ENVIRONMENT_FD = 3;

/** Where the environment file appears inside the sandbox (read-only, the job's own /tmp). */
const ENVIRONMENT_FILE = '/tmp/.gpushare-environment';

/**
 * The job's environment as a shell file: one `export NAME='value'` line per variable, values in
 * single quotes (a quote written `'\''`). Names that are not shell identifiers are left out (the API
 * allows only identifiers).
 */
export function shellEnvironmentFile(environment: Readonly<Record<string, string>>): string {
  return Object.entries(environment)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'\n`)
    .join('');
}

/**
 * The job's environment as bubblewrap arguments for `--args FD`: `--setenv NAME VALUE` with every
 * argument ended by a NUL byte. Names that are not shell identifiers are left out (the API allows
 * only identifiers); a value holds no NUL (an environment cannot).
 */
export function bubblewrapEnvironmentArgs(environment: Readonly<Record<string, string>>): string {
  return Object.entries(environment)
    .filter(([name, value]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !value.includes('\0'))
    .map(([name, value]) => `--setenv\0${name}\0${value}\0`)
    .join('');
}

/** Directories every job gets empty and private (its own tmpfs). */
const PRIVATE_TMPFS = ['/tmp', '/var/tmp', '/dev/shm'];

/** Host paths of the programs the chain runs. */
export interface SandboxPrograms {
  /** bubblewrap, e.g. `/usr/bin/bwrap`. */
  readonly bwrap: string;
  /** util-linux setpriv, e.g. `/usr/bin/setpriv`. */
  readonly setpriv: string;
  /** A POSIX shell, e.g. `/bin/sh`. */
  readonly shell: string;
}

/** A device node made visible inside the sandbox. */
export interface SandboxDevice {
  /** Host path of the node (or of a simulated stand-in file). */
  readonly source: string;
  /** Path inside the sandbox, e.g. `/dev/nvidia0`. */
  readonly target: string;
}

/** Everything one sandboxed attempt needs. */
export interface SandboxArgvInput {
  readonly programs: SandboxPrograms;
  /** How the sandbox reaches the tenant's uid; `user-namespace` needs bubblewrap started under it. */
  readonly chain: SandboxChain;
  /** The tenant's unprivileged uid and gid on the host (≥ 1). */
  readonly uid: number;
  readonly gid: number;
  /** The command and its arguments. */
  readonly argv: readonly string[];
  /** Host directories hidden behind an empty tmpfs (data directory, the server's HOME, /root). */
  readonly hiddenDirectories: readonly string[];
  /** Host directories the job may write, bound read-write at the same path (working directory, checkpoint). */
  readonly writableDirectories: readonly string[];
  /** Device nodes the job may use (its GPUs, the NVIDIA control nodes, its MIG capabilities). */
  readonly devices: readonly SandboxDevice[];
  /** The command's working directory (one of writableDirectories, or a readable host directory). */
  readonly workingDirectory: string;
}

/** True when `path` is `dir` or inside it (both absolute, normalised). */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * The directories between `root` (exclusive) and `path` (exclusive), outermost first: what
 * bubblewrap must create, world-traversable, inside a hidden (tmpfs) directory before it can bind
 * `path` there.
 */
function directoriesBetween(root: string, path: string): string[] {
  const rest = path
    .slice(root.length)
    .split('/')
    .filter((p) => p !== '');
  const out: string[] = [];
  let current = root;
  for (const part of rest.slice(0, -1)) {
    current = `${current.replace(/\/$/, '')}/${part}`;
    out.push(current);
  }
  return out;
}

/**
 * The argv that runs `input.argv` sandboxed. Hidden directories nested in another hidden one are
 * dropped (the outer tmpfs already hides them). Throws RangeError for a uid or gid below 1, a
 * relative path, or an empty command.
 */
export function sandboxArgv(input: SandboxArgvInput): string[] {
  for (const [name, value] of [
    ['uid', input.uid],
    ['gid', input.gid],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  }
  if (input.argv.length === 0) throw new RangeError('argv must not be empty');
  const paths = [
    ...input.hiddenDirectories,
    ...input.writableDirectories,
    input.workingDirectory,
    ...input.devices.map((d) => d.target),
  ];
  const relative = paths.find((p) => !p.startsWith('/'));
  if (relative !== undefined) throw new RangeError(`sandbox paths must be absolute, got ${relative}`);
  const oddProgram = Object.values(input.programs).find((p) => !/^\/[\w./+-]+$/.test(p));
  if (oddProgram !== undefined)
    throw new RangeError(`sandbox programs must be plain absolute paths, got ${oddProgram}`);
  const hidden = [...new Set([...PRIVATE_TMPFS, ...input.hiddenDirectories])]
    .sort((a, b) => a.length - b.length)
    .filter((dir, i, all) => dir !== '/' && !all.slice(0, i).some((outer) => isWithin(dir, outer)));
  const args: string[] = [input.programs.bwrap];
  if (input.chain === 'user-namespace')
    args.push('--unshare-user', '--disable-userns', '--uid', String(input.uid), '--gid', String(input.gid));
  args.push(
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    // The command's own session and process group: the forwarded signals reach it, not bubblewrap.
    '--new-session',
  );
  // The private /tmp and friends are world-writable with the sticky bit, as on the host.
  for (const dir of hidden) args.push(...(PRIVATE_TMPFS.includes(dir) ? ['--perms', '1777'] : []), '--tmpfs', dir);
  const made = new Set<string>();
  for (const dir of input.writableDirectories) {
    const outer = hidden.find((h) => isWithin(dir, h) && dir !== h);
    if (outer !== undefined) {
      for (const between of directoriesBetween(outer, dir)) {
        if (!made.has(between)) args.push('--perms', '0755', '--dir', between);
        made.add(between);
      }
    }
    args.push('--bind', dir, dir);
  }
  for (const device of input.devices) args.push('--dev-bind', device.source, device.target);
  if (input.chain === 'user-namespace') {
    // Already the tenant's uid: the job's environment and nothing else, then the command itself.
    args.push('--clearenv', '--args', String(SANDBOX_ENVIRONMENT_FD), '--chdir', input.workingDirectory, '--');
    args.push(...input.argv);
    return args;
  }
  args.push('--perms', '0444', '--ro-bind-data', String(SANDBOX_ENVIRONMENT_FD), ENVIRONMENT_FILE);
  args.push('--chdir', input.workingDirectory, '--');
  args.push(
    input.programs.setpriv,
    '--reuid',
    String(input.uid),
    '--regid',
    String(input.gid),
    '--clear-groups',
    '--no-new-privs',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
  );
  // Now the tenant's uid: take the job's environment and run the command.
  // umask 077: what the job writes is its own, even in a working directory others may read.
  args.push(input.programs.shell, '-c', '. "$0" && umask 077 && exec "$@"', ENVIRONMENT_FILE);
  args.push(...input.argv);
  return args;
}

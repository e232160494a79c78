/**
 * The job sandbox of `gpushare serve` (docs/security.md): finds out whether this host can run jobs
 * under their tenant's uid in a bubblewrap sandbox, and answers what one attempt's sandbox holds
 * (uid, device nodes, hidden directories) and whether a working directory suits a tenant.
 *
 * Device nodes, from NVIDIA's documentation of the driver's device files and of MIG device
 * capabilities: `/dev/nvidiaN` per GPU (N = the GPU's minor number), the control nodes
 * `/dev/nvidiactl`, `/dev/nvidia-uvm`, `/dev/nvidia-uvm-tools`, `/dev/nvidia-modeset` that CUDA
 * opens, and for a MIG instance the capability nodes `/dev/nvidia-caps/nvidia-capM` whose M is the
 * `DeviceFileMinor` in `/proc/driver/nvidia/capabilities/gpuN/mig/giG/access` and
 * `.../giG/ciC/access`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LaunchSpec } from '../../app/ports/process-launcher.js';
import { resolveExecutable } from '../../host/resolve-executable.js';
import { isWithin, sandboxArgv, type SandboxChain, type SandboxDevice, type SandboxPrograms } from './sandbox-argv.js';
import type { TenantUids } from './tenant-uids.js';

/** The NVIDIA control nodes every CUDA process opens, bound when present. */
const CONTROL_NODES = ['nvidiactl', 'nvidia-uvm', 'nvidia-uvm-tools', 'nvidia-modeset'];

/** A MIG instance given to a job: its GPU's minor number and the instance ids. */
export interface SandboxMigInstance {
  readonly gpuMinor: number;
  readonly gpuInstanceId: number;
  readonly computeInstanceId: number;
}

/** Whether this host can sandbox jobs, and why not. */
export type SandboxSupport =
  | { readonly available: true; readonly programs: SandboxPrograms; readonly chain: SandboxChain }
  | { readonly available: false; readonly reason: string };

/** Options of {@link createJobSandbox}. */
export interface JobSandboxOptions {
  readonly programs: SandboxPrograms;
  /** How the sandbox reaches the tenant's uid (detectSandbox's answer). */
  readonly chain: SandboxChain;
  readonly tenantUids: TenantUids;
  /** Host directories no job may see: the data directory, the server's HOME, /root. */
  readonly hiddenDirectories: readonly string[];
  /** Where the GPUs' device nodes are: `/dev`, or a folder of stand-in files for simulated GPUs. */
  readonly deviceRoot: string;
  /** The driver's proc folder (MIG capabilities); default `/proc/driver/nvidia`. */
  readonly procDriverRoot?: string;
}

/** What the launcher asks of the sandbox. */
export interface JobSandbox {
  readonly programs: SandboxPrograms;
  /**
   * `user-namespace`: the supervisor starts the command line under the tenant's uid and gid
   * ({@link uidOf}) with umask 077 and the environment as bubblewrap arguments; `setpriv`: as root,
   * with the environment as a shell file.
   */
  readonly chain: SandboxChain;
  readonly hiddenDirectories: readonly string[];
  /** True when jobs cannot see `path` on the host: inside a hidden folder or a private one (/tmp). */
  isInvisible(path: string): boolean;
  /**
   * True when a job of `tenant` can run the program at host path `path`: visible to jobs (also where
   * it resolves to) and an executable file for the tenant's uid (a probe run as that uid: nothing
   * about folders the uid cannot reach is learnt). A "yes" is reused for SUBMIT_CHECK_TTL_MS.
   */
  canRun(path: string, tenant: string): boolean;
  /** The tenant's uid (allocated on first use). */
  uidOf(tenant: string): number;
  /** The device nodes of these GPUs and MIG instances, plus the control nodes; only those that exist. */
  devicesFor(gpuMinors: readonly number[], migInstances: readonly SandboxMigInstance[]): SandboxDevice[];
  /**
   * Why `path` cannot be the working directory of a job of `tenant`, or null when it can: it must
   * be an existing directory outside every hidden directory that the tenant's uid may write.
   * A "yes" is reused for SUBMIT_CHECK_TTL_MS (launches check again, through commandLine).
   */
  workingDirectoryProblem(path: string, tenant: string): string | null;
  /**
   * The argv that runs `spec.argv` sandboxed (sandboxArgv), after checking a named working
   * directory again (it may have changed since the submit) and giving the job's own folders to
   * its tenant's uid (0700). Throws naming `workingDirectory`, or when `spec.sandbox` is missing.
   */
  commandLine(spec: LaunchSpec): string[];
}

/** The `DeviceFileMinor` of a capability access file; null when unreadable. */
function capabilityMinor(path: string): number | null {
  try {
    const match = /DeviceFileMinor:\s*(\d+)/.exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** How long a submit-time "yes" about a tenant's program or working directory is reused, ms. */
const SUBMIT_CHECK_TTL_MS = 5000;

/** Host folders every job gets a private, empty copy of: never a job's working directory. */
const PRIVATE_DIRECTORIES = ['/tmp', '/var/tmp', '/dev/shm'];

/** What the tenant's uid finds at a path, by a probe run as that uid (the kernel decides access). */
const PROBE_SCRIPT = [
  'p=$1',
  '[ -d "$p" ] || { echo missing; exit 0; }',
  '[ "$(realpath -e -- "$p")" = "$p" ] || { echo indirect; exit 0; }',
  '[ -w "$p" ] && [ -x "$p" ] || { echo unwritable; exit 0; }',
  'echo ok',
].join('\n');

/**
 * Why `path` cannot be a sandboxed job's working directory (bound read-write at the same path), or
 * null. The rules make the bind race-free: bubblewrap, as root, resolves the path twice (on the
 * host and inside the sandbox), so no part of it may change meaning in between or differ inside.
 * - Not a hidden or private folder, not one that holds a hidden folder (checked by name first, so
 *   nothing inside a hidden folder is probed).
 * - As the tenant's uid: an existing folder, written exactly as it resolves (absolute, no `.` or
 *   `..`, no symbolic link in it), that the uid may write and enter.
 * - Every folder above it owned by root and writable by no one else (the tenant could otherwise
 *   swap a part of the path for a symbolic link after this check); the folder itself not sticky
 *   (a shared scratch folder such as /tmp is not one job's), and private to its owner (mode
 *   0700: every tenant's job sees the host read-only, so a readable folder is readable by all).
 */
function workingDirectoryProblem(path: string, tenant: string, uid: number, hidden: readonly string[]): string | null {
  const unusable = `"${path}" is not a folder that jobs can use`;
  const inside = hidden.find((dir) => isWithin(path, dir) || isWithin(dir, path));
  if (inside !== undefined)
    return `${unusable}: it is, holds or lies inside ${inside}, which jobs cannot see or get a private copy of`;
  const probe = spawnSync('/bin/sh', ['-c', PROBE_SCRIPT, 'probe', path], {
    uid,
    gid: uid,
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
  });
  const verdict = String(probe.stdout ?? '').trim();
  if (verdict === 'missing')
    return `directory "${path}" does not exist, or uid ${uid} (tenant ${tenant}) cannot reach it`;
  if (verdict === 'indirect') return `${unusable}: give it as it resolves, without symbolic links, "." or ".."`;
  if (verdict === 'unwritable') return `"${path}" is not writable by uid ${uid}, which runs tenant ${tenant}'s jobs`;
  if (verdict !== 'ok')
    return `${unusable}: it could not be checked (${probe.error?.message ?? `exit ${probe.status}`})`;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const stat = lstatSync(dir);
    if (stat.uid !== 0 || (stat.mode & 0o022) !== 0)
      return (
        `${unusable}: ${dir} above it may be changed by uid ${stat.uid} or by others (mode ` +
        `${(stat.mode & 0o7777).toString(8)}); every folder above a working directory must be root's and ` +
        `writable only by root`
      );
    if (dir === '/') break;
  }
  const mode = lstatSync(path).mode;
  if ((mode & 0o1000) !== 0) return `${unusable}: it is a shared folder (sticky bit), not one tenant's`;
  if ((mode & 0o077) !== 0)
    return (
      `${unusable}: others may read or enter it (mode ${(mode & 0o777).toString(8)}); make it the tenant's ` +
      `own, e.g. chown ${uid} and chmod 700`
    );
  return null;
}

/** Creates the sandbox of a server. */
export function createJobSandbox(options: JobSandboxOptions): JobSandbox {
  const procDriverRoot = options.procDriverRoot ?? '/proc/driver/nvidia';
  const node = (name: string): SandboxDevice | null => {
    const source = join(options.deviceRoot, name);
    return existsSync(source) ? { source, target: join('/dev', name) } : null;
  };
  const isInvisible = (path: string): boolean =>
    [...options.hiddenDirectories, ...PRIVATE_DIRECTORIES].some((dir) => isWithin(path, dir));
  const checkWorkingDirectory = (path: string, tenant: string): string | null =>
    workingDirectoryProblem(path, tenant, options.tenantUids.uidOf(tenant), [
      ...options.hiddenDirectories,
      ...PRIVATE_DIRECTORIES,
    ]);
  // A submit's checks run a probe process as the tenant's uid (about 3 ms, blocking the server):
  // a batch of submits of one program in one folder probes once per SUBMIT_CHECK_TTL_MS. Only a
  // "yes" is reused (a fixed folder is accepted at once); the launch checks the folder again.
  const yeses = new Map<string, number>();
  const remembered = <T>(key: string, compute: () => T, yes: T): T => {
    const now = Date.now();
    const at = yeses.get(key);
    if (at !== undefined && now - at < SUBMIT_CHECK_TTL_MS) return yes;
    const value = compute();
    if (yeses.size >= 1000) yeses.clear();
    if (value === yes) yeses.set(key, now);
    else yeses.delete(key);
    return value;
  };
  return {
    programs: options.programs,
    chain: options.chain,
    hiddenDirectories: options.hiddenDirectories,
    uidOf: (tenant) => options.tenantUids.uidOf(tenant),
    isInvisible,
    canRun: (path, tenant) =>
      remembered(
        `run\0${tenant}\0${path}`,
        () => {
          const uid = options.tenantUids.uidOf(tenant);
          const probe = spawnSync(
            '/bin/sh',
            ['-c', 'test -f "$1" && test -x "$1" && realpath -e -- "$1"', 'probe', path],
            { uid, gid: uid, encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } },
          );
          const real = String(probe.stdout ?? '').trim();
          return probe.status === 0 && real !== '' && !isInvisible(path) && !isInvisible(real);
        },
        true,
      ),
    devicesFor(gpuMinors, migInstances) {
      const names = [...new Set(gpuMinors)].sort((a, b) => a - b).map((m) => `nvidia${m}`);
      names.push(...CONTROL_NODES);
      for (const mig of migInstances) {
        const gi = join(procDriverRoot, 'capabilities', `gpu${mig.gpuMinor}`, 'mig', `gi${mig.gpuInstanceId}`);
        for (const access of [join(gi, 'access'), join(gi, `ci${mig.computeInstanceId}`, 'access')]) {
          const minor = capabilityMinor(access);
          if (minor !== null) names.push(`nvidia-caps/nvidia-cap${minor}`);
        }
      }
      return [...new Set(names)].map(node).filter((d): d is SandboxDevice => d !== null);
    },
    workingDirectoryProblem: (path, tenant) =>
      remembered<string | null>(`dir\0${tenant}\0${path}`, () => checkWorkingDirectory(path, tenant), null),
    commandLine(spec) {
      const part = spec.sandbox;
      if (part === undefined)
        throw new Error(`job ${spec.jobId}: a sandboxed launch needs the sandbox part of its spec`);
      const uid = options.tenantUids.uidOf(part.tenant);
      if (!part.ownedDirectories.includes(spec.workingDirectory)) {
        const problem = checkWorkingDirectory(spec.workingDirectory, part.tenant); // never the remembered answer
        if (problem !== null) throw new Error(`workingDirectory: ${problem}`);
      }
      for (const dir of part.ownedDirectories) {
        chownSync(dir, uid, uid);
        chmodSync(dir, 0o700);
      }
      return sandboxArgv({
        programs: options.programs,
        chain: options.chain,
        uid,
        gid: uid,
        argv: spec.argv,
        hiddenDirectories: options.hiddenDirectories,
        writableDirectories: [...part.ownedDirectories, ...part.sharedDirectories],
        devices: this.devicesFor(part.gpuMinors, part.migInstances),
        workingDirectory: spec.workingDirectory,
      });
    },
  };
}

/** Finds a program on the server's PATH (plus the usual system folders); null when absent. */
function findProgram(name: string, path: string): string | null {
  return resolveExecutable(name, '/', { PATH: `${path}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin` });
}

/** Runs the sandbox probe `argv` (as uid and gid `runAs`, or as this process): null when it succeeded, else why not. */
function probeSandbox(argv: readonly string[], runAs: number | null): string | null {
  const emptyEnvironment = openSync('/dev/null', 'r');
  let probe: ReturnType<typeof spawnSync>;
  try {
    probe = spawnSync(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe', emptyEnvironment],
      env: { PATH: '/usr/bin:/bin' },
      timeout: 10_000,
      encoding: 'utf8',
      cwd: '/',
      ...(runAs === null ? {} : { uid: runAs, gid: runAs }),
    });
  } finally {
    closeSync(emptyEnvironment);
  }
  if (probe.status === 0) return null;
  return (
    String(probe.stderr ?? '')
      .trim()
      .split('\n')[0] ||
    probe.error?.message ||
    `exit ${probe.status}`
  );
}

/**
 * Whether this host can sandbox jobs, and how: the server runs as root (it switches uids),
 * bubblewrap, setpriv and a shell exist, and a probe (a check of its uid, run sandboxed as
 * `probeUid`) succeeds. The `user-namespace` chain is tried first (bubblewrap started under
 * `probeUid`: the host allows unprivileged user namespaces) unless `allowUserNamespace` is false,
 * then the `setpriv` chain. Runs a few short processes; call once at start.
 */
export function detectSandbox(serverPath: string, probeUid: number, allowUserNamespace = true): SandboxSupport {
  if (process.getuid?.() !== 0)
    return { available: false, reason: 'the server does not run as root, so it cannot run jobs under other uids' };
  const found = {
    bwrap: findProgram('bwrap', serverPath),
    setpriv: findProgram('setpriv', serverPath),
    shell: findProgram('sh', serverPath),
  };
  const missing = Object.entries(found)
    .filter(([, p]) => p === null)
    .map(([name]) => (name === 'bwrap' ? 'bwrap (Debian package bubblewrap)' : name));
  if (missing.length > 0) return { available: false, reason: `not found: ${missing.join(', ')}` };
  const programs = found as unknown as SandboxPrograms;
  const probeArgv = (chain: SandboxChain): string[] =>
    sandboxArgv({
      programs,
      chain,
      uid: probeUid,
      gid: probeUid,
      argv: ['/bin/sh', '-c', 'test "$(id -u)" = "$1"', 'probe', String(probeUid)],
      hiddenDirectories: [],
      writableDirectories: [],
      devices: [],
      workingDirectory: '/',
    });
  if (allowUserNamespace && probeSandbox(probeArgv('user-namespace'), probeUid) === null)
    return { available: true, programs, chain: 'user-namespace' };
  const why = probeSandbox(probeArgv('setpriv'), null);
  if (why !== null) return { available: false, reason: `a sandboxed probe failed: ${why}` };
  return { available: true, programs, chain: 'setpriv' };
}

// MpsControl on `nvidia-cuda-mps-control`: one control daemon per device (GPU UUID or MIG device
// UUID), each with its own pipe and log directory, started on demand and stopped on request.
// Facts (shared contract notes N.4, from NVIDIA's MPS documentation and k8s-device-plugin source):
// `-d` starts the daemon in the background; without `-d`, commands are read from stdin, one per
// line, and the caller must use the daemon's CUDA_MPS_PIPE_DIRECTORY; the daemon writes
// `nvidia-cuda-mps-control.pid` into that directory; `quit` stops it; NVIDIA's device plugin probes
// health with `get_default_active_thread_percentage`. See docs/mps.md.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isExecutableFile } from '../../host/resolve-executable.js';
import { delimiter, isAbsolute, join } from 'node:path';
import type { MpsControl, MpsDaemonDirectories, MpsDevice, MpsUser } from '../../app/ports/mps-control.js';

/** MPS cannot be used here: the control binary is missing or not executable. */
export class MpsUnavailableError extends Error {
  override readonly name = 'MpsUnavailableError';
}

/** A daemon did not start, did not answer, or could not be stopped. The message names the key, command and output. */
export class MpsDaemonError extends Error {
  override readonly name = 'MpsDaemonError';
}

/** What one run of the control binary printed, and how it ended. */
export interface MpsCommandResult {
  /** Exit code; null when killed (timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the control binary with `args`, the complete environment `env`, and `input` on stdin (stdin
 * closed at once when null), as `user` (null: the server's own user). Resolves when the process
 * exits (not when its output closes: a daemonising child may keep inherited pipes open) or after
 * `timeoutMs` (process killed, exitCode null). Rejects when it cannot be started (e.g. ENOENT, or
 * EPERM for another user without the privilege).
 */
export type MpsCommandRunner = (
  file: string,
  args: readonly string[],
  options: { env: Readonly<Record<string, string>>; input: string | null; timeoutMs: number; user: MpsUser | null },
) => Promise<MpsCommandResult>;

/** Options of {@link createMpsDaemonManager}. */
export interface MpsDaemonManagerOptions {
  /**
   * Directory holding `<key>/pipe` and `<key>/log` of every daemon (created, mode 0700, when missing). Keep it short:
   * the pipe directory holds Unix sockets (108-byte path limit).
   */
  baseDirectory: string;
  /** The control binary; `nvidia-cuda-mps-control` (looked up on PATH) by default. */
  mpsControlPath?: string;
  /**
   * Environment the daemons and control commands start from (default process.env); CUDA_VISIBLE_DEVICES and CUDA_MPS_*
   * are replaced.
   */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Limit per command in ms; default 10000. */
  timeoutMs?: number;
  /** How long ensureDaemon keeps probing a freshly started daemon, ms; default 5000. */
  startProbeMs?: number;
  /** Process runner; {@link spawnMpsCommand} by default. */
  run?: MpsCommandRunner;
}

/** The MpsControl port plus what only this adapter knows. */
export interface MpsDaemonManager extends MpsControl {
  /**
   * True when the control binary exists and is executable (PATH lookup for a bare name). When false, MPS limits are
   * scheduler accounting only.
   */
  available(): Promise<boolean>;
  /** Health probe: `get_default_active_thread_percentage` answered with a number. False on any failure. */
  probe(key: string): Promise<boolean>;
  /** The directories a key's daemon uses (whether or not it runs). Throws RangeError for an unusable key. */
  directoriesFor(key: string): MpsDaemonDirectories;
}

/** Name of the pid file the daemon writes into its pipe directory. */
export const MPS_PID_FILE = 'nvidia-cuda-mps-control.pid';

/**
 * Suffix of the file `<baseDirectory>/<key directory>.owner` that records the user a key's daemon
 * runs as (`uid:gid`; absent: the server's user). It lies outside the key's directory, which
 * belongs to that user.
 */
export const MPS_OWNER_SUFFIX = '.owner';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_START_PROBE_MS = 5_000;
const PROBE_COMMAND = 'get_default_active_thread_percentage';
const OUTPUT_GRACE_MS = 200;

/** {@link MpsCommandRunner} on node:child_process `spawn` (no shell). */
export const spawnMpsCommand: MpsCommandRunner = (file, args, { env, input, timeoutMs, user }) =>
  new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      env: { ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdin.on('error', () => {
      /* the command may exit before reading stdin */
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      const finish = (): void => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ exitCode: timedOut ? null : code, stdout, stderr });
      };
      // Output may still be in flight; a daemonised grandchild may hold the pipes open for good.
      const grace = setTimeout(finish, OUTPUT_GRACE_MS);
      child.once('close', () => {
        clearTimeout(grace);
        finish();
      });
    });
    child.stdin.end(input ?? undefined);
  });

/**
 * The directory name of a key: the key with every character other than letters, digits, `.` and
 * `-` replaced by `_` (a legacy MIG UUID `MIG-GPU-<uuid>/1/0` becomes `MIG-GPU-<uuid>_1_0`).
 * Throws RangeError for an empty key, `.`/`..`, or one with control characters.
 */
export function mpsKeyDirectoryName(key: string): string {
  // eslint-disable-next-line no-control-regex
  if (key === '' || key === '.' || key === '..' || /[\u0000-\u001f\u007f]/.test(key)) {
    throw new RangeError(`MPS device key must be a GPU or MIG device UUID, got ${JSON.stringify(key)}`);
  }
  return key.replace(/[^A-Za-z0-9.-]/g, '_');
}

/**
 * Where the daemon of `key` keeps its pipe and log directories under `baseDirectory`:
 * `<base>/<key directory>/pipe` and `/log` (the layout simulated daemons share).
 * @throws RangeError for an unusable key (mpsKeyDirectoryName)
 */
export function mpsDaemonDirectories(baseDirectory: string, key: string): MpsDaemonDirectories {
  const dir = join(baseDirectory, mpsKeyDirectoryName(key));
  return { pipeDirectory: join(dir, 'pipe'), logDirectory: join(dir, 'log') };
}

/**
 * True when `pid` names a live process (EPERM: alive, owned by another user). A zombie (state `Z`
 * in /proc/<pid>/stat, e.g. under a PID 1 that does not reap) counts as dead.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * MpsControl on `nvidia-cuda-mps-control`. Per key (GPU or MIG device UUID):
 *
 * - directories `<baseDirectory>/<key>/pipe` and `<key>/log`, created with mode 0700;
 * - environment of every command for that key: the base environment without CUDA_VISIBLE_DEVICES
 *   and CUDA_MPS_*, plus `CUDA_VISIBLE_DEVICES=<key>`, `CUDA_MPS_PIPE_DIRECTORY=<pipe>`,
 *   `CUDA_MPS_LOG_DIRECTORY=<log>`;
 * - start: `nvidia-cuda-mps-control -d`, then the probe (`get_default_active_thread_percentage` on
 *   stdin) until it answers (startProbeMs); a daemon already alive (its pid file in the pipe
 *   directory names a live process, e.g. one left by an earlier server process) is adopted instead;
 * - stop: `quit` on stdin of `nvidia-cuda-mps-control`.
 *
 * Calls for one key are serialised. ensureDaemon on a key whose daemon is alive runs no command.
 */
export function createMpsDaemonManager(options: MpsDaemonManagerOptions): MpsDaemonManager {
  if (!isAbsolute(options.baseDirectory))
    throw new RangeError(`baseDirectory must be absolute, got ${options.baseDirectory}`);
  const program = options.mpsControlPath ?? 'nvidia-cuda-mps-control';
  const base = options.environment ?? process.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startProbeMs = options.startProbeMs ?? DEFAULT_START_PROBE_MS;
  const run = options.run ?? spawnMpsCommand;
  const known: string[] = [];
  const queues = new Map<string, Promise<unknown>>();

  const directoriesFor = (key: string): MpsDaemonDirectories => mpsDaemonDirectories(options.baseDirectory, key);

  function environmentFor(key: string, dirs: MpsDaemonDirectories): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(base)) {
      if (value === undefined || name === 'CUDA_VISIBLE_DEVICES' || name.startsWith('CUDA_MPS_')) continue;
      env[name] = value;
    }
    env.CUDA_VISIBLE_DEVICES = key;
    env.CUDA_MPS_PIPE_DIRECTORY = dirs.pipeDirectory;
    env.CUDA_MPS_LOG_DIRECTORY = dirs.logDirectory;
    return env;
  }

  function resolveProgram(): string | null {
    if (program.includes('/')) return isExecutableFile(program) ? program : null;
    const path = base.PATH ?? '';
    for (const dir of path.split(delimiter)) {
      if (dir === '') continue;
      const candidate = join(dir, program);
      if (isExecutableFile(candidate)) return candidate;
    }
    return null;
  }

  /** Runs a control command for `key` as `user` (default: the user its daemon runs as). */
  async function control(
    key: string,
    args: readonly string[],
    input: string | null,
    user: MpsUser | null = ownerOf(key),
  ): Promise<MpsCommandResult> {
    const dirs = directoriesFor(key);
    const file = resolveProgram();
    if (file === null)
      throw new MpsUnavailableError(`${program} not found or not executable: MPS limits are scheduler accounting only`);
    return run(file, args, { env: environmentFor(key, dirs), input, timeoutMs, user });
  }

  const ownerPath = (key: string): string =>
    join(options.baseDirectory, `${mpsKeyDirectoryName(key)}${MPS_OWNER_SUFFIX}`);

  /** The user the key's daemon was started as (its owner file); null: the server's own user. */
  function ownerOf(key: string): MpsUser | null {
    try {
      const m = /^(\d+):(\d+)$/.exec(readFileSync(ownerPath(key), 'utf8').trim());
      return m ? { uid: Number(m[1]), gid: Number(m[2]) } : null;
    } catch {
      return null;
    }
  }

  const sameUser = (a: MpsUser | null, b: MpsUser | null): boolean =>
    a === null || b === null ? a === b : a.uid === b.uid && a.gid === b.gid;
  const userText = (u: MpsUser | null): string => (u === null ? "the server's user" : `uid ${u.uid} gid ${u.gid}`);

  const describe = (args: readonly string[], input: string | null, r: MpsCommandResult): string => {
    const output = [r.stdout.trim(), r.stderr.trim()]
      .filter((s) => s !== '')
      .join('\n')
      .slice(0, 500);
    const how = r.exitCode === null ? `timed out after ${timeoutMs} ms` : `exited with code ${r.exitCode}`;
    const cmd = input === null ? [program, ...args].join(' ') : `echo ${input.trim()} | ${program}`;
    return `${cmd} ${how}${output === '' ? '' : `: ${output}`}`;
  };

  async function probe(key: string): Promise<boolean> {
    try {
      const r = await control(key, [], `${PROBE_COMMAND}\n`);
      return r.exitCode === 0 && /^\d+(\.\d+)?$/.test(r.stdout.trim());
    } catch {
      return false;
    }
  }

  /** The pid in the key's pid file, or null when there is none or it is unreadable. */
  function pidOf(key: string): number | null {
    try {
      const text = readFileSync(join(directoriesFor(key).pipeDirectory, MPS_PID_FILE), 'utf8').trim();
      return /^\d+$/.test(text) ? Number(text) : null;
    } catch {
      return null;
    }
  }

  /**
   * Alive: the pid file names a live process. Without a pid file, a daemon this manager started
   * counts as alive when it answers the probe; any other key as not running.
   */
  async function alive(key: string): Promise<boolean> {
    const pid = pidOf(key);
    if (pid !== null) return processAlive(pid);
    return known.includes(key) ? probe(key) : false;
  }

  /**
   * The key's directories, mode 0700, owned by `user` when given (the daemon and its clients run as
   * that user; the base directory stays the server's, traversable). @throws MpsDaemonError when they cannot be given to
   * `user`
   */
  function makeDirectories(key: string, dirs: MpsDaemonDirectories, user: MpsUser | null): void {
    const keyDir = join(options.baseDirectory, mpsKeyDirectoryName(key));
    mkdirSync(options.baseDirectory, { recursive: true, mode: 0o700 });
    if (user !== null) chmodSync(options.baseDirectory, 0o711);
    const target = user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    for (const dir of [keyDir, dirs.pipeDirectory, dirs.logDirectory]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const stat = statSync(dir);
      if (stat.uid === target.uid && stat.gid === target.gid) continue;
      try {
        chownSync(dir, target.uid, target.gid);
      } catch (e) {
        throw new MpsDaemonError(
          `MPS daemon for ${key}: cannot give ${dir} to ${userText(user)}: ${(e as Error).message}`,
        );
      }
    }
  }

  async function ensure(device: MpsDevice): Promise<MpsDaemonDirectories> {
    const { key } = device;
    const user = device.user ?? null;
    const dirs = directoriesFor(key);
    if (resolveProgram() === null)
      throw new MpsUnavailableError(`${program} not found or not executable: MPS limits are scheduler accounting only`);
    if (await alive(key)) {
      if (sameUser(ownerOf(key), user)) {
        if (!known.includes(key)) known.push(key);
        return dirs;
      }
      // The device's tenant changed (its MPS clients are gone): the old user's daemon quits first.
      await stop(key);
      const quitBy = Date.now() + startProbeMs;
      for (let delay = 25; await alive(key); delay = Math.min(delay * 2, 500)) {
        if (Date.now() >= quitBy)
          throw new MpsDaemonError(
            `MPS daemon for ${key} runs as ${userText(ownerOf(key))} and did not quit within ` +
              `${startProbeMs} ms; it cannot be started as ${userText(user)}`,
          );
        await sleep(delay);
      }
    }
    makeDirectories(key, dirs, user);
    if (user === null) rmSync(ownerPath(key), { force: true });
    else writeFileSync(ownerPath(key), `${user.uid}:${user.gid}\n`, { mode: 0o600 });
    const start = await control(key, ['-d'], null, user);
    if (start.exitCode !== 0)
      throw new MpsDaemonError(`MPS daemon for ${key} did not start: ${describe(['-d'], null, start)}`);
    const deadline = Date.now() + startProbeMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      if (await probe(key)) break;
      if (Date.now() >= deadline) {
        throw new MpsDaemonError(
          `MPS daemon for ${key} started but did not answer ${PROBE_COMMAND} within ${startProbeMs} ms ` +
            `(log: ${dirs.logDirectory})`,
        );
      }
      await sleep(delay);
    }
    if (!known.includes(key)) known.push(key);
    return dirs;
  }

  async function stop(key: string): Promise<void> {
    directoriesFor(key);
    const index = known.indexOf(key);
    if (index < 0 && pidOf(key) === null) return;
    const r = await control(key, [], 'quit\n');
    if (r.exitCode !== 0) {
      const pid = pidOf(key);
      if (pid !== null && processAlive(pid))
        throw new MpsDaemonError(`MPS daemon for ${key} did not stop: ${describe([], 'quit\n', r)}`);
    }
    const at = known.indexOf(key);
    if (at >= 0) known.splice(at, 1);
  }

  function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  }

  return {
    ensureDaemon: (device) => {
      try {
        directoriesFor(device.key);
      } catch (e) {
        return Promise.reject(e);
      }
      return serialised(device.key, () => ensure(device));
    },
    stopDaemon: (key) => {
      try {
        directoriesFor(key);
      } catch (e) {
        return Promise.reject(e);
      }
      return serialised(key, () => stop(key));
    },
    running: () => [...known],
    available: () => Promise.resolve(resolveProgram() !== null),
    probe: (key) => serialised(key, () => probe(key)),
    directoriesFor,
  };
}

// The MPS daemon manager against a stand-in `nvidia-cuda-mps-control` shell script (real child
// processes) that records every invocation — arguments, the MPS environment and the stdin
// commands — and for `-d` starts a background `sleep` as the "daemon" and writes its pid file into
// the pipe directory, as the real daemon does.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MPS_OWNER_SUFFIX,
  MPS_PID_FILE,
  MpsDaemonError,
  MpsUnavailableError,
  createMpsDaemonManager,
  mpsKeyDirectoryName,
  processAlive,
  spawnMpsCommand,
  type MpsCommandRunner,
} from './mps-daemon-manager.js';

const GPU = 'GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77';
const MIG = 'MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f';

const STAND_IN = (log: string): string => `#!/bin/sh
log='${log}'
printf 'run [%s] CUDA_VISIBLE_DEVICES=%s CUDA_MPS_PIPE_DIRECTORY=%s CUDA_MPS_LOG_DIRECTORY=%s '\\
'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%s\\n' \\
  "$*" "$CUDA_VISIBLE_DEVICES" "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY" \\
  "\${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE-unset}" >> "$log"
pidfile="$CUDA_MPS_PIPE_DIRECTORY/${MPS_PID_FILE}"
if [ "$1" = "-d" ]; then
  if [ -f "$(dirname "$0")/fail-start" ]; then echo "An instance of this daemon is already running" >&2; exit 1; fi
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "An instance of this daemon is already running" >&2; exit 1
  fi
  sleep 300 >/dev/null 2>&1 </dev/null &
  echo $! > "$pidfile"
  exit 0
fi
while IFS= read -r line; do
  printf 'stdin %s\\n' "$line" >> "$log"
  if [ ! -f "$pidfile" ] || ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "Cannot find MPS control daemon process" >&2; exit 1
  fi
  case "$line" in
    quit) kill "$(cat "$pidfile")"; rm -f "$pidfile" ;;
    get_default_active_thread_percentage) echo 100.0 ;;
    *) echo "Unknown command" >&2; exit 1 ;;
  esac
done
exit 0
`;

const dirs: string[] = [];
const daemonPids = new Set<number>();

afterAll(() => {
  // Stops stand-in daemons a failed test left running: only our own `sleep 300`, by pid.
  for (const pid of daemonPids) {
    try {
      if (processAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000300'))
        process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp dir with the stand-in, its log, and a base directory for the daemons. */
function setUp(): {
  bin: string;
  control: string;
  log: string;
  base: string;
  records: () => string[];
  clear: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-mps-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  const log = join(dir, 'invocations.log');
  const control = join(bin, 'nvidia-cuda-mps-control');
  mkdirSync(bin);
  writeFileSync(control, STAND_IN(log));
  chmodSync(control, 0o755);
  writeFileSync(log, '');
  const base = join(dir, 'mps');
  return {
    bin,
    control,
    log,
    base,
    records: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    clear: () => writeFileSync(log, ''),
  };
}

const runLine = (args: string, key: string, base: string, activePct = 'unset'): string => {
  const d = join(base, mpsKeyDirectoryName(key));
  return (
    `run [${args}] CUDA_VISIBLE_DEVICES=${key} CUDA_MPS_PIPE_DIRECTORY=${join(d, 'pipe')} ` +
    `CUDA_MPS_LOG_DIRECTORY=${join(d, 'log')} CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${activePct}`
  );
};

function pidIn(base: string, key: string): number {
  const pid = Number(readFileSync(join(base, mpsKeyDirectoryName(key), 'pipe', MPS_PID_FILE), 'utf8').trim());
  daemonPids.add(pid);
  return pid;
}

const alive = processAlive;

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

describe('MPS daemon manager with a stand-in nvidia-cuda-mps-control', () => {
  it(
    'starts one daemon per device, never twice, with its own 0700 pipe and log directories; quit ' + 'stops it',
    async () => {
      const t = setUp();
      // An inherited CUDA_MPS_* variable must not reach the daemon.
      const mps = createMpsDaemonManager({
        baseDirectory: t.base,
        mpsControlPath: t.control,
        environment: { PATH: process.env.PATH, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '10' },
      });
      expect(await mps.available()).toBe(true);
      expect(mps.running()).toEqual([]);

      // First ensureDaemon: start, then the health probe.
      const gpuDirs = await mps.ensureDaemon({ key: GPU });
      expect(gpuDirs).toEqual({ pipeDirectory: join(t.base, GPU, 'pipe'), logDirectory: join(t.base, GPU, 'log') });
      expect(t.records()).toEqual([
        runLine('-d', GPU, t.base),
        runLine('', GPU, t.base),
        'stdin get_default_active_thread_percentage',
      ]);
      for (const d of [join(t.base, GPU), gpuDirs.pipeDirectory, gpuDirs.logDirectory])
        expect(statSync(d).mode & 0o777).toBe(0o700);
      const gpuPid = pidIn(t.base, GPU);
      expect(alive(gpuPid)).toBe(true);
      expect(mps.running()).toEqual([GPU]);

      // Same key again: no command at all.
      t.clear();
      expect(await mps.ensureDaemon({ key: GPU })).toEqual(gpuDirs);
      expect(t.records()).toEqual([]);

      // Another device (a MIG device): its own daemon and pipe directory.
      const migDirs = await mps.ensureDaemon({ key: MIG });
      expect(migDirs.pipeDirectory).toBe(join(t.base, MIG, 'pipe'));
      expect(migDirs.pipeDirectory).not.toBe(gpuDirs.pipeDirectory);
      expect(t.records()).toEqual([
        runLine('-d', MIG, t.base),
        runLine('', MIG, t.base),
        'stdin get_default_active_thread_percentage',
      ]);
      const migPid = pidIn(t.base, MIG);
      expect(migPid).not.toBe(gpuPid);
      expect(mps.running()).toEqual([GPU, MIG]);

      // stopDaemon: `quit` on stdin, with the device's environment.
      t.clear();
      await mps.stopDaemon(GPU);
      expect(t.records()).toEqual([runLine('', GPU, t.base), 'stdin quit']);
      expect(await waitGone(gpuPid)).toBe(true);
      expect(mps.running()).toEqual([MIG]);
      expect(alive(migPid)).toBe(true);

      // Stopping what does not run does nothing.
      t.clear();
      await mps.stopDaemon(GPU);
      await mps.stopDaemon('GPU-00000000-0000-0000-0000-000000000000');
      expect(t.records()).toEqual([]);

      // After a stop, ensureDaemon starts it again.
      await mps.ensureDaemon({ key: GPU });
      expect(t.records()[0]).toBe(runLine('-d', GPU, t.base));
      pidIn(t.base, GPU);
      expect(await mps.probe(GPU)).toBe(true);
      await mps.stopDaemon(GPU);
      await mps.stopDaemon(MIG);
      expect(mps.running()).toEqual([]);
      expect(await mps.probe(MIG)).toBe(false);
    },
  );

  it('concurrent ensureDaemon calls for one key start one daemon', async () => {
    const t = setUp();
    const mps = createMpsDaemonManager({
      baseDirectory: t.base,
      mpsControlPath: t.control,
      environment: { PATH: process.env.PATH },
    });
    const results = await Promise.all([
      mps.ensureDaemon({ key: GPU }),
      mps.ensureDaemon({ key: GPU }),
      mps.ensureDaemon({ key: GPU }),
    ]);
    expect(new Set(results.map((r) => r.pipeDirectory)).size).toBe(1);
    expect(t.records().filter((l) => l.startsWith('run [-d]'))).toHaveLength(1);
    pidIn(t.base, GPU);
    await mps.stopDaemon(GPU);
  });

  it('a daemon left by an earlier server process is adopted, not started twice', async () => {
    const t = setUp();
    const env = { PATH: process.env.PATH };
    const first = createMpsDaemonManager({ baseDirectory: t.base, mpsControlPath: t.control, environment: env });
    await first.ensureDaemon({ key: MIG });
    const pid = pidIn(t.base, MIG);
    t.clear();
    const restarted = createMpsDaemonManager({ baseDirectory: t.base, mpsControlPath: t.control, environment: env });
    expect(restarted.running()).toEqual([]);
    await restarted.ensureDaemon({ key: MIG });
    expect(t.records()).toEqual([]);
    expect(restarted.running()).toEqual([MIG]);
    await restarted.stopDaemon(MIG);
    expect(await waitGone(pid)).toBe(true);
  });

  it('finds the binary on PATH by default; reports absence; a failed start is an error', async () => {
    const t = setUp();
    const onPath = createMpsDaemonManager({
      baseDirectory: t.base,
      environment: { PATH: `${t.bin}${delimiter}${process.env.PATH ?? ''}` },
    });
    expect(await onPath.available()).toBe(true);
    const missing = createMpsDaemonManager({ baseDirectory: t.base, environment: { PATH: join(t.bin, 'nowhere') } });
    expect(await missing.available()).toBe(false);
    await expect(missing.ensureDaemon({ key: GPU })).rejects.toThrow(MpsUnavailableError);
    await expect(missing.ensureDaemon({ key: GPU })).rejects.toThrow(
      'nvidia-cuda-mps-control not found or not executable: MPS limits are scheduler accounting only',
    );
    expect(
      await createMpsDaemonManager({ baseDirectory: t.base, mpsControlPath: join(t.bin, 'absent') }).available(),
    ).toBe(false);
    expect(t.records()).toEqual([]);

    writeFileSync(join(t.bin, 'fail-start'), '');
    await expect(onPath.ensureDaemon({ key: GPU })).rejects.toThrow(MpsDaemonError);
    await expect(onPath.ensureDaemon({ key: GPU })).rejects.toThrow(
      `MPS daemon for ${GPU} did not start: nvidia-cuda-mps-control -d exited with code 1: An instance of ` +
        `this daemon is already running`,
    );
    expect(onPath.running()).toEqual([]);
  });

  it('directory names of keys; bad keys are refused', async () => {
    expect(mpsKeyDirectoryName(MIG)).toBe(MIG);
    expect(mpsKeyDirectoryName('MIG-GPU-4200ccc0-2667-d4cb-9137-f932c716232a/2/0')).toBe(
      'MIG-GPU-4200ccc0-2667-d4cb-9137-f932c716232a_2_0',
    );
    const mps = createMpsDaemonManager({ baseDirectory: '/tmp/gpushare-mps-unused' });
    expect(mps.directoriesFor('MIG-GPU-x/1/0')).toEqual({
      pipeDirectory: '/tmp/gpushare-mps-unused/MIG-GPU-x_1_0/pipe',
      logDirectory: '/tmp/gpushare-mps-unused/MIG-GPU-x_1_0/log',
    });
    for (const key of ['', '..', 'GPU-1\n']) await expect(mps.ensureDaemon({ key })).rejects.toThrow(RangeError);
    expect(() => createMpsDaemonManager({ baseDirectory: 'relative/dir' })).toThrow(RangeError);
  });

  it(
    "runs a device's daemon as the user it is given; the same user reuses it, another user restarts " +
      'it (quit as the old user, start as the new)',
    async () => {
      const t = setUp();
      const self = { uid: process.getuid!(), gid: process.getgid!() };
      // Another tenant's uid: the runner records it and runs the stand-in as this user (no privilege to switch here).
      const other = { uid: self.uid + 1, gid: self.gid + 1 };
      const users: string[] = [];
      const run: MpsCommandRunner = (file, args, options) => {
        users.push(
          `${args.join(' ') || options.input?.trim()} as ` +
            `${options.user === null ? 'server' : `${options.user.uid}:${options.user.gid}`}`,
        );
        return spawnMpsCommand(file, args, {
          ...options,
          user: options.user && options.user.uid === self.uid ? options.user : null,
        });
      };
      const mps = createMpsDaemonManager({
        baseDirectory: t.base,
        mpsControlPath: t.control,
        environment: { PATH: process.env.PATH },
        run,
      });
      const ownerFile = join(t.base, `${GPU}${MPS_OWNER_SUFFIX}`);

      // Tenant A (this uid, really switched to with spawn's uid/gid): its daemon, its directories.
      const dirs = await mps.ensureDaemon({ key: GPU, user: self });
      expect(users).toEqual([
        `-d as ${self.uid}:${self.gid}`,
        `get_default_active_thread_percentage as ${self.uid}:${self.gid}`,
      ]);
      expect(readFileSync(ownerFile, 'utf8')).toBe(`${self.uid}:${self.gid}\n`);
      for (const d of [dirs.pipeDirectory, dirs.logDirectory])
        expect([statSync(d).uid, statSync(d).gid, statSync(d).mode & 0o777]).toEqual([self.uid, self.gid, 0o700]);
      const first = pidIn(t.base, GPU);

      // A's next job: the same daemon, no command.
      users.length = 0;
      await mps.ensureDaemon({ key: GPU, user: self });
      expect(users).toEqual([]);

      // The GPU emptied and tenant B comes: quit as A, then B's directories and daemon. Giving the
      // directories to B needs root; without it the start is refused, naming why.
      const outcome = mps.ensureDaemon({ key: GPU, user: other });
      if (self.uid === 0) {
        await outcome;
        expect(users).toEqual([
          'quit as 0:0',
          `-d as ${other.uid}:${other.gid}`,
          `get_default_active_thread_percentage as ${other.uid}:${other.gid}`,
        ]);
        expect([statSync(dirs.pipeDirectory).uid, statSync(dirs.pipeDirectory).gid]).toEqual([other.uid, other.gid]);
        expect(readFileSync(ownerFile, 'utf8')).toBe(`${other.uid}:${other.gid}\n`);
        expect(await waitGone(first)).toBe(true);
        const forB = pidIn(t.base, GPU);
        users.length = 0;
        await mps.stopDaemon(GPU);
        expect(users).toEqual([`quit as ${other.uid}:${other.gid}`]);
        expect(await waitGone(forB)).toBe(true);
      } else {
        await expect(outcome).rejects.toThrow(
          new RegExp(`^MPS daemon for ${GPU}: cannot give .* to uid ${other.uid} gid ${other.gid}: EPERM`),
        );
        expect(users).toEqual([`quit as ${self.uid}:${self.gid}`]);
        expect(await waitGone(first)).toBe(true);
      }

      // Back to the server's own user: a fresh daemon without an owner file.
      users.length = 0;
      await mps.ensureDaemon({ key: GPU });
      expect(users).toEqual(['-d as server', 'get_default_active_thread_percentage as server']);
      expect(() => readFileSync(ownerFile)).toThrow(/ENOENT/);
      const second = pidIn(t.base, GPU);
      users.length = 0;
      await mps.ensureDaemon({ key: GPU, user: self });
      expect(users).toEqual([
        'quit as server',
        `-d as ${self.uid}:${self.gid}`,
        `get_default_active_thread_percentage as ${self.uid}:${self.gid}`,
      ]);
      expect(await waitGone(second)).toBe(true);
      pidIn(t.base, GPU);
      await mps.stopDaemon(GPU);
    },
  );
});

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchSpec, ProcessHandle, ProcessLauncher } from '../../app/ports/process-launcher.js';
import { createChildProcessLauncher } from './child-process-launcher.js';
import { cutMarker } from './capped-log.js';
import { isSameProcess, readProcessStartTime } from '../../host/proc-identity.js';
import {
  compiledSupervisorPath,
  makeJobDirectory,
  removeTemporaryDirectories,
  removeTestCgroupParent,
  TEST_ENV,
  testCgroupParent,
  waitForOutcome,
} from './testing/process-test-kit.js';
import { waitUntil } from './wait-until.js';
import { WAIT_MS } from '../../testing/deadlines.js';

const cgroupParent = testCgroupParent('supervisor');
const launchers: ProcessLauncher[] = [];
const started: Array<{ launcher: ProcessLauncher; handle: ProcessHandle }> = [];
let nextJobId = 1;

/** A launcher on `supervisorDirectory` (a fresh one by default). */
function newLauncher(supervisorDirectory = makeJobDirectory(), logCapBytes?: number): ProcessLauncher {
  const launcher = createChildProcessLauncher({
    cgroupParent,
    supervisorPath: compiledSupervisorPath(),
    supervisorDirectory,
    supervisorIdleExitMs: 2000,
    ...(logCapBytes === undefined ? {} : { logCapBytes }),
  });
  launchers.push(launcher);
  return launcher;
}

/** A spec for `argv` in a fresh job directory, which is also its working directory. */
function specFor(argv: string[]): LaunchSpec {
  const jobDirectory = makeJobDirectory();
  return {
    jobId: nextJobId++,
    attempt: 1,
    argv,
    workingDirectory: jobDirectory,
    environment: TEST_ENV,
    jobDirectory,
    cpuMilli: 0,
    hostMemoryMiB: 0,
  };
}

async function startJob(launcher: ProcessLauncher, spec: LaunchSpec): Promise<ProcessHandle> {
  const handle = await launcher.start(spec);
  started.push({ launcher, handle });
  return handle;
}

/** A job that waits (at most 30 s) for the file `release` in its working directory, then prints `released`. */
const WAIT_FOR_RELEASE = [
  'sh',
  '-c',
  'i=0; while [ ! -e release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; echo released',
];

/** The pids of live processes whose command line names `text`. */
function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter((pid) => isSameProcess(pid, readProcessStartTime(pid) ?? ''));
}

afterAll(async () => {
  for (const { launcher, handle } of started) {
    await launcher.stop(handle, 'SIGKILL', 500);
    await launcher.cleanup(handle);
  }
  for (const launcher of launchers) launcher.close();
  removeTestCgroupParent(cgroupParent);
  removeTemporaryDirectories();
});

describe('the supervisor of a data directory', () => {
  it('runs several attempts at once, each output in its own logs, in order', async () => {
    const launcher = newLauncher();
    const script = 'for i in 1 2 3 4 5 6 7 8; do echo "$0 line $i"; echo "$0 err $i" >&2; sleep 0.02; done';
    const handles = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((name) => startJob(launcher, specFor(['sh', '-c', script, name]))),
    );
    expect(new Set(handles.map((h) => h.supervisorPid)).size).toBe(1);
    for (const [index, handle] of handles.entries()) {
      const name = 'abcde'[index]!;
      expect(await waitForOutcome(launcher, handle)).toMatchObject({ exitCode: 0, signal: null, error: null });
      expect(readFileSync(handle.stdoutPath, 'utf8')).toBe(
        [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `${name} line ${i}\n`).join(''),
      );
      expect(readFileSync(handle.stderrPath, 'utf8')).toBe(
        [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `${name} err ${i}\n`).join(''),
      );
    }
  });

  it('forwards a signal to its attempt only, recording when it reached the command', async () => {
    const launcher = newLauncher();
    const trapping = [
      'sh',
      '-c',
      'trap "echo got; exit 0" USR1; echo ready; i=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done',
    ];
    const target = await startJob(launcher, specFor(trapping));
    const other = await startJob(launcher, specFor(trapping));
    expect(
      await waitUntil(
        () =>
          readFileSync(target.stdoutPath, 'utf8') === 'ready\n' && readFileSync(other.stdoutPath, 'utf8') === 'ready\n',
        WAIT_MS,
      ),
    ).toBe(true);
    const before = Date.now();
    await launcher.stop(target, 'SIGUSR1', WAIT_MS);
    const outcome = await waitForOutcome(launcher, target);
    expect(outcome).toMatchObject({ exitCode: 0, signal: null, error: null });
    expect(outcome.signalDeliveredAtMs).toBeGreaterThanOrEqual(before);
    expect(readFileSync(target.stdoutPath, 'utf8')).toBe('ready\ngot\n');
    expect(launcher.isAlive(other)).toBe(true);
    expect(launcher.readOutcome(other)).toBeNull();
    await launcher.stop(other, 'SIGTERM', WAIT_MS);
    expect(await waitForOutcome(launcher, other)).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
  });

  it('caps each log: the head, the cut marker, the tail', async () => {
    const launcher = newLauncher(makeJobDirectory(), 4096);
    // 100 lines of 100 bytes: 10,000 bytes; head 3072, tail 1024.
    const handle = await startJob(
      launcher,
      specFor(['sh', '-c', 'i=0; while [ $i -lt 100 ]; do printf "%099d\\n" $i; i=$((i+1)); done']),
    );
    expect(await waitForOutcome(launcher, handle)).toMatchObject({ exitCode: 0 });
    const whole = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(99, '0')}\n`).join('');
    expect(readFileSync(handle.stdoutPath, 'utf8')).toBe(
      whole.slice(0, 3072) + cutMarker(10_000 - 4096) + whole.slice(10_000 - 1024),
    );
  });

  it('an outcome that cannot be written is tried again without holding up another attempt', async () => {
    const launcher = newLauncher();
    const spec = specFor(WAIT_FOR_RELEASE);
    const blocked = await startJob(launcher, spec);
    // A non-empty folder where the outcome goes: every rename onto it fails, as on a full disk.
    mkdirSync(join(blocked.outcomePath, 'in-the-way'), { recursive: true });
    writeFileSync(join(spec.workingDirectory, 'release'), '');
    const supervisorLog = join(launcherDirectoryOf(blocked), 'supervisor.log');
    expect(
      await waitUntil(
        () => existsSync(supervisorLog) && readFileSync(supervisorLog, 'utf8').includes('the outcome does not fit'),
        WAIT_MS,
      ),
    ).toBe(true);
    const other = await startJob(launcher, specFor(['sh', '-c', 'echo meanwhile']));
    expect(await waitForOutcome(launcher, other)).toMatchObject({ exitCode: 0, error: null });
    expect(readFileSync(other.stdoutPath, 'utf8')).toBe('meanwhile\n');
    expect(statSync(blocked.outcomePath).isDirectory()).toBe(true);
    expect(launcher.isAlive(blocked)).toBe(true); // the supervisor still vouches for it
    rmSync(blocked.outcomePath, { recursive: true });
    expect(await waitForOutcome(launcher, blocked, WAIT_MS)).toMatchObject({ exitCode: 0, signal: null, error: null });
    expect(readFileSync(blocked.stdoutPath, 'utf8')).toBe('released\n');
  });

  it(
    'a new launcher on the same directory (a restarted server) reaches the running supervisor and ' +
      'stops its attempts',
    async () => {
      const directory = makeJobDirectory();
      const first = newLauncher(directory);
      const handle = await startJob(
        first,
        specFor([
          'sh',
          '-c',
          'trap "exit 0" TERM; echo ready; i=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done',
        ]),
      );
      expect(await waitUntil(() => readFileSync(handle.stdoutPath, 'utf8') === 'ready\n', WAIT_MS)).toBe(true);
      first.close();
      const second = newLauncher(directory);
      expect(second.isAlive(handle)).toBe(true);
      const next = await startJob(second, specFor(['true']));
      expect(next.supervisorPid).toBe(handle.supervisorPid);
      await second.stop(handle, 'SIGTERM', WAIT_MS);
      const outcome = await waitForOutcome(second, handle);
      expect(outcome).toMatchObject({ exitCode: 0, signal: null });
      expect(outcome.signalDeliveredAtMs).not.toBeNull();
    },
  );

  it('launchers racing to start the supervisor of one directory leave one supervisor', async () => {
    const directory = join(makeJobDirectory(), 'race');
    const racers = [newLauncher(directory), newLauncher(directory), newLauncher(directory)];
    const handles = await Promise.all(racers.map((launcher) => startJob(launcher, specFor(['true']))));
    expect(new Set(handles.map((h) => h.supervisorPid)).size).toBe(1);
    expect(await waitUntil(() => processesNaming(directory).length === 1, WAIT_MS)).toBe(true);
    expect(processesNaming(directory)).toEqual([handles[0]!.supervisorPid]);
  });

  it('works from a directory whose path is far longer than a socket address takes (107 bytes)', async () => {
    const directory = join(makeJobDirectory(), 'd'.repeat(120), 'supervisor');
    const launcher = newLauncher(directory);
    const handle = await startJob(launcher, specFor(['sh', '-c', 'echo long']));
    expect(await waitForOutcome(launcher, handle)).toMatchObject({ exitCode: 0 });
    expect(statSync(join(directory, 'supervisor.sock')).isSocket()).toBe(true);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
  });

  it('a killed supervisor leaves its attempts not alive; the next start brings a new supervisor', async () => {
    const launcher = newLauncher();
    const handle = await startJob(launcher, specFor(WAIT_FOR_RELEASE));
    process.kill(handle.supervisorPid, 'SIGKILL');
    expect(await waitUntil(() => !launcher.isAlive(handle), WAIT_MS)).toBe(true);
    await launcher.stop(handle, 'SIGKILL', 500); // what the server does with a lost attempt
    const next = await startJob(launcher, specFor(['true']));
    expect(next.supervisorPid).not.toBe(handle.supervisorPid);
    expect(await waitForOutcome(launcher, next)).toMatchObject({ exitCode: 0 });
  });

  it(
    'a handle of a per-attempt supervisor (an older gpushare) is alive with its process and stopped ' +
      'by signalling it',
    async () => {
      const launcher = newLauncher();
      const old = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
      const pid = old.pid!;
      const dir = makeJobDirectory();
      const handle: ProcessHandle = {
        supervisorPid: pid,
        supervisorStartTime: readProcessStartTime(pid)!,
        jobPid: null,
        cgroupKey: null,
        freezerKind: 'signals',
        stdoutPath: join(dir, 'attempt-1.stdout.log'),
        stderrPath: join(dir, 'attempt-1.stderr.log'),
        pidPath: join(dir, 'attempt-1.pid'),
        outcomePath: join(dir, 'attempt-1.outcome.json'),
      };
      expect(launcher.isAlive(handle)).toBe(true);
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        old.on('exit', (_code, signal) => resolve(signal)),
      );
      await launcher.stop(handle, 'SIGTERM', WAIT_MS);
      expect(await exited).toBe('SIGTERM');
      expect(launcher.isAlive(handle)).toBe(false);
    },
  );
});

/** The supervisor directory of a handle's supervisor: the `--serve` argument of its command line. */
function launcherDirectoryOf(handle: ProcessHandle): string {
  const args = readFileSync(`/proc/${handle.supervisorPid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf('--serve') + 1]!;
}

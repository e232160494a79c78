import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchSpec, ProcessHandle } from '../../app/ports/process-launcher.js';
import { createChildProcessLauncher } from './child-process-launcher.js';
import { isSameProcess, readProcessStartTime } from '../../host/proc-identity.js';
import {
  bundledLauncherPath,
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

const cgroupParent = testCgroupParent('launcher');
const supervisorDirectory = makeJobDirectory();
const launcher = createChildProcessLauncher({
  cgroupParent,
  supervisorPath: compiledSupervisorPath(),
  supervisorDirectory,
  supervisorIdleExitMs: 2000,
});
const started: ProcessHandle[] = [];
let nextJobId = 1;

/** A spec for `argv` in a fresh job directory (cwd = job directory unless given). */
function specFor(argv: string[], extra: Partial<LaunchSpec> = {}): LaunchSpec {
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
    ...extra,
  };
}

async function startJob(spec: LaunchSpec): Promise<ProcessHandle> {
  const handle = await launcher.start(spec);
  started.push(handle);
  return handle;
}

afterAll(async () => {
  for (const handle of started) {
    await launcher.stop(handle, 'SIGKILL', 500);
    await launcher.cleanup(handle);
  }
  removeTestCgroupParent(cgroupParent);
  removeTemporaryDirectories();
});

describe('child process launcher: outcomes', () => {
  it('records exit code 3 and appends stdout / stderr to the attempt logs', async () => {
    const spec = specFor(['sh', '-c', 'echo hi; echo err >&2; exit 3']);
    const handle = await startJob(spec);
    expect(handle.jobPid).toBeGreaterThan(0);
    expect(handle.stdoutPath).toBe(join(spec.jobDirectory, 'attempt-1.stdout.log'));
    const outcome = await waitForOutcome(launcher, handle);
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, error: null });
    expect(outcome.endedAtMs).toBeGreaterThanOrEqual(outcome.startedAtMs);
    expect(readFileSync(handle.stdoutPath, 'utf8')).toBe('hi\n');
    expect(readFileSync(handle.stderrPath, 'utf8')).toBe('err\n');
    expect(JSON.parse(readFileSync(handle.pidPath, 'utf8'))).toEqual({
      jobPid: handle.jobPid,
      commandPid: handle.jobPid,
    });
    expect(handle.commandPid).toBe(handle.jobPid);
    expect(existsSync(join(spec.jobDirectory, 'attempt-1.launch.json'))).toBe(false); // holds the environment
    await waitUntil(() => !launcher.isAlive(handle), WAIT_MS);
    expect(launcher.isAlive(handle)).toBe(false);
  });

  it('honours the environment (complete, nothing inherited) and the working directory', async () => {
    const cwd = makeJobDirectory();
    const spec = specFor(['sh', '-c', 'echo "$FOO"; echo "${HOME-unset}"; pwd'], {
      workingDirectory: cwd,
      environment: { ...TEST_ENV, FOO: 'bar baz' },
    });
    const outcome = await waitForOutcome(launcher, await startJob(spec));
    expect(outcome.exitCode).toBe(0);
    expect(readFileSync(join(spec.jobDirectory, 'attempt-1.stdout.log'), 'utf8')).toBe(`bar baz\nunset\n${cwd}\n`);
  });

  it('a command that does not exist ends without exit code, the error naming it and ENOENT in words', async () => {
    const handle = await startJob(specFor(['no-such-command-gpushare']));
    expect(handle.jobPid).toBeNull();
    const outcome = await waitForOutcome(launcher, handle);
    expect(outcome).toMatchObject({
      exitCode: null,
      signal: null,
      error: 'could not start no-such-command-gpushare: ENOENT (no such file or directory)',
    });
    expect(outcome.endedAtMs).toBeGreaterThanOrEqual(outcome.startedAtMs);
  });

  it('a file that is not executable ends without exit code: EACCES in words', async () => {
    const spec = specFor(['./not-executable.sh']);
    writeFileSync(join(spec.workingDirectory, 'not-executable.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const outcome = await waitForOutcome(launcher, await startJob(spec));
    expect(outcome).toMatchObject({
      exitCode: null,
      signal: null,
      error: 'could not start ./not-executable.sh: EACCES (permission denied)',
    });
  });

  it(
    'a command line longer than the kernel takes (3 MiB of arguments) ends without exit code: E2BIG ' + 'in words',
    async () => {
      const handle = await startJob(specFor(['true', ...Array.from({ length: 30 }, () => 'x'.repeat(100_000))]));
      expect(handle.jobPid).toBeNull();
      const outcome = await waitForOutcome(launcher, handle);
      expect(outcome).toMatchObject({
        exitCode: null,
        signal: null,
        error: 'could not start true: E2BIG (the argument list is too long)',
      });
      expect(outcome.endedAtMs).toBeGreaterThanOrEqual(outcome.startedAtMs);
    },
  );

  it('a missing working directory is an error outcome without exit code', async () => {
    const outcome = await waitForOutcome(
      launcher,
      await startJob(specFor(['true'], { workingDirectory: '/nonexistent/gpushare' })),
    );
    expect(outcome).toMatchObject({
      exitCode: null,
      signal: null,
      error: 'working directory not found: /nonexistent/gpushare',
    });
  });
});

describe('child process launcher: identity and stop', () => {
  it('isAlive is true while running, false for a wrong start time, false after the exit', async () => {
    const handle = await startJob(specFor(['sleep', '600']));
    expect(launcher.isAlive(handle)).toBe(true);
    expect(handle.supervisorStartTime).toBe(readProcessStartTime(handle.supervisorPid));
    expect(launcher.isAlive({ ...handle, supervisorStartTime: '1' })).toBe(false);
    await launcher.stop(handle, 'SIGTERM', WAIT_MS);
    const outcome = await waitForOutcome(launcher, handle);
    expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGTERM', error: null });
    await waitUntil(() => !launcher.isAlive(handle), WAIT_MS);
    expect(launcher.isAlive(handle)).toBe(false);
  });

  it('stop sends SIGKILL after the grace when SIGTERM is ignored', async () => {
    const handle = await startJob(specFor(['sh', '-c', 'trap "" TERM; echo ready; sleep 600']));
    // SIGTERM before the trap is set would end the job at once: wait until it is ignored
    expect(await waitUntil(() => readFileSync(handle.stdoutPath, 'utf8') === 'ready\n', WAIT_MS)).toBe(true);
    const t0 = Date.now();
    await launcher.stop(handle, 'SIGTERM', 300);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    const outcome = await waitForOutcome(launcher, handle);
    expect(outcome.signal).toBe('SIGKILL');
  });

  it('stop kills the whole process tree, background grandchildren included', async () => {
    const spec = specFor(['sh', '-c', 'sleep 1000 & echo $! > bg.pid; wait']);
    const handle = await startJob(spec);
    const bgFile = join(spec.workingDirectory, 'bg.pid');
    expect(await waitUntil(() => existsSync(bgFile) && readFileSync(bgFile, 'utf8').endsWith('\n'), WAIT_MS)).toBe(
      true,
    );
    const bgPid = Number(readFileSync(bgFile, 'utf8'));
    const bgStart = readProcessStartTime(bgPid);
    expect(bgStart).not.toBeNull();
    await launcher.stop(handle, 'SIGTERM', WAIT_MS);
    expect((await waitForOutcome(launcher, handle)).signal).toBe('SIGTERM');
    expect(await waitUntil(() => !isSameProcess(bgPid, bgStart ?? ''), WAIT_MS)).toBe(true);
  });

  it('stop with SIGKILL kills the job itself (the supervisor cannot forward it), leaving no process', async () => {
    const handle = await startJob(specFor(['sh', '-c', 'trap "" TERM USR1; while :; do :; done']));
    const jobPid = handle.jobPid!;
    const jobStart = readProcessStartTime(jobPid)!;
    await launcher.stop(handle, 'SIGKILL', WAIT_MS);
    expect((await waitForOutcome(launcher, handle)).signal).toBe('SIGKILL');
    expect(await waitUntil(() => !isSameProcess(jobPid, jobStart), WAIT_MS)).toBe(true);
  });

  it(
    "one supervisor holds every attempt; isAlive ends with each attempt's outcome, not with the " + 'supervisor',
    async () => {
      const first = await startJob(specFor(['sleep', '600']));
      const second = await startJob(specFor(['true']));
      expect(second.supervisorPid).toBe(first.supervisorPid);
      expect(second.supervisorShared).toBe(true);
      await waitForOutcome(launcher, second);
      expect(launcher.isAlive(second)).toBe(false);
      expect(launcher.isAlive(first)).toBe(true);
      expect(isSameProcess(first.supervisorPid, first.supervisorStartTime)).toBe(true);
      await launcher.stop(first, 'SIGTERM', WAIT_MS);
      expect((await waitForOutcome(launcher, first)).signal).toBe('SIGTERM');
    },
  );

  it('records when a stop signal reached the running command, even when it then exits 0', async () => {
    const handle = await startJob(
      specFor(['sh', '-c', 'trap "echo saved; exit 0" USR1; echo ready; while :; do sleep 0.05; done']),
    );
    expect(await waitUntil(() => readFileSync(handle.stdoutPath, 'utf8') === 'ready\n', WAIT_MS)).toBe(true);
    const before = Date.now();
    await launcher.stop(handle, 'SIGUSR1', WAIT_MS);
    const outcome = await waitForOutcome(launcher, handle);
    expect(outcome).toMatchObject({ exitCode: 0, signal: null });
    expect(outcome.signalDeliveredAtMs).toBeGreaterThanOrEqual(before);
    expect(outcome.signalDeliveredAtMs).toBeLessThanOrEqual(outcome.endedAtMs);
    expect(readFileSync(handle.stdoutPath, 'utf8')).toBe('ready\nsaved\n');
  });

  it('a command that ends on its own records no delivered signal', async () => {
    const handle = await startJob(specFor(['true']));
    expect(await waitForOutcome(launcher, handle)).toMatchObject({
      exitCode: 0,
      signal: null,
      signalDeliveredAtMs: null,
    });
  });
});

describe('child process launcher: the job survives the server', () => {
  /** Starts `sh -c 'sleep 1; echo done'` from a separate node process and kills that process. */
  async function startFromDoomedServer(kill: 'self-SIGKILL' | 'group-SIGTERM'): Promise<ProcessHandle> {
    const spec = specFor(['sh', '-c', 'sleep 1; echo done']);
    const script = join(spec.jobDirectory, 'server.mjs');
    writeFileSync(
      script,
      [
        `import { createChildProcessLauncher } from ${JSON.stringify(bundledLauncherPath())};`,
        `const launcher = createChildProcessLauncher({ cgroupParent: ${JSON.stringify(cgroupParent)}, ` +
          `supervisorPath: ${JSON.stringify(compiledSupervisorPath())}, supervisorDirectory: ` +
          `${JSON.stringify(supervisorDirectory)}, supervisorIdleExitMs: 2000 });`,
        `const handle = await launcher.start(${JSON.stringify(spec)});`,
        `process.stdout.write(JSON.stringify(handle) + '\\n', () => {`,
        kill === 'self-SIGKILL' ? `  process.kill(process.pid, 'SIGKILL');` : `  setInterval(() => undefined, 1000);`,
        `});`,
      ].join('\n'),
    );
    const server = spawn(process.execPath, [script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      server.on('exit', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve();
      });
      server.on('exit', () => (text.includes('\n') ? resolve() : reject(new Error('server exited without a handle'))));
    });
    if (kill === 'group-SIGTERM' && server.pid !== undefined) process.kill(-server.pid, 'SIGTERM');
    expect(await exited).toBe(kill === 'self-SIGKILL' ? 'SIGKILL' : 'SIGTERM');
    const handle = JSON.parse(text) as ProcessHandle;
    started.push(handle);
    return handle;
  }

  for (const kill of ['self-SIGKILL', 'group-SIGTERM'] as const) {
    it(`the job finishes and records its outcome after the server dies (${kill})`, async () => {
      const handle = await startFromDoomedServer(kill);
      expect(launcher.isAlive(handle)).toBe(true);
      const outcome = await waitForOutcome(launcher, handle);
      expect(outcome).toMatchObject({ exitCode: 0, signal: null, error: null });
      expect(readFileSync(handle.stdoutPath, 'utf8')).toBe('done\n');
      expect(await waitUntil(() => !launcher.isAlive(handle), WAIT_MS)).toBe(true);
    });
  }
});

describe('child process launcher: cgroups and limits', () => {
  it(`uses the preferred freezer of this host (${launcher.freezerKind}) and reports limits`, () => {
    expect(['cgroup-v2', 'cgroup-v1', 'signals']).toContain(launcher.freezerKind);
    expect(typeof launcher.enforcement.cpuMilli).toBe('boolean');
  });

  const v1 = {
    cpu: existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
    memory: existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes'),
  };
  const noV1Limits = !v1.cpu || !v1.memory || !launcher.enforcement.cpuMilli || !launcher.enforcement.hostMemoryMiB;
  const noCgroupFreezer = launcher.freezerKind === 'signals';
  if (noV1Limits)
    process.stderr.write(
      'skipped: the v1 CFS quota and memory limit test needs v1 cpu + memory cgroups this user may write ' +
        '(root, cgroup v1)\n',
    );
  if (noCgroupFreezer)
    process.stderr.write('skipped: the cgroup-in-use test needs a cgroup freezer this user may write (root)\n');
  it.skipIf(noV1Limits)(
    'cpuMilli 500 and hostMemoryMiB 256 become a v1 CFS quota and memory limit; cleanup removes the cgroups ' +
      '(needs v1 cpu + memory cgroups this user may write: root)',
    async () => {
      const spec = specFor(['sleep', '600'], { cpuMilli: 500, hostMemoryMiB: 256 });
      const handle = await startJob(spec);
      const key = `job-${spec.jobId}-a1`;
      expect(handle.cgroupKey).toBe(key);
      const cpuDir = join('/sys/fs/cgroup/cpu', cgroupParent, key);
      const memoryDir = join('/sys/fs/cgroup/memory', cgroupParent, key);
      expect(readFileSync(join(cpuDir, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('50000');
      expect(readFileSync(join(cpuDir, 'cpu.cfs_period_us'), 'utf8').trim()).toBe('100000');
      expect(readFileSync(join(memoryDir, 'memory.limit_in_bytes'), 'utf8').trim()).toBe('268435456');
      for (const dir of [cpuDir, memoryDir]) {
        // the job is inside; the supervisor moved back out once the job was started
        expect(readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim().split('\n').map(Number)).toEqual([handle.jobPid]);
      }
      await launcher.stop(handle, 'SIGTERM', WAIT_MS);
      await waitForOutcome(launcher, handle);
      await launcher.cleanup(handle);
      await launcher.cleanup(handle); // idempotent
      expect(existsSync(cpuDir)).toBe(false);
      expect(existsSync(memoryDir)).toBe(false);
    },
  );

  it.skipIf(noCgroupFreezer)(
    'start refuses an attempt whose cgroup is still in use (never kills unknown processes) ' +
      '(needs a cgroup freezer this user may write: root)',
    async () => {
      const spec = specFor(['sleep', '600']);
      const first = await startJob(spec);
      await expect(launcher.start({ ...spec, jobDirectory: makeJobDirectory() })).rejects.toThrow(
        `is in use by pid(s) ${first.jobPid}`,
      );
      expect(launcher.isAlive(first)).toBe(true);
    },
  );

  it('cleanup kills what a finished attempt left in its cgroups (a setsid escapee) and removes them', async () => {
    const spec = specFor(['sh', '-c', 'setsid sleep 1000 & echo $! > bg.pid; sleep 0.2']);
    const handle = await startJob(spec);
    await waitForOutcome(launcher, handle);
    const bgPid = Number(readFileSync(join(spec.workingDirectory, 'bg.pid'), 'utf8'));
    const bgStart = readProcessStartTime(bgPid);
    if (handle.cgroupKey === null) {
      // Signals-only host (e.g. not root): no cgroup to clean; the test ends the escapee itself.
      if (bgStart !== null && isSameProcess(bgPid, bgStart)) process.kill(bgPid, 'SIGKILL');
      return;
    }
    expect(bgStart).not.toBeNull(); // escaped the process group: survived the supervisor's sweep
    await launcher.cleanup(handle);
    expect(await waitUntil(() => !isSameProcess(bgPid, bgStart ?? ''), WAIT_MS)).toBe(true);
  });
});

describe('resolveExecutable', () => {
  const cwd = makeJobDirectory();
  mkdirSync(join(cwd, 'bin'));
  writeFileSync(join(cwd, 'bin', 'tool'), '#!/bin/sh\n');
  chmodSync(join(cwd, 'bin', 'tool'), 0o755);
  writeFileSync(join(cwd, 'plain'), 'x');

  it('searches the PATH of the given environment', () => {
    expect(launcher.resolveExecutable('sh', cwd, { PATH: `/nonexistent:${TEST_ENV.PATH}` })).toMatch(/\/sh$/);
    expect(launcher.resolveExecutable('tool', cwd, { PATH: '/nonexistent' })).toBeNull();
    expect(launcher.resolveExecutable('tool', cwd, { PATH: `/nonexistent:${join(cwd, 'bin')}` })).toBe(
      join(cwd, 'bin', 'tool'),
    );
    expect(launcher.resolveExecutable('tool', cwd, { PATH: 'bin' })).toBe(join(cwd, 'bin', 'tool')); // relative entry
  });

  it('takes a name with a slash relative to the working directory, and refuses non-executables', () => {
    expect(launcher.resolveExecutable('./bin/tool', cwd, {})).toBe(join(cwd, 'bin', 'tool'));
    expect(launcher.resolveExecutable('./plain', cwd, {})).toBeNull();
    expect(launcher.resolveExecutable('./bin', cwd, {})).toBeNull();
    expect(launcher.resolveExecutable('', cwd, TEST_ENV)).toBeNull();
  });
});

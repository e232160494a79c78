/**
 * Time-slicing measured with real processes (slow suite: it needs the machine's CPU to itself, and
 * takes 20 s): three CPU-bound jobs with gpuMilli 600/300/100 on one time-sliced GPU get CPU in
 * those proportions, with the cgroup freezer and with signals.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSystemClock } from '../../src/adapters/clock/system-clock.js';
import { createChildProcessLauncher } from '../../src/adapters/process/child-process-launcher.js';
import { processGroupCpuMs } from '../../src/adapters/process/proc-group.js';
import {
  compiledSupervisorPath,
  makeJobDirectory,
  removeTemporaryDirectories,
  removeTestCgroupParent,
  TEST_ENV,
  testCgroupParent,
} from '../../src/adapters/process/testing/process-test-kit.js';
import type { FreezerKind, ProcessHandle, ProcessLauncher } from '../../src/app/ports/process-launcher.js';
import { TimesliceRotator } from '../../src/app/scheduling/timeslice-rotator.js';

describe('TimesliceRotator with real processes', () => {
  const cgroupParent = testCgroupParent('rotator');
  const launchers = new Map<string, ProcessLauncher>();
  const running: Array<[ProcessLauncher, ProcessHandle]> = [];
  afterAll(async () => {
    for (const [launcher, h] of running) {
      await launcher.stop(h, 'SIGKILL', 500);
      await launcher.cleanup(h);
    }
    removeTestCgroupParent(cgroupParent);
    removeTemporaryDirectories();
  });

  const launcherFor = (freezer: FreezerKind | 'auto'): ProcessLauncher => {
    let launcher = launchers.get(freezer);
    if (launcher === undefined) {
      launcher = createChildProcessLauncher({
        freezer,
        cgroupParent,
        supervisorPath: compiledSupervisorPath(),
        supervisorDirectory: makeJobDirectory(),
        supervisorIdleExitMs: 2000,
      });
      launchers.set(freezer, launcher);
    }
    return launcher;
  };

  for (const freezer of ['auto', 'signals'] as const) {
    it(
      `three CPU-bound jobs with gpuMilli 600/300/100 get CPU 60/30/10 (±10 points) over 10 s ` +
        `(freezer ${freezer})`,
      async () => {
        const launcher = launcherFor(freezer);
        const jobs = [];
        for (const [jobId, gpuMilli] of [
          [1, 600],
          [2, 300],
          [3, 100],
        ] as const) {
          const dir = makeJobDirectory();
          const h = await launcher.start({
            jobId,
            attempt: freezer === 'auto' ? 1 : 2,
            argv: ['sh', '-c', 'while :; do :; done'],
            workingDirectory: dir,
            environment: TEST_ENV,
            jobDirectory: dir,
            cpuMilli: 0,
            hostMemoryMiB: 0,
          });
          running.push([launcher, h]);
          jobs.push({ jobId, gpuMilli, handle: h });
        }
        const rotator = new TimesliceRotator(launcher, createSystemClock(), { periodMs: 1000 });
        await rotator.setRunnable('gpu-0', jobs);
        const before = jobs.map((j) => processGroupCpuMs(j.handle.jobPid ?? -1));
        await sleep(10_000);
        const used = jobs.map((j, i) => processGroupCpuMs(j.handle.jobPid ?? -1) - (before[i] ?? 0));
        const stats = rotator.stats();
        await rotator.stop();
        for (const j of jobs) await launcher.stop(j.handle, 'SIGKILL', 500); // free the CPU for the next test
        const total = used.reduce((a, b) => a + b, 0);
        const pct = used.map((u) => Math.round((1000 * u) / total) / 10);
        console.log(
          `[${launcher.freezerKind}] CPU ms ${used.join(' / ')} = ${pct.join(' / ')} %; slices ` +
            `${stats.map((s) => s.slices).join(' / ')}; run ms ${stats.map((s) => s.runMs).join(' / ')}`,
        );
        expect(total).toBeGreaterThan(1000); // the rotation runs jobs (about 1 core × 10 s when the host is idle)
        expect(Math.abs((pct[0] ?? 0) - 60)).toBeLessThanOrEqual(10);
        expect(Math.abs((pct[1] ?? 0) - 30)).toBeLessThanOrEqual(10);
        expect(Math.abs((pct[2] ?? 0) - 10)).toBeLessThanOrEqual(10);
        for (const s of stats) expect(s.slices).toBeGreaterThanOrEqual(7);
        for (const s of stats) expect(s.slices).toBeLessThanOrEqual(11);
      },
      40_000,
    );
  }
});

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createChildProcessLauncher } from '../../adapters/process/child-process-launcher.js';
import { processGroupCpuMs } from '../../adapters/process/proc-group.js';
import {
  compiledSupervisorPath, makeJobDirectory, removeTemporaryDirectories, removeTestCgroupParent, TEST_ENV, testCgroupParent,
} from '../../adapters/process/testing/process-test-kit.js';
import type { FreezerKind, ProcessHandle, ProcessLauncher } from '../ports/process-launcher.js';
import { TimesliceRotator } from './timeslice-rotator.js';

/** A launcher double that only tracks frozen state; `dead` jobs throw on freeze and are not alive. */
function fakeLauncher(): { launcher: ProcessLauncher; frozen: Set<number>; dead: Set<number>; log: string[] } {
  const frozen = new Set<number>();
  const dead = new Set<number>();
  const log: string[] = [];
  const id = (h: ProcessHandle): number => h.supervisorPid;
  const launcher = {
    freezerKind: 'signals', enforcement: { cpuMilli: false, hostMemoryMiB: false },
    isAlive: (h: ProcessHandle) => !dead.has(id(h)),
    freeze: async (h: ProcessHandle) => {
      if (dead.has(id(h))) throw new Error(`job ${id(h)} exited`);
      frozen.add(id(h));
      log.push(`freeze ${id(h)}`);
    },
    thaw: async (h: ProcessHandle) => {
      frozen.delete(id(h));
      log.push(`thaw ${id(h)}`);
    },
  } as unknown as ProcessLauncher;
  return { launcher, frozen, dead, log };
}

const handle = (jobId: number): ProcessHandle => ({
  supervisorPid: jobId, supervisorStartTime: '1', jobPid: jobId, cgroupKey: null, freezerKind: 'signals',
  stdoutPath: '', stderrPath: '', pidPath: '', outcomePath: '',
});
const job = (jobId: number, gpuMilli: number): { jobId: number; gpuMilli: number; handle: ProcessHandle } =>
  ({ jobId, gpuMilli, handle: handle(jobId) });

describe('TimesliceRotator (launcher double)', () => {
  it('freezes nothing for one job; with two, exactly one runs at a time; stop thaws all', async () => {
    const { launcher, frozen, log } = fakeLauncher();
    const rotator = new TimesliceRotator(launcher, { periodMs: 100 });
    await rotator.setRunnable('gpu-0', [job(1, 500)]);
    expect(frozen.size).toBe(0);
    await rotator.setRunnable('gpu-0', [job(1, 500), job(2, 500)]);
    expect([...frozen]).toEqual([2]);
    await sleep(75);
    expect([...frozen]).toEqual([1]); // job 2's turn after job 1's 50 ms
    await rotator.setRunnable('gpu-0', [job(2, 500)]);
    expect(frozen.size).toBe(0); // a single job is thawed and runs alone
    await rotator.setRunnable('gpu-0', [job(2, 500), job(3, 500)]);
    await rotator.stop();
    expect(frozen.size).toBe(0);
    expect(log.filter((l) => l.startsWith('freeze')).length).toBeGreaterThanOrEqual(2);
    await rotator.setRunnable('gpu-0', [job(4, 500), job(5, 500)]); // after stop: nothing happens
    expect(frozen.size).toBe(0);
    expect(rotator.stats()).toEqual([]);
  });

  it('keeps rotating when a job exits mid-rotation (its freeze fails; its turns are skipped)', async () => {
    const { launcher, frozen, dead } = fakeLauncher();
    const warnings: string[] = [];
    const rotator = new TimesliceRotator(launcher, { periodMs: 60, logger: { warn: (_o, msg) => warnings.push(msg ?? '') } });
    await rotator.setRunnable('gpu-0', [job(1, 1), job(2, 1), job(3, 1)]);
    dead.add(1);
    await sleep(200);
    const slices = new Map(rotator.stats().map((s) => [s.jobId, s.slices]));
    expect(slices.get(1)).toBe(1); // only its first turn, before it exited
    expect(slices.get(2)).toBeGreaterThanOrEqual(2);
    expect(slices.get(3)).toBeGreaterThanOrEqual(2);
    expect(warnings).toContain('time-slice freeze failed');
    await rotator.remove(2);
    expect(rotator.stats().map((s) => s.jobId)).toEqual([1, 3]);
    await rotator.stop();
    expect(frozen.size).toBe(0);
  });
});

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
      launcher = createChildProcessLauncher({ freezer, cgroupParent, supervisorPath: compiledSupervisorPath() });
      launchers.set(freezer, launcher);
    }
    return launcher;
  };

  for (const freezer of ['auto', 'signals'] as const) {
    it(`three CPU-bound jobs with gpuMilli 600/300/100 get CPU 60/30/10 (±10 points) over 10 s (freezer ${freezer})`, async () => {
      const launcher = launcherFor(freezer);
      const jobs = [];
      for (const [jobId, gpuMilli] of [[1, 600], [2, 300], [3, 100]] as const) {
        const dir = makeJobDirectory();
        const h = await launcher.start({
          jobId, attempt: freezer === 'auto' ? 1 : 2, argv: ['sh', '-c', 'while :; do :; done'], workingDirectory: dir,
          environment: TEST_ENV, jobDirectory: dir, cpuMilli: 0, hostMemoryMiB: 0,
        });
        running.push([launcher, h]);
        jobs.push({ jobId, gpuMilli, handle: h });
      }
      const rotator = new TimesliceRotator(launcher, { periodMs: 1000 });
      await rotator.setRunnable('gpu-0', jobs);
      const before = jobs.map((j) => processGroupCpuMs(j.handle.jobPid ?? -1));
      await sleep(10_000);
      const used = jobs.map((j, i) => processGroupCpuMs(j.handle.jobPid ?? -1) - (before[i] ?? 0));
      const stats = rotator.stats();
      await rotator.stop();
      for (const j of jobs) await launcher.stop(j.handle, 'SIGKILL', 500); // free the CPU for the next test
      const total = used.reduce((a, b) => a + b, 0);
      const pct = used.map((u) => Math.round((1000 * u) / total) / 10);
      console.log(`[${launcher.freezerKind}] CPU ms ${used.join(' / ')} = ${pct.join(' / ')} %; slices ${stats.map((s) => s.slices).join(' / ')}; run ms ${stats.map((s) => s.runMs).join(' / ')}`);
      expect(total).toBeGreaterThan(1000); // the rotation runs jobs (about 1 core × 10 s when the host is idle)
      expect(Math.abs((pct[0] ?? 0) - 60)).toBeLessThanOrEqual(10);
      expect(Math.abs((pct[1] ?? 0) - 30)).toBeLessThanOrEqual(10);
      expect(Math.abs((pct[2] ?? 0) - 10)).toBeLessThanOrEqual(10);
      for (const s of stats) expect(s.slices).toBeGreaterThanOrEqual(7);
      for (const s of stats) expect(s.slices).toBeLessThanOrEqual(11);
    }, 40_000);
  }
});

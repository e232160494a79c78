import { describe, expect, it } from 'vitest';
import type { ProcessHandle, ProcessLauncher } from '../ports/process-launcher.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { TimesliceRotator } from './timeslice-rotator.js';

/** A launcher double that only tracks frozen state; `dead` jobs throw on freeze and are not alive. */
function fakeLauncher(): { launcher: ProcessLauncher; frozen: Set<number>; dead: Set<number>; log: string[] } {
  const frozen = new Set<number>();
  const dead = new Set<number>();
  const log: string[] = [];
  const id = (h: ProcessHandle): number => h.supervisorPid;
  const launcher = {
    freezerKind: 'signals',
    enforcement: { cpuMilli: false, hostMemoryMiB: false },
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
  supervisorPid: jobId,
  supervisorStartTime: '1',
  jobPid: jobId,
  cgroupKey: null,
  freezerKind: 'signals',
  stdoutPath: '',
  stderrPath: '',
  pidPath: '',
  outcomePath: '',
});
const job = (jobId: number, gpuMilli: number): { jobId: number; gpuMilli: number; handle: ProcessHandle } => ({
  jobId,
  gpuMilli,
  handle: handle(jobId),
});

/** Moves the manual clock forward in 5 ms steps, letting each rotation step (promises) finish. */
async function tick(clock: ManualClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 5) {
    clock.advance(5);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('TimesliceRotator (launcher double, manual clock)', () => {
  it('freezes nothing for one job; with two, exactly one runs at a time; stop thaws all', async () => {
    const { launcher, frozen, log } = fakeLauncher();
    const clock = new ManualClock();
    const rotator = new TimesliceRotator(launcher, clock, { periodMs: 100 });
    await rotator.setRunnable('gpu-0', [job(1, 500)]);
    expect(frozen.size).toBe(0);
    await rotator.setRunnable('gpu-0', [job(1, 500), job(2, 500)]);
    expect([...frozen]).toEqual([2]);
    await tick(clock, 45);
    expect([...frozen]).toEqual([2]); // still job 1's 50 ms
    await tick(clock, 10);
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
    const clock = new ManualClock();
    const rotator = new TimesliceRotator(launcher, clock, {
      periodMs: 60,
      logger: { warn: (_o, msg) => warnings.push(msg ?? '') },
    });
    await rotator.setRunnable('gpu-0', [job(1, 1), job(2, 1), job(3, 1)]);
    dead.add(1);
    await tick(clock, 200);
    const slices = new Map(rotator.stats().map((s) => [s.jobId, s.slices]));
    // 20 ms turns over 200 ms: job 1 had only its first turn (before it exited); jobs 2 and 3 share the rest.
    expect(slices.get(1)).toBe(1);
    expect(slices.get(2)).toBe(5);
    expect(slices.get(3)).toBe(5);
    expect(warnings).toContain('time-slice freeze failed');
    await rotator.remove(2);
    expect(rotator.stats().map((s) => s.jobId)).toEqual([1, 3]);
    await rotator.stop();
    expect(frozen.size).toBe(0);
  });
});

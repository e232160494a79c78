/**
 * Launch coordination on a manual clock: placed jobs launched off the caller's turn and handed to
 * the running set, the wait for the server's URL, a cancel before the launch, a stop asked for
 * while launching, and launch writes held back by a full disk.
 */
import { describe, expect, it } from 'vitest';
import { diskFull } from '../errors.js';
import type { JobChange } from '../ports/state-store.js';
import { loopParts } from '../testing/loop-parts.js';
import { LaunchCoordinator } from './launch-coordinator.js';
import { JOB_EVENT_CODES, jobEventReason } from '../../core/index.js';

const HALF = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'timeslice' } as const;

async function setup(launchConcurrency?: number) {
  const parts = await loopParts('1xA100-80GB', launchConcurrency === undefined ? {} : { launchConcurrency });
  return { parts, launches: new LaunchCoordinator(parts) };
}

describe('LaunchCoordinator', () => {
  it('launches placed jobs in later turns and hands them to the running set', async () => {
    const { parts, launches } = await setup();
    const a = parts.place({ gpu: HALF });
    const b = parts.place({ gpu: HALF });
    launches.enqueue([a.id, b.id]);
    expect(parts.launcher.attempts).toEqual([]);
    await parts.clock.settle();
    expect(parts.launcher.attempts.map((x) => x.spec.jobId)).toEqual([a.id, b.id]);
    expect(parts.running.all().map((j) => [j.id, j.state])).toEqual([
      [a.id, 'running'],
      [b.id, 'running'],
    ]);
    expect([parts.noted, launches.heldWrites, launches.migReconfigurations]).toEqual([[], 0, 0]);
  });

  it('waits for the server URL when asked to, and gives it to the job', async () => {
    const { parts, launches } = await setup();
    launches.serverUrl.awaitIt();
    const job = parts.place({ gpu: HALF });
    launches.enqueue([job.id]);
    await parts.clock.settle();
    expect(parts.launcher.attempts).toEqual([]);
    launches.serverUrl.set('https://127.0.0.1:7070', null);
    await parts.clock.settle();
    expect(parts.launcher.attempt(job.id).spec.environment.GPUSHARE_URL).toBe('https://127.0.0.1:7070');
  });

  it('ends a job cancelled before its launch without starting it, and asks for a pass', async () => {
    const { parts, launches } = await setup();
    const job = parts.place({ gpu: HALF });
    parts.intents.set(job.id, {
      kind: 'cancelled',
      reason: jobEventReason(JOB_EVENT_CODES.cancelled, { by: 'admin', tenant: null, note: null }),
    });
    launches.enqueue([job.id]);
    await parts.clock.settle();
    expect([parts.store.getJob(job.id)!.state, parts.launcher.attempts.length]).toEqual(['cancelled', 0]);
    expect([parts.intents.has(job.id), parts.noted, parts.passRequests.count]).toEqual([false, ['job-ended'], 1]);
  });

  it('stops at once a job whose stop was asked for while it launched', async () => {
    const { parts, launches } = await setup();
    const job = parts.place({ gpu: HALF });
    launches.enqueue([job.id]);
    parts.intents.set(job.id, { kind: 'time-limit' });
    await parts.clock.settle();
    expect(parts.launcher.attempt(job.id).signals).toEqual(['SIGTERM']);
  });

  it('notes a failed launch for the next pass', async () => {
    const { parts, launches } = await setup();
    const job = parts.place({ gpu: HALF });
    parts.launcher.start = () => Promise.reject(new Error('no supervisor'));
    launches.enqueue([job.id]);
    await parts.clock.settle();
    expect([parts.store.getJob(job.id)!.state, parts.noted, parts.passRequests.count]).toEqual([
      'failed',
      ['launch-failed'],
      1,
    ]);
  });

  it('holds the running write a full disk refused; writes it (adopting the attempt) once there is room', async () => {
    const { parts, launches } = await setup();
    const job = parts.place({ gpu: HALF });
    const write = parts.store.applyJobChanges.bind(parts.store);
    let refuse = true;
    parts.store.applyJobChanges = (changes: readonly JobChange[]) => {
      if (refuse && changes.some((c) => c.to === 'running')) throw diskFull('/data', 'SQLITE_FULL');
      return write(changes);
    };
    launches.enqueue([job.id]);
    await parts.clock.settle();
    expect([parts.store.getJob(job.id)!.state, launches.heldWrites, parts.disk.full]).toEqual(['scheduled', 1, true]);
    expect(parts.running.size).toBe(0);
    launches.retryHeldWrites(); // the disk is still known full: nothing is tried
    expect(launches.heldWrites).toBe(1);
    parts.testDisk.free();
    launches.retryHeldWrites(); // room, but the write still fails: it stays held
    expect(launches.heldWrites).toBe(1);
    refuse = false;
    parts.testDisk.free();
    launches.retryHeldWrites();
    expect([parts.store.getJob(job.id)!.state, launches.heldWrites, parts.running.has(job.id)]).toEqual([
      'running',
      0,
      true,
    ]);
    expect(parts.passRequests.count).toBe(1);
  });

  it('puts a job whose start found the disk full back in the queue once there is room', async () => {
    const { parts, launches } = await setup();
    const job = parts.place({ gpu: HALF });
    parts.launcher.start = () => Promise.reject(diskFull('/data', 'ENOSPC'));
    launches.enqueue([job.id]);
    await parts.clock.settle();
    expect([parts.store.getJob(job.id)!.state, launches.heldWrites]).toEqual(['scheduled', 1]);
    parts.testDisk.free();
    launches.retryHeldWrites();
    expect([parts.store.getJob(job.id)!.state, parts.queue.has(job.id), parts.noted]).toEqual([
      'pending',
      true,
      ['requeued'],
    ]);
  });

  it('refuses a launch concurrency below 1', async () => {
    await expect(setup(0)).rejects.toThrow('launchConcurrency must be an integer >= 1, got 0');
  });
});

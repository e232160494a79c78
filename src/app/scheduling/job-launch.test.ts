/**
 * Starting an attempt of a scheduled job: its folder, environment and two store writes; a job no
 * longer scheduled is skipped; a cancel before the launch; a full disk answered with the write to do.
 */
import { describe, expect, it, vi } from 'vitest';
import { diskFull } from '../errors.js';
import { loopParts } from '../testing/loop-parts.js';
import { JOB_EVENT_CODES, jobEventReason } from '../../core/index.js';

const HALF = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'timeslice' } as const;

describe('JobLaunch', () => {
  it('starts attempt 1 in a new folder with its environment, and records it running', async () => {
    const parts = await loopParts('1xA100-80GB');
    const job = parts.place({ gpu: HALF });
    const result = await parts.launch.launch(job.id, 'https://127.0.0.1:7070', null);
    expect(result.kind).toBe('started');
    const stored = parts.store.getJob(job.id)!;
    expect([stored.state, stored.attempt, stored.folder, stored.startedAtMs]).toEqual([
      'running',
      1,
      `${job.id}-m1`,
      parts.clock.nowMs(),
    ]);
    expect(stored.reportTokenDigest).toMatch(/^[0-9a-f]{64}$/);
    const { spec } = parts.launcher.attempt(job.id);
    expect(spec.attempt).toBe(1);
    expect(spec.environment).toMatchObject({
      GPUSHARE_JOB_ID: String(job.id),
      GPUSHARE_ATTEMPT: '1',
      GPUSHARE_MODE: 'timeslice',
      GPUSHARE_GPU_MILLI: '500',
      GPUSHARE_URL: 'https://127.0.0.1:7070',
    });
    expect(parts.store.listEvents(job.id).map((e) => e.toState)).toEqual(['pending', 'scheduled', 'running']);
    expect(parts.store.listAttempts(job.id).map((a) => [a.attempt, a.endReason])).toEqual([[1, null]]);
  });

  it('skips a job that is no longer scheduled', async () => {
    const parts = await loopParts('1xA100-80GB');
    const job = parts.submit({ gpu: HALF });
    expect(await parts.launch.launch(job.id, null)).toEqual({ kind: 'skipped' });
    expect(await parts.launch.launch(999, null)).toEqual({ kind: 'skipped' });
    expect(parts.launcher.attempts).toEqual([]);
  });

  it('ends a job cancelled before its launch `cancelled` instead, once', async () => {
    const parts = await loopParts('1xA100-80GB');
    const job = parts.place({ gpu: HALF });
    const byAlice = jobEventReason(JOB_EVENT_CODES.cancelled, { by: 'tenant', tenant: 'alice', note: null });
    expect(parts.launch.cancelInstead(job.id, byAlice)).toBe(true);
    const stored = parts.store.getJob(job.id)!;
    expect([stored.state, stored.endedAtMs]).toEqual(['cancelled', parts.clock.nowMs()]);
    expect(parts.store.listEvents(job.id).at(-1)?.reason).toEqual(byAlice);
    expect(parts.launch.cancelInstead(job.id, byAlice)).toBe(false);
    expect(parts.launcher.attempts).toEqual([]);
  });

  it('fails the job with the reason when the start fails', async () => {
    const parts = await loopParts('1xA100-80GB');
    const job = parts.place({ gpu: HALF });
    vi.spyOn(parts.launcher, 'start').mockRejectedValueOnce(new Error('spawn E2BIG'));
    expect(await parts.launch.launch(job.id, null)).toEqual({
      kind: 'failed',
      reason: jobEventReason(JOB_EVENT_CODES.launchFailed, { error: 'spawn E2BIG' }),
    });
    expect(parts.store.getJob(job.id)!.state).toBe('failed');
    expect(parts.logs.map((l) => [l.level, l.msg])).toEqual([['warn', 'launch failed']]);
  });

  it('answers a full disk at the start with the write that puts the job back to pending', async () => {
    const parts = await loopParts('1xA100-80GB');
    const job = parts.place({ gpu: HALF });
    vi.spyOn(parts.launcher, 'start').mockRejectedValueOnce(diskFull('/data', 'ENOSPC'));
    const result = await parts.launch.launch(job.id, null);
    if (result.kind !== 'disk-full') throw new Error(`expected disk-full, got ${result.kind}`);
    expect([result.started, result.label]).toEqual([false, `job ${job.id} back to pending`]);
    expect(parts.store.getJob(job.id)!.state).toBe('scheduled');
    result.write();
    const stored = parts.store.getJob(job.id)!;
    expect([stored.state, stored.placement, stored.folder]).toEqual(['pending', null, `${job.id}-m1`]);
    expect(parts.store.listEvents(job.id).at(-1)?.reason).toEqual(jobEventReason(JOB_EVENT_CODES.requeuedDiskFull));
  });
});

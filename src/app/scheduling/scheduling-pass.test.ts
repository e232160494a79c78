/**
 * One scheduling pass over the in-memory store: placements stored in one transaction, the reasons
 * of the jobs that wait, skipped passes, and the cluster state built with the configured policy.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findPolicy, statusMessage } from '../../core/index.js';
import { loopParts } from '../testing/loop-parts.js';
import { SchedulingPass } from './scheduling-pass.js';

const WHOLE = { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' } as const;

afterEach(() => vi.restoreAllMocks());

describe('SchedulingPass', () => {
  it('places what fits in one store write, leaves the rest queued with its reason, emits one pass event', async () => {
    const parts = await loopParts('1xA100-80GB');
    const first = parts.submit({ gpu: WHOLE });
    const second = parts.submit({ gpu: WHOLE });
    const outcome = parts.pass.run();
    expect(outcome).toEqual({ placedJobIds: [first.id], preemption: null, wakeAtMs: null });
    const placed = parts.store.getJob(first.id)!;
    expect(placed.state).toBe('scheduled');
    expect(placed.placement).toMatchObject({ mode: 'exclusive', gpus: [{ index: 0, gpuMilli: 1000 }] });
    expect(statusMessage(parts.store.listEvents(first.id).at(-1)!.reason!)).toBe('placed on GPU 0 in mode exclusive');
    expect([parts.queue.has(first.id), parts.queue.has(second.id)]).toEqual([false, true]);
    expect(parts.store.getJob(second.id)!.state).toBe('pending');
    expect(parts.queue.reasonOf(second.id)?.code).toBe('gpu-capacity');
    expect(parts.emitted.filter((e) => e.type === 'pass')).toMatchObject([{ pendingJobs: 1, placedJobs: 1 }]);
    expect(parts.stats.summary().passes).toBe(1);
  });

  it('runs when due: after a noted cause, or forced; skips (and counts) otherwise', async () => {
    const parts = await loopParts('1xA100-80GB');
    expect(parts.pass.runIfDue(false)).toBeNull(); // nothing queued: nothing to do, the start is consumed
    parts.submit({ gpu: WHOLE });
    parts.submit({ gpu: WHOLE });
    expect(parts.pass.runIfDue(false)).toBeNull(); // queued without a noted cause
    parts.pass.note('submitted');
    expect(parts.pass.runIfDue(false)?.placedJobIds).toEqual([1]);
    expect(parts.pass.runIfDue(false)).toBeNull();
    expect(parts.stats.summary()).toMatchObject({ passes: 1, passesSkipped: 2 });
    parts.pass.note('job-ended');
    expect(parts.pass.runIfDue(false)).toEqual({ placedJobIds: [], preemption: null, wakeAtMs: null });
    expect(parts.pass.runIfDue(true)?.placedJobIds).toEqual([]);
    expect(parts.stats.summary()).toMatchObject({ passes: 3, passesSkipped: 2 });
  });

  it('builds its cluster state with the configured policy (not a fixed one), holding the stored jobs', async () => {
    const parts = await loopParts('2xA100-80GB', { policy: 'gpu-packing' });
    const job = parts.place({ gpu: { ...WHOLE, gpuMilli: 500, mode: 'mps' } });
    const packing = vi.spyOn(findPolicy('gpu-packing')!, 'create');
    const bestFit = vi.spyOn(findPolicy('best-fit')!, 'create');
    const fallback = vi.spyOn(findPolicy('default')!, 'create');
    const state = parts.pass.clusterState();
    expect(packing).toHaveBeenCalledTimes(1);
    expect(bestFit).not.toHaveBeenCalled();
    expect(fallback).not.toHaveBeenCalled();
    expect(state.usage('test-node').map((u) => [u.device.index, u.mode, u.allocatedGpuMilli, u.jobIds])).toEqual([
      [0, 'mps', 500, [job.id]],
      [1, null, 0, []],
    ]);
  });

  it('refuses an unknown policy, naming the allowed ones', async () => {
    const parts = await loopParts('1xA100-80GB');
    expect(() => new SchedulingPass({ ...parts, settings: { ...parts.settings, policy: 'fastest' } })).toThrow(
      /^unknown policy 'fastest'; allowed: random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd, default$/,
    );
  });
});

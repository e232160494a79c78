/** The queue mirror of the waiting jobs: order, stored states, sizes and the reasons of the last pass. */
import { describe, expect, it } from 'vitest';
import { WAIT_CODES, waitReason, SchedulingSession, SeededRng } from '../../core/index.js';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { sampleJob } from '../../adapters/store/store-fixtures.js';
import { JobQueue } from './job-queue.js';

describe('JobQueue', () => {
  it('keeps queued jobs in queue order (priority, then submit time), with the state each is stored in', () => {
    const store = createMemoryStore();
    store.createTenant('acme', 0);
    const low = store.insertJob(sampleJob('acme', { priority: 100 }), 1_000);
    const high = store.insertJob(sampleJob('acme', { priority: 900 }), 2_000);
    const lowLater = store.insertJob(sampleJob('acme', { priority: 100 }), 3_000);
    const queue = new JobQueue(new SchedulingSession({ nodes: [], active: [] }, new SeededRng(1)));
    for (const job of [lowLater, low, high]) queue.add(job);
    expect(queue.size).toBe(3);
    const order = queue.index.inOrder({ nowMs: 3_000, dominantShareByTenant: new Map() });
    const ids: number[] = [];
    for (let next = order.next(); next !== null; next = order.next()) ids.push(next.job.id);
    expect(ids).toEqual([high.id, low.id, lowLater.id]);
    expect(queue.stateOf(low.id)).toBe('pending');
    queue.add({ ...low, state: 'preempted' });
    expect(queue.stateOf(low.id)).toBe('preempted');
    expect(queue.size).toBe(3);
    queue.sizes.set(low.id, 0.5);
    queue.remove(low.id);
    expect([queue.has(low.id), queue.get(low.id), queue.sizes.has(low.id), queue.size]).toEqual([
      false,
      undefined,
      false,
      2,
    ]);
  });

  it('gives a job the reason of the last pass (null before one considered it); unvisited jobs theirs on read', () => {
    const store = createMemoryStore();
    store.createTenant('acme', 0);
    const visited = store.insertJob(sampleJob('acme'), 1_000);
    const skipped = store.insertJob(sampleJob('acme'), 2_000);
    const queue = new JobQueue(new SchedulingSession({ nodes: [], active: [] }, new SeededRng(1)));
    queue.add(visited);
    queue.add(skipped);
    expect(queue.reasonOf(visited.id)).toBeNull();
    const capacity = waitReason(WAIT_CODES.hostCpu, { neededCpuMilli: 500, freeCpuMilli: 0 });
    const unvisited = {
      blockedJobId: visited.id,
      reservedStartMs: null,
      order: { nowMs: 2_000, aging: null, dominantShares: [] },
      quotas: [],
      usage: [],
      gpuKinds: [],
    };
    queue.beginPass();
    queue.setPassReasons({ waiting: [{ jobId: visited.id, reason: capacity }], unvisited }, null);
    expect(queue.reasonOf(visited.id)).toEqual(capacity);
    expect(queue.reasonOf(skipped.id)).toEqual(
      waitReason(WAIT_CODES.backfill, {
        blockedJobId: visited.id,
        timeLimitSeconds: skipped.timeLimitSeconds ?? null,
        reservedStartMs: null,
      }),
    );
    // A job queued after the pass has no reason until the next one.
    const late = store.insertJob(sampleJob('acme'), 3_000);
    queue.add(late);
    expect(queue.reasonOf(late.id)).toBeNull();
    const preempting = waitReason(WAIT_CODES.preempting, { victimIds: [9] });
    queue.setReason(late.id, preempting);
    expect(queue.reasonOf(late.id)).toEqual(preempting);
    queue.add(visited); // re-queued: the old reason is gone
    expect(queue.reasonOf(visited.id)).toBeNull();
  });
});

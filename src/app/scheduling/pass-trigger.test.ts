/**
 * When passes run: requests in one turn make one pass in a later turn; none while draining, with
 * the disk full or after stop; a pass's placements go to the launches and its victims get stopped.
 */
import { describe, expect, it } from 'vitest';
import { loopParts } from '../testing/loop-parts.js';
import { Drain } from './drain.js';
import { LaunchCoordinator } from './launch-coordinator.js';
import { PassTrigger } from './pass-trigger.js';

const WHOLE = { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' } as const;

async function setup() {
  const parts = await loopParts('1xA100-80GB');
  const drain = new Drain();
  const launches = new LaunchCoordinator(parts);
  return { parts, drain, launches, trigger: new PassTrigger({ ...parts, drain, launches }) };
}

describe('PassTrigger', () => {
  it('makes one pass of the requests of one turn, in a later turn, and launches what it placed', async () => {
    const { parts, trigger } = await setup();
    const job = parts.submit({ gpu: WHOLE });
    parts.note('submitted');
    trigger.request();
    trigger.request();
    expect(parts.stats.summary().passes).toBe(0);
    expect(parts.clock.runPending()).toBe(2); // the pass, then the launch it queued
    expect(parts.stats.summary()).toMatchObject({ passes: 1, passesSkipped: 0 });
    await parts.clock.settle();
    expect(parts.store.getJob(job.id)!.state).toBe('running');
  });

  it('runs no pass while draining or with the disk full, nor after stop', async () => {
    const { parts, trigger, drain } = await setup();
    const job = parts.submit({ gpu: WHOLE });
    parts.note('submitted');
    parts.testDisk.fill();
    trigger.run(true);
    parts.testDisk.free();
    drain.begin(() => undefined);
    trigger.run(true);
    expect([parts.stats.summary().passes, parts.stats.summary().passesSkipped]).toEqual([0, 0]);
    expect(parts.store.getJob(job.id)!.state).toBe('pending');
    const fresh = await setup();
    fresh.parts.submit({ gpu: WHOLE });
    fresh.parts.note('submitted');
    fresh.trigger.request();
    fresh.trigger.stop();
    fresh.trigger.request();
    await fresh.parts.clock.settle();
    expect(fresh.parts.stats.summary().passes).toBe(0);
  });

  it('stops the victims of the preemption a pass started', async () => {
    const { parts, trigger } = await setup();
    const low = parts.submit({ gpu: WHOLE, priority: 100, preemptible: true });
    parts.note('submitted');
    trigger.run(false);
    await parts.clock.settle();
    expect(parts.store.getJob(low.id)!.state).toBe('running');
    const high = parts.submit({ gpu: WHOLE, priority: 900 });
    parts.note('submitted');
    trigger.run(false);
    await parts.clock.settle();
    expect(parts.intents.get(low.id)).toMatchObject({ kind: 'preempted' });
    expect(parts.launcher.attempt(low.id).signals).toEqual(['SIGUSR1']);
    expect(parts.queue.reasonOf(high.id)?.code).toBe('preempting');
  });
});

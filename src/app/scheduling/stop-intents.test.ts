/** Why gpushare stops jobs, and the preemptions in flight. */
import { describe, expect, it } from 'vitest';
import { StopIntents } from './stop-intents.js';

describe('StopIntents', () => {
  it('keeps the first intent, except that a cancel replaces a preemption in progress', () => {
    const intents = new StopIntents();
    expect(intents.set(1, { kind: 'time-limit' })).toBe(true);
    expect(intents.set(1, { kind: 'cancelled', reason: 'cancelled by alice' })).toBe(false);
    expect(intents.get(1)).toEqual({ kind: 'time-limit' });
    expect(intents.set(2, { kind: 'preempted', reason: 'preempted by job 7' })).toBe(true);
    expect(intents.set(2, { kind: 'time-limit' })).toBe(false);
    expect(intents.set(2, { kind: 'cancelled', reason: 'cancelled by bob' })).toBe(true);
    expect(intents.get(2)).toEqual({ kind: 'cancelled', reason: 'cancelled by bob' });
    expect(intents.set(2, { kind: 'cancelled', reason: 'again' })).toBe(false);
    intents.delete(1);
    expect([intents.has(1), intents.get(1), intents.has(2)]).toEqual([false, undefined, true]);
    intents.restore(1, { kind: 'preempted', reason: 'before the restart' });
    expect(intents.get(1)).toEqual({ kind: 'preempted', reason: 'before the restart' });
  });

  it('reports a preemption in flight until its last victim ends, then forgets the preemptor', () => {
    const intents = new StopIntents();
    expect(intents.preempting()).toBe(false);
    intents.addPreemptor(10, [1, 2]);
    intents.set(1, { kind: 'preempted', reason: 'preempted by job 10' });
    intents.set(2, { kind: 'preempted', reason: 'preempted by job 10' });
    expect(intents.preempting()).toBe(true);
    const reasons = intents.preemptorReasons(() => true);
    expect([...reasons.keys()]).toEqual([10]);
    expect(reasons.get(10)).toMatchObject({
      code: 'preempting',
      message: 'preempting job(s) 1, 2: waiting for them to checkpoint and exit',
      details: { victimIds: [1, 2] },
    });
    intents.delete(1);
    expect(intents.preemptorReasons(() => true).get(10)?.message).toBe(
      'preempting job(s) 2: waiting for them to checkpoint and exit',
    );
    intents.delete(2);
    expect(intents.preempting()).toBe(false);
    expect(intents.preemptorReasons(() => true).size).toBe(0);
    // Forgotten: it does not come back when a job of the same id is stopped later.
    intents.set(2, { kind: 'preempted', reason: 'another preemption' });
    expect(intents.preemptorReasons(() => true).size).toBe(0);
  });

  it('forgets a preemptor that is no longer queued (placed or cancelled)', () => {
    const intents = new StopIntents();
    intents.addPreemptor(10, [1]);
    intents.set(1, { kind: 'preempted', reason: 'preempted by job 10' });
    expect(intents.preemptorReasons(() => false).size).toBe(0);
    expect(intents.preemptorReasons(() => true).size).toBe(0);
  });
});

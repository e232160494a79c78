/** Why gpushare stops jobs, and the preemptions in flight. */
import { describe, expect, it } from 'vitest';
import { JOB_EVENT_CODES, jobEventReason, waitMessage } from '../../core/index.js';
import { StopIntents } from './stop-intents.js';

const by = (tenant: string) => jobEventReason(JOB_EVENT_CODES.cancelled, { by: 'tenant', tenant, note: null });
const preemptedBy = (preemptorJobId: number) =>
  jobEventReason(JOB_EVENT_CODES.preempted, { preemptorJobId, preemptorPriority: 900, preemptorTenant: 'a' });

describe('StopIntents', () => {
  it('keeps the first intent, except that a cancel replaces a preemption in progress', () => {
    const intents = new StopIntents();
    expect(intents.set(1, { kind: 'time-limit' })).toBe(true);
    expect(intents.set(1, { kind: 'cancelled', reason: by('alice') })).toBe(false);
    expect(intents.get(1)).toEqual({ kind: 'time-limit' });
    expect(intents.set(2, { kind: 'preempted', reason: preemptedBy(7) })).toBe(true);
    expect(intents.set(2, { kind: 'time-limit' })).toBe(false);
    expect(intents.set(2, { kind: 'cancelled', reason: by('bob') })).toBe(true);
    expect(intents.get(2)).toEqual({ kind: 'cancelled', reason: by('bob') });
    expect(intents.set(2, { kind: 'cancelled', reason: by('carol') })).toBe(false);
    intents.delete(1);
    expect([intents.has(1), intents.get(1), intents.has(2)]).toEqual([false, undefined, true]);
    intents.restore(1, { kind: 'preempted', reason: preemptedBy(8) });
    expect(intents.get(1)).toEqual({ kind: 'preempted', reason: preemptedBy(8) });
  });

  it('reports a preemption in flight until its last victim ends, then forgets the preemptor', () => {
    const intents = new StopIntents();
    expect(intents.preempting()).toBe(false);
    intents.addPreemptor(10, [1, 2]);
    intents.set(1, { kind: 'preempted', reason: preemptedBy(10) });
    intents.set(2, { kind: 'preempted', reason: preemptedBy(10) });
    expect(intents.preempting()).toBe(true);
    const reasons = intents.preemptorReasons(() => true);
    expect([...reasons.keys()]).toEqual([10]);
    expect(reasons.get(10)).toEqual({ code: 'preempting', lasting: false, details: { victimIds: [1, 2] } });
    expect(waitMessage(reasons.get(10)!)).toBe('preempting job(s) 1, 2: waiting for them to checkpoint and exit');
    intents.delete(1);
    expect(waitMessage(intents.preemptorReasons(() => true).get(10)!)).toBe(
      'preempting job(s) 2: waiting for them to checkpoint and exit',
    );
    intents.delete(2);
    expect(intents.preempting()).toBe(false);
    expect(intents.preemptorReasons(() => true).size).toBe(0);
    // Forgotten: it does not come back when a job of the same id is stopped later.
    intents.set(2, { kind: 'preempted', reason: preemptedBy(11) });
    expect(intents.preemptorReasons(() => true).size).toBe(0);
  });

  it('forgets a preemptor that is no longer queued (placed or cancelled)', () => {
    const intents = new StopIntents();
    intents.addPreemptor(10, [1]);
    intents.set(1, { kind: 'preempted', reason: preemptedBy(10) });
    expect(intents.preemptorReasons(() => false).size).toBe(0);
    expect(intents.preemptorReasons(() => true).size).toBe(0);
  });
});

/** Draining: the waiter runs once, on the first check with no job running. */
import { describe, expect, it } from 'vitest';
import { Drain } from './drain.js';

describe('Drain', () => {
  it('runs the waiter once, when draining and no job runs', () => {
    const drain = new Drain();
    let calls = 0;
    drain.check(0);
    expect(drain.draining).toBe(false);
    drain.begin(() => calls++);
    expect(drain.draining).toBe(true);
    drain.check(2);
    expect(calls).toBe(0);
    drain.check(0);
    drain.check(0);
    expect([calls, drain.draining]).toEqual([1, true]);
  });

  it('replaces an earlier waiter that has not run', () => {
    const drain = new Drain();
    const ran: string[] = [];
    drain.begin(() => ran.push('first'));
    drain.begin(() => ran.push('second'));
    drain.check(0);
    expect(ran).toEqual(['second']);
  });
});

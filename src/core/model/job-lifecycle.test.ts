import { describe, expect, it } from 'vitest';
import { canTransition, isTerminal, JOB_STATES, TERMINAL_STATES, type JobState } from './job-lifecycle.js';
import { priorityClassOf } from './priority.js';

describe('priorityClassOf', () => {
  it.each([
    [0, 'low'],
    [99, 'low'],
    [100, 'low'],
    [499, 'low'],
    [500, 'normal'],
    [899, 'normal'],
    [900, 'high'],
    [999, 'high'],
    [1000, 'critical'],
    [5000, 'critical'],
    [-1, 'low'],
  ] as const)('%i → %s', (priority, name) => {
    expect(priorityClassOf(priority)).toBe(name);
  });
});

describe('job states', () => {
  it('terminal states are exactly succeeded, failed and cancelled, and lead nowhere', () => {
    expect(JOB_STATES.filter(isTerminal)).toEqual([...TERMINAL_STATES]);
    for (const from of TERMINAL_STATES) for (const to of JOB_STATES) expect(canTransition(from, to)).toBe(false);
  });

  it('allows exactly the documented transitions', () => {
    const allowed: [JobState, JobState][] = [
      ['pending', 'scheduled'],
      ['pending', 'cancelled'],
      ['pending', 'failed'],
      ['scheduled', 'running'],
      ['scheduled', 'pending'],
      ['scheduled', 'preempted'],
      ['scheduled', 'failed'],
      ['scheduled', 'cancelled'],
      ['running', 'succeeded'],
      ['running', 'failed'],
      ['running', 'cancelled'],
      ['running', 'pending'],
      ['running', 'preempted'],
      ['preempted', 'scheduled'],
      ['preempted', 'cancelled'],
      ['preempted', 'failed'],
    ];
    const key = ([a, b]: [JobState, JobState]) => `${a}→${b}`;
    const expected = new Set(allowed.map(key));
    for (const from of JOB_STATES) {
      for (const to of JOB_STATES) expect(canTransition(from, to), `${from}→${to}`).toBe(expected.has(key([from, to])));
    }
  });
});

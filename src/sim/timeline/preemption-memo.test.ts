import { describe, expect, it } from 'vitest';
import { PreemptionMemo } from './preemption-memo.js';

describe('PreemptionMemo', () => {
  it('rules out nothing for a (priority, shape) that never failed', () => {
    const memo = new PreemptionMemo(2, false);
    memo.failed(1000, 3, 50);
    expect(memo.noPlanOn(1000, 4, 0, 50)).toBe(false);
    expect(memo.noPlanOn(500, 3, 0, 50)).toBe(false);
    expect(memo.noPlanOn(1000, 3, 0, 50)).toBe(true);
  });

  it('rules a node out until a job leaves it; the other nodes stay ruled out', () => {
    const memo = new PreemptionMemo(2, false);
    memo.released(0); // before the failure: does not count
    memo.failed(1000, 0, 50);
    expect([memo.noPlanOn(1000, 0, 0, 60), memo.noPlanOn(1000, 0, 1, 60)]).toEqual([true, true]);
    memo.released(1);
    expect([memo.noPlanOn(1000, 0, 0, 60), memo.noPlanOn(1000, 0, 1, 60)]).toEqual([true, false]);
    memo.failed(1000, 0, 60);
    expect(memo.noPlanOn(1000, 0, 1, 60)).toBe(true);
  });

  it('keeps a node ruled out when jobs start there after the failure, at the same instant', () => {
    const memo = new PreemptionMemo(1, false);
    memo.started(0, 40);
    memo.failed(1000, 0, 50);
    memo.started(0, 50);
    expect(memo.noPlanOn(1000, 0, 0, 50)).toBe(true);
  });

  it('frees a node once time passes if a job started there at the instant of the failure', () => {
    const memo = new PreemptionMemo(2, false);
    memo.started(0, 50);
    memo.started(1, 40);
    memo.failed(1000, 0, 50);
    expect([memo.noPlanOn(1000, 0, 0, 50), memo.noPlanOn(1000, 0, 1, 50)]).toEqual([true, true]);
    expect([memo.noPlanOn(1000, 0, 0, 51), memo.noPlanOn(1000, 0, 1, 51)]).toEqual([false, true]);
  });

  it('with a minimum run time, rules out nothing once time passes', () => {
    const memo = new PreemptionMemo(1, true);
    memo.failed(1000, 0, 50);
    expect(memo.noPlanOn(1000, 0, 0, 50)).toBe(true);
    expect(memo.noPlanOn(1000, 0, 0, 50.25)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { Judgement } from './judge-placement.js';
import { checkGoals } from './pack-goals.js';

const judged = (gpus: number, overloadedPct = 0, memoryOverrunGpuMinutes = 0): Judgement => ({
  gpus,
  pods: 10,
  gpuMinutes: 100,
  occupiedGpuMinutes: 100,
  meanBusyPct: 0,
  overloadedGpuMinutes: 0,
  overloadedPct,
  gpusBreakingRule: 0,
  gpusEverOverloaded: 0,
  memoryOverrunGpuMinutes,
  gpusWithMemoryOverrun: 0,
  peakGpuMemoryMiB: 0,
});

describe('checkGoals', () => {
  it('meets each goal at its bound and misses it past the bound', () => {
    const met = checkGoals(judged(55, 0.99), judged(110), { lowerBound: 50, upperBound: 50 }, 1);
    expect(met.map((g) => [g.goal, g.verdict, g.bound])).toEqual([
      ['fewer-gpus', 'met', 0.5],
      ['near-floor', 'met', 0.1],
      ['rule-breaks', 'met', 1],
      ['no-memory-overrun', 'met', 0],
    ]);
    expect(met.map((g) => g.value)).toEqual([0.5, 55 / 50 - 1, 0.99, 0]);
    const missed = checkGoals(judged(56, 1, 3), judged(110), { lowerBound: 50, upperBound: 50 }, 1);
    expect(missed.map((g) => g.verdict)).toEqual(['missed', 'missed', 'missed', 'missed']);
  });

  it('leaves the floor goal open when the answer lies inside the floor’s bracket', () => {
    const [, open] = checkGoals(judged(30), judged(100), { lowerBound: 26, upperBound: 28 }, 1);
    // 30 > 1.1 × 26 = 28.6 but ≤ 1.1 × 28 = 30.8.
    expect(open).toMatchObject({ goal: 'near-floor', verdict: 'open' });
    expect(open!.value).toBeCloseTo(30 / 28 - 1, 12);
  });
});

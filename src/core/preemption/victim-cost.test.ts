import { describe, expect, it } from 'vitest';
import { compareCandidates, compareVictimCost, victimCost } from './victim-cost.js';
import { candidate } from './testing/fixtures.js';

describe('victim cost order', () => {
  const a = candidate(1, { lostWorkGpuSeconds: 10, priority: 100 });
  const b = candidate(2, { lostWorkGpuSeconds: 10, priority: 300 });
  const c = candidate(3, { lostWorkGpuSeconds: 5, priority: 500 });
  const d = candidate(4, { lostWorkGpuSeconds: 100, priority: 100 });

  it('victimCost sums lost work and lists priorities (highest first) and ids (ascending)', () => {
    expect(victimCost([c, a, b])).toEqual({
      victimCount: 3,
      lostWorkGpuSeconds: 25,
      prioritiesDesc: [500, 300, 100],
      jobIdsAsc: [1, 2, 3],
    });
    expect(victimCost([])).toEqual({ victimCount: 0, lostWorkGpuSeconds: 0, prioritiesDesc: [], jobIdsAsc: [] });
  });

  it.each([
    ['fewer victims first, whatever the lost work', [d], [a, c], -1],
    ['then less lost work', [c], [a], -1],
    ['then the lower highest priority', [a], [b], -1],
    ['then the lower next priority', [a, d], [b, candidate(5, { lostWorkGpuSeconds: 100, priority: 0 })], -1],
    ['then lower ids', [a], [candidate(0, { lostWorkGpuSeconds: 10, priority: 100 })], 1],
    ['equal sets are equal', [a, b], [b, a], 0],
  ] as const)('%s', (_name, x, y, sign) => {
    expect(Math.sign(compareVictimCost(victimCost([...x]), victimCost([...y])))).toBe(sign);
    expect(Math.sign(compareVictimCost(victimCost([...y]), victimCost([...x])))).toBe(-sign || 0);
  });

  it('compareCandidates: less lost work, then lower priority, then lower id', () => {
    expect(
      [d, b, c, a, candidate(0, { lostWorkGpuSeconds: 10, priority: 100 })].sort(compareCandidates).map((x) => x.jobId),
    ).toEqual([3, 0, 1, 2, 4]);
  });
});

import { describe, expect, it } from 'vitest';
import { apportion } from './apportion.js';

describe('apportion (per-job milli-GPU on MIG GPUs)', () => {
  it('splits the rounded total of a MIG GPU so the jobs sum to it: 571 over 4 × 1 slice → 143, 143, 143, 142', () => {
    expect(apportion(571, [1, 1, 1, 1])).toEqual([143, 143, 143, 142]);
    expect(apportion(429, [3])).toEqual([429]);
    expect(apportion(714, [1, 3, 1])).toEqual([143, 428, 143]);
    expect(apportion(5, [0, 0])).toEqual([5, 0]);
    expect(apportion(0, [])).toEqual([]);
  });
});

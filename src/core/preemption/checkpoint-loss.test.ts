import { describe, expect, it } from 'vitest';
import { secondsSinceCheckpoint } from './checkpoint-loss.js';

describe('secondsSinceCheckpoint', () => {
  it.each<[number, number | null, number]>([
    [2000, 1800, 200],
    [1000, 1800, 1000],
    [3600, 1800, 0],
    [3600.25, 1800, 0.25],
    [1000, 300, 100],
    [1000, null, 1000],
    [0, 1800, 0],
    [-5, 1800, 0],
    [-5, null, 0],
  ])('%d s run, a checkpoint every %s s → %d s lost', (ran, interval, lost) => {
    expect(secondsSinceCheckpoint(ran, interval)).toBe(lost);
  });

  it.each<[number, number | null, RegExp]>([
    [Number.NaN, 1800, /ranSeconds/],
    [Number.POSITIVE_INFINITY, null, /ranSeconds/],
    [100, 0, /checkpointIntervalSeconds/],
    [100, -1, /checkpointIntervalSeconds/],
    [100, Number.NaN, /checkpointIntervalSeconds/],
    [100, Number.POSITIVE_INFINITY, /checkpointIntervalSeconds/],
  ])('rejects %d s with interval %s', (ran, interval, field) => {
    expect(() => secondsSinceCheckpoint(ran, interval)).toThrow(RangeError);
    expect(() => secondsSinceCheckpoint(ran, interval)).toThrow(field);
  });
});

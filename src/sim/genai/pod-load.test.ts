import { describe, expect, it } from 'vitest';
import { fillForward, podLoadOf } from './pod-load.js';
import { podSeries } from './testing/genai-fixtures.js';

const NaN_ = Number.NaN;

describe('pod load', () => {
  it('fills a gap with the last sample for at most the lookback, and nothing before the first sample', () => {
    const values = Float64Array.from([NaN_, 4, NaN_, NaN_, NaN_, 7, NaN_]);
    expect([...fillForward(values, 2)]).toEqual([NaN_, 4, 4, 4, NaN_, 7, 7]);
    expect([...fillForward(values, 0)]).toEqual([...values]);
  });

  it('is present where either series is current; a value that is not current counts 0', () => {
    const load = podLoadOf(
      podSeries('p', { duty: [null, 50, null, null, null], memoryMiB: [10, null, null, null, 20] }),
      1,
    );
    expect([...load.dutyPct]).toEqual([0, 50, 50, 0, 0]);
    expect([...load.memoryMiB]).toEqual([10, 10, 0, 0, 20]);
    expect([...load.present]).toEqual([1, 1, 1, 0, 1]);
  });
});

import { describe, expect, it } from 'vitest';
import { GpuTimeline, keepsRule } from './gpu-timeline.js';
import { podLoadOf } from './pod-load.js';
import { podSeries } from './testing/genai-fixtures.js';

const load = (duty: (number | null)[], memoryMiB: (number | null)[]) =>
  podLoadOf(podSeries('p', { duty, memoryMiB }), 0);

describe('GpuTimeline', () => {
  it('sums the loads over its window and counts the minutes over 100% among the occupied ones', () => {
    const timeline = new GpuTimeline({ start: 1, end: 5 });
    timeline.add(load([99, 60, 50, null, null], [1, 10, 10, null, null]));
    expect([...timeline.dutySumPct]).toEqual([60, 50, 0, 0]);
    expect(timeline.overload()).toEqual({ occupied: 2, overloaded: 0 });
    const other = load([0, 41, 50, 30, 0], [1, 20, 20, 20, 20]);
    expect(timeline.overload(other)).toEqual({ occupied: 4, overloaded: 1 });
    expect(timeline.podCount).toBe(1);
    timeline.add(other);
    expect([...timeline.memorySumMiB]).toEqual([30, 30, 20, 20]);
    expect([...timeline.present]).toEqual([2, 2, 1, 1]);
    expect(timeline.podCount).toBe(2);
  });

  it('keeps the rule up to and including the bound', () => {
    expect(keepsRule({ occupied: 100, overloaded: 1 }, 1)).toBe(true);
    expect(keepsRule({ occupied: 100, overloaded: 2 }, 1)).toBe(false);
    expect(keepsRule({ occupied: 0, overloaded: 0 }, 0)).toBe(true);
    expect(keepsRule({ occupied: 5, overloaded: 1 }, 0)).toBe(false);
  });
});

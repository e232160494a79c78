import { describe, expect, it } from 'vitest';
import { lookbackSteps, splitByTime, stepSecondsOf, wholeWindow, windowLength } from './time-windows.js';

describe('time windows', () => {
  const grid = Array.from({ length: 1441 }, (_, i) => 1662858720 + 57 * i);

  it('splits the GenAI grid into halves of 720 and 721 instants, and the first half into 360 and 360', () => {
    const [first, second] = splitByTime(grid, wholeWindow(grid));
    expect(first).toEqual({ start: 0, end: 720 });
    expect(second).toEqual({ start: 720, end: 1441 });
    expect(splitByTime(grid, first)).toEqual([
      { start: 0, end: 360 },
      { start: 360, end: 720 },
    ]);
    expect(windowLength(second)).toBe(721);
  });

  it('splits by time, not by count, on an uneven grid', () => {
    expect(splitByTime([0, 10, 20, 30, 100], wholeWindow([0, 10, 20, 30, 100]))).toEqual([
      { start: 0, end: 4 },
      { start: 4, end: 5 },
    ]);
    expect(() => splitByTime([5], { start: 0, end: 1 })).toThrow('a window of 1 instants cannot be split');
  });

  it('takes the most common gap as the step and fills for ⌊300 s / step⌋ instants', () => {
    expect(stepSecondsOf(grid)).toBe(57);
    expect(lookbackSteps(grid)).toBe(5);
    expect(stepSecondsOf([0, 60, 120, 300, 360])).toBe(60);
    expect(lookbackSteps([0, 60, 120])).toBe(5);
    expect(stepSecondsOf([0, 30, 90])).toBe(30);
  });
});

import { describe, expect, it } from 'vitest';
import { CURVE_POINTS, type PublishedFigure, type RunResult } from './simulation-types.js';
import { meanCurve, summarizeRuns } from './summarize.js';

/** A curve with `value(x)` at every x (null where it returns null). */
function curve(value: (x: number) => number | null): (number | null)[] {
  return Array.from({ length: CURVE_POINTS }, (_, x) => value(x));
}

function run(
  policy: string,
  seed: number,
  at100: number,
  at130: number,
  failedPods: number,
  alloc: (number | null)[],
): RunResult {
  return {
    policy,
    seed,
    unallocatedPctAt100: at100,
    unallocatedPctAt130: at130,
    failedPods,
    arrivals: 100,
    wallSeconds: 0.5,
    allocationPct: alloc,
    fragmentRatioPct: curve(() => seed),
  };
}

const fgdFigure: PublishedFigure = {
  unallocatedPctAt100: { mean: 4.773, sd: 0.106 },
  unallocatedPctAt130: { mean: 4.609, sd: 0.082 },
};

describe('summarizeRuns', () => {
  const runs = [
    run(
      'fgd',
      1,
      4,
      1,
      10,
      curve((x) => (x === 0 ? null : 10)),
    ),
    run(
      'best-fit',
      1,
      7.5,
      6.25,
      40,
      curve(() => 50),
    ),
    run(
      'fgd',
      2,
      5,
      2,
      20,
      curve((x) => (x === 0 ? null : x === 1 ? null : 20)),
    ),
    run(
      'fgd',
      3,
      6,
      4,
      30,
      curve((x) => (x === 0 ? null : 30)),
    ),
  ];
  const summary = summarizeRuns(runs, new Map([['fgd', fgdFigure]]));

  it('keeps first-appearance policy order and seed order', () => {
    expect(summary.map((s) => s.policy)).toEqual(['fgd', 'best-fit']);
    expect(summary.map((s) => s.seeds)).toEqual([[1, 2, 3], [1]]);
  });

  it('computes exact mean and sample sd per metric', () => {
    const [fgd, bestFit] = summary;
    expect(fgd?.unallocatedPctAt100).toEqual({ mean: 5, sd: 1 });
    expect(fgd?.unallocatedPctAt130.mean).toBeCloseTo(7 / 3, 12);
    expect(fgd?.unallocatedPctAt130.sd).toBeCloseTo(Math.sqrt(7 / 3), 12);
    expect(fgd?.failedPods).toEqual({ mean: 20, sd: 10 });
    expect(bestFit?.unallocatedPctAt100).toEqual({ mean: 7.5, sd: 0 });
    expect(bestFit?.unallocatedPctAt130).toEqual({ mean: 6.25, sd: 0 });
    expect(bestFit?.failedPods).toEqual({ mean: 40, sd: 0 });
  });

  it('averages curves per x, ignoring nulls, null where all are null', () => {
    const fgd = summary[0]!;
    expect(fgd.meanAllocationPct).toHaveLength(CURVE_POINTS);
    expect(fgd.meanAllocationPct[0]).toBeNull();
    expect(fgd.meanAllocationPct[1]).toBe(20);
    expect(fgd.meanAllocationPct[2]).toBe(20);
    expect(fgd.meanAllocationPct[130]).toBe(20);
    expect(fgd.meanFragmentRatioPct[77]).toBe(2);
    expect(summary[1]!.meanAllocationPct[0]).toBe(50);
  });

  it('attaches the published figure by policy name, else null', () => {
    expect(summary[0]!.published).toBe(fgdFigure);
    expect(summary[1]!.published).toBeNull();
  });

  it('returns an empty summary for no runs', () => {
    expect(summarizeRuns([], new Map())).toEqual([]);
  });
});

describe('meanCurve', () => {
  it('averages each point over the curves that have a value there, null where none has', () => {
    const mean = meanCurve([
      [10, null, 30],
      [20, null, null],
    ]);
    expect(mean).toHaveLength(CURVE_POINTS);
    expect(mean.slice(0, 4)).toEqual([15, null, 30, null]);
  });

  it('is as long as the longest curve when one is longer than CURVE_POINTS', () => {
    const long = Array.from({ length: CURVE_POINTS + 2 }, (_, x) => x);
    const mean = meanCurve([long, [1]]);
    expect(mean).toHaveLength(CURVE_POINTS + 2);
    expect([mean[0], mean[1], mean[CURVE_POINTS + 1]]).toEqual([0.5, 1, CURVE_POINTS + 1]);
  });
});

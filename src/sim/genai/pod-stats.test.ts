import { describe, expect, it } from 'vitest';
import { selectPods, windowStats } from './pod-stats.js';
import { fixtureTrace, podSeries, repeat } from './testing/genai-fixtures.js';

describe('pod statistics', () => {
  it('gives the peak memory and the duty-cycle mean and nearest-rank percentiles of a window', () => {
    const series = podSeries('p', {
      duty: [0, 10, null, 30, 40, 100],
      memoryMiB: [5, 9, 7, null, 1, 50],
    });
    expect(windowStats(series, { start: 0, end: 5 })).toEqual({
      pod: 'p',
      memorySamples: 4,
      dutySamples: 4,
      peakMemoryMiB: 9,
      meanDutyPct: 20,
      p50DutyPct: 10,
      p90DutyPct: 40,
      p99DutyPct: 40,
    });
    expect(windowStats(series, { start: 2, end: 3 })).toMatchObject({ dutySamples: 0, meanDutyPct: 0, p99DutyPct: 0 });
  });

  it('selects pods with enough fit samples of each kind and a sample in the judged window, and counts the rest', () => {
    const trace = fixtureTrace({
      kept: { duty: repeat(1, 6), memoryMiB: repeat(1, 6) },
      ended: { duty: [1, 1, 1, null, null, null], memoryMiB: [1, 1, 1, null, null, null] },
      late: { duty: [null, null, null, 1, 1, 1], memoryMiB: [null, null, null, 1, 1, 1] },
      thinDuty: { duty: [1, null, null, 1, null, null], memoryMiB: [1, 1, 1, null, null, null] },
    });
    const selection = selectPods({ ...trace, memoryOnlyPods: ['m'] }, { start: 0, end: 3 }, { start: 3, end: 6 }, 2);
    expect(selection.pods.map((p) => p.pod)).toEqual(['kept']);
    expect(selection).toMatchObject({ inOneFileOnly: 1, absentWhenJudged: 1, tooFewFitSamples: 2 });
    const strict = selectPods(trace, { start: 0, end: 3 }, { start: 4, end: 6 }, 2);
    expect(strict).toMatchObject({ absentWhenJudged: 2, tooFewFitSamples: 1 });
  });
});

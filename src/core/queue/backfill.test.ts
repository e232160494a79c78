import { describe, expect, it } from 'vitest';
import { expectedEndMs, mayBackfill, NO_BLOCKED_JOB, reservedStartMs, type RunningJobEnd } from './backfill.js';

const NOW = 1_000_000;
const MIN = 60_000;

/** A GPU pool of `capacity` units; `held` maps running job id → units; the blocked job needs `need`. */
function pool(capacity: number, held: Record<number, number>, need: number): (released: readonly number[]) => boolean {
  const used = Object.values(held).reduce((a, b) => a + b, 0);
  return (released) => capacity - used + released.reduce((a, id) => a + (held[id] ?? 0), 0) >= need;
}

describe('reservedStartMs', () => {
  const running: RunningJobEnd[] = [
    { jobId: 1, expectedEndMs: NOW + 30 * MIN },
    { jobId: 2, expectedEndMs: NOW + 10 * MIN },
    { jobId: 3, expectedEndMs: null },
    { jobId: 4, expectedEndMs: NOW + 60 * MIN },
  ];
  const held = { 1: 2, 2: 1, 3: 4, 4: 1 };

  // 8 units, all held: job 2 frees 1 at +10 min, job 1 frees 2 at +30, job 4 frees 1 at +60, job 3 (4 units) never.
  it.each([
    ['fits now (one unit free): reserved now', 9, 1, NOW],
    ['one unit: when job 2 ends', 8, 1, NOW + 10 * MIN],
    ['three units: jobs 2 and 1 released', 8, 3, NOW + 30 * MIN],
    ['four units: every time-limited job released', 8, 4, NOW + 60 * MIN],
    ['five units: needs the job without a time limit, no reservation', 8, 5, null],
  ] as const)('%s', (_name, capacity, need, expected) => {
    expect(reservedStartMs('blocked', running, pool(capacity, held, need), NOW)).toBe(expected);
  });

  it('releases cumulatively in order of expected end, ties together, then by job id', () => {
    const calls: number[][] = [];
    const ends: RunningJobEnd[] = [
      { jobId: 9, expectedEndMs: NOW + 20 * MIN },
      { jobId: 7, expectedEndMs: NOW + 20 * MIN },
      { jobId: 5, expectedEndMs: NOW + 5 * MIN },
      { jobId: 6, expectedEndMs: null },
    ];
    const result = reservedStartMs(
      'x',
      ends,
      (released) => {
        calls.push([...released]);
        return false;
      },
      NOW,
    );
    expect(result).toBeNull();
    expect(calls).toEqual([[], [5], [5, 7, 9]]);
  });

  it('passes the blocked job to the callback and a fresh array each call', () => {
    const seen: unknown[] = [];
    const arrays: (readonly number[])[] = [];
    reservedStartMs(
      { id: 42 },
      [{ jobId: 1, expectedEndMs: NOW + MIN }],
      (released, blocked) => {
        seen.push(blocked);
        arrays.push(released);
        return released.length > 0;
      },
      NOW,
    );
    expect(seen).toEqual([{ id: 42 }, { id: 42 }]);
    expect(arrays[0]).not.toBe(arrays[1]);
  });

  it('a job already past its expected end gives a reservation of now, never in the past', () => {
    const overdue = [{ jobId: 1, expectedEndMs: NOW - 5 * MIN }];
    expect(reservedStartMs('x', overdue, pool(1, { 1: 1 }, 1), NOW)).toBe(NOW);
  });

  it('with nothing running and no fit, there is no reservation', () => {
    expect(reservedStartMs('x', [], () => false, NOW)).toBeNull();
  });

  it('rejects a non-finite time', () => {
    expect(() => reservedStartMs('x', [], () => true, Number.NaN)).toThrow(/nowMs/);
    expect(() =>
      reservedStartMs('x', [{ jobId: 3, expectedEndMs: Number.POSITIVE_INFINITY }], () => true, NOW),
    ).toThrow(/job 3/);
  });
});

describe('mayBackfill', () => {
  const at = (reservedStartMs: number | null) => ({ blocked: true as const, reservedStartMs });

  it.each([
    ['no blocked job: a job without a limit may start', null, NO_BLOCKED_JOB, true],
    ['no blocked job: a job with a limit may start', 3600, NO_BLOCKED_JOB, true],
    ['ends well before the reservation', 5 * 60, at(NOW + 10 * MIN), true],
    ['ends exactly at the reservation', 10 * 60, at(NOW + 10 * MIN), true],
    ['would end 1 s after the reservation', 10 * 60 + 1, at(NOW + 10 * MIN), false],
    ['no time limit never passes a blocked job', null, at(NOW + 10 * MIN), false],
    ['no time limit, no reservation either', null, at(null), false],
    ['time limit, no reservation possible (head waits on unlimited jobs)', 7 * 24 * 3600, at(null), true],
    ['reservation now (head fits): nothing jumps it', 1, at(NOW), false],
  ] as const)('%s', (_name, timeLimitSeconds, reservation, expected) => {
    expect(mayBackfill({ timeLimitSeconds }, reservation, NOW)).toBe(expected);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('rejects time limit %d', (timeLimitSeconds) => {
    expect(() => mayBackfill({ timeLimitSeconds }, NO_BLOCKED_JOB, NOW)).toThrow(/timeLimitSeconds/);
  });

  it('rejects a non-finite time', () => {
    expect(() => mayBackfill({ timeLimitSeconds: 60 }, NO_BLOCKED_JOB, Number.NaN)).toThrow(/nowMs/);
  });
});

describe('expectedEndMs', () => {
  it('is start + limit, or null without a limit', () => {
    expect(expectedEndMs(NOW, 90)).toBe(NOW + 90_000);
    expect(expectedEndMs(NOW, null)).toBeNull();
  });

  it('rejects bad values naming the field', () => {
    expect(() => expectedEndMs(Number.NaN, 60)).toThrow(/startedAtMs/);
    expect(() => expectedEndMs(NOW, 0)).toThrow(/timeLimitSeconds/);
  });
});

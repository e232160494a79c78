import { describe, expect, it } from 'vitest';
import { schedule, SchedulingSession, type ScheduleInput } from './schedule.js';
import { SeededRng } from './random/rng.js';
import { aClusterNode, aGpuDevice, aJob, anExclusiveJob } from './testing/builders.js';
import type { PreemptionSettings } from './pass/choose-preemption.js';

const HOUR_MS = 3_600_000;

/**
 * Two one-GPU nodes, each running one low job (ids 1 on n0, 2 on n1, started at the given times),
 * and a critical job 3 that needs a whole GPU, at `nowMs`, with `preemption` settings.
 */
function plan(
  startedAtMs: readonly [number, number],
  nowMs: number,
  preemption: PreemptionSettings,
  options: ScheduleInput['options'] = {},
) {
  const low = (id: number) => aJob(id, { priority: 100 });
  return schedule({
    snapshot: {
      nodes: [aClusterNode('n0', [aGpuDevice(0)]), aClusterNode('n1', [aGpuDevice(0)])],
      active: [
        anExclusiveJob(low(1), 'n0', [0], { startedAtMs: startedAtMs[0] }),
        anExclusiveJob(low(2), 'n1', [0], { startedAtMs: startedAtMs[1] }),
      ],
    },
    pending: [aJob(3, { priority: 1000 })],
    nowMs,
    rng: new SeededRng(1),
    rules: { tenants: [], preemption },
    options,
  });
}

const LIMITS = { minRunSeconds: 0, maxPreemptionsPerJob: 5 };

describe('preemption settings: checkpointIntervalSeconds', () => {
  // At 2 h: job 1 has run 2 h (7200 s), job 2 1 h 40 min (6000 s).
  const started: [number, number] = [0, 1200_000];

  it('without it, a victim loses its whole attempt: the younger job goes', () => {
    expect(plan(started, 2 * HOUR_MS, LIMITS).preemption).toEqual({
      preemptorId: 3,
      victimIds: [2],
      lostWorkGpuSeconds: 6000,
    });
  });

  it('with it, a victim loses what it ran since its last checkpoint: the one just past a checkpoint goes', () => {
    // Every 1800 s: job 1 checkpointed at 7200 s (0 s lost), job 2 at 5400 s (600 s lost).
    expect(plan(started, 2 * HOUR_MS, { ...LIMITS, checkpointIntervalSeconds: 1800 }).preemption).toEqual({
      preemptorId: 3,
      victimIds: [1],
      lostWorkGpuSeconds: 0,
    });
  });

  it('null is the default', () => {
    expect(plan(started, 2 * HOUR_MS, { ...LIMITS, checkpointIntervalSeconds: null }).preemption).toMatchObject({
      victimIds: [2],
    });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects an interval of %d', (interval) => {
    expect(() => plan(started, 2 * HOUR_MS, { ...LIMITS, checkpointIntervalSeconds: interval })).toThrow(RangeError);
  });
});

describe('preemption settings: victimsOnOneNode', () => {
  // Both victims lose as much (1 GPU for 1 h): only the tie-break differs.
  const started: [number, number] = [0, 0];

  it('without it, equal victims go by job id', () => {
    const nodeRank = Int32Array.from([1, 0]);
    expect(plan(started, HOUR_MS, LIMITS, { nodeRank }).preemption).toMatchObject({ victimIds: [1] });
  });

  it('with it, the plan of the node with the lowest tie-break rank wins among equal ones', () => {
    const settings = { ...LIMITS, victimsOnOneNode: true };
    expect(plan(started, HOUR_MS, settings, { nodeRank: Int32Array.from([1, 0]) }).preemption).toEqual({
      preemptorId: 3,
      victimIds: [2],
      lostWorkGpuSeconds: 3600,
    });
    expect(plan(started, HOUR_MS, settings).preemption).toMatchObject({ victimIds: [1] });
  });
});

describe('SchedulingSession.fitsWithout', () => {
  it('answers the what-if without changing the session', () => {
    const low = aJob(1, { priority: 100 });
    const session = new SchedulingSession(
      { nodes: [aClusterNode('n0', [aGpuDevice(0)])], active: [anExclusiveJob(low, 'n0', [0])] },
      new SeededRng(1),
    );
    const job = aJob(2);
    expect(session.fitsWithout(job, [])).toBe(false);
    expect(session.fitsWithout(job, [1])).toBe(true);
    expect(session.fitsWithout(job, [99])).toBe(false);
    expect(session.state.isHeld(1)).toBe(true);
    expect(session.schedule([job], { nowMs: 0 }).placements).toEqual([]);
  });
});

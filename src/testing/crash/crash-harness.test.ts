/**
 * The crash harness in `npm test` (docs/crash-testing.md): a fixed sample of the crash points of
 * every scenario (every 8th, from the first), and the planted bug it must find (every 2nd point of
 * the launch scenario). The full sweep is
 * in the slow suite (test/slow/crash-points.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { CRASH_SCENARIOS } from './crash-scenarios.js';
import { sweepScenario } from './crash-harness.js';
import { splitProcessWrites } from './split-writes.js';

/** Every how many points the sample crashes. */
const SAMPLE_EVERY = 8;

describe('crash points: a sample of every scenario', () => {
  it(`crashes at every ${SAMPLE_EVERY}th point of each scenario, recovers, and breaks no invariant`, async () => {
    const sweeps = [];
    for (const scenario of CRASH_SCENARIOS) sweeps.push(await sweepScenario(scenario, { every: SAMPLE_EVERY }));
    const points = sweeps.reduce((sum, s) => sum + s.points, 0);
    const runs = sweeps.reduce((sum, s) => sum + s.crashRuns, 0);
    console.log(`crash points: ${points} counted, ${runs} crash runs (every ${SAMPLE_EVERY}th), violations 0 expected`);
    expect(sweeps.map((s) => s.scenario)).toEqual(CRASH_SCENARIOS.map((s) => s.name));
    for (const sweep of sweeps) expect(sweep.crashRuns).toBe(Math.ceil(sweep.points / SAMPLE_EVERY));
    expect(sweeps.flatMap((s) => s.violations)).toEqual([]);
  });
});

describe('crash points: a planted bug', () => {
  it('finds a launch written in two transactions (state, then process handle): its process runs orphaned', async () => {
    const launch = CRASH_SCENARIOS.find((s) => s.name === 'launch')!;
    // Every other point: one side of each window between the two transactions.
    const sweep = await sweepScenario(launch, { wrapStore: splitProcessWrites, every: 2 });
    expect(sweep.crashRuns).toBe(Math.ceil(sweep.points / 2));
    // One violation per launch (3): the job failed as lost while its process runs on.
    expect(sweep.violations.map((v) => v.code)).toEqual(Array(3).fill('process-orphaned'));
    expect(sweep.violations[0]!.details).toMatchObject({ jobId: 1, attempt: 1, state: 'failed' });
  });
});

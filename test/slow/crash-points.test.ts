/**
 * The full crash-point sweep (docs/crash-testing.md): every counted point of every scenario, each
 * crashed at in turn, recovered and checked. Asserts that the crash runs equal the points counted,
 * that there are at least 500 of them, and that no invariant breaks; prints the counts.
 */
import { describe, expect, it } from 'vitest';
import { CRASH_SCENARIOS } from '../../src/testing/crash/crash-scenarios.js';
import { sweepScenario, type ScenarioSweep } from '../../src/testing/crash/crash-harness.js';

describe('crash points: the full sweep', () => {
  it('crashes at every point of every scenario, recovers, and breaks no invariant', async () => {
    const started = performance.now();
    const sweeps: ScenarioSweep[] = [];
    for (const scenario of CRASH_SCENARIOS) sweeps.push(await sweepScenario(scenario));
    const seconds = (performance.now() - started) / 1000;
    const points = sweeps.reduce((sum, s) => sum + s.points, 0);
    const runs = sweeps.reduce((sum, s) => sum + s.crashRuns, 0);
    const violations = sweeps.flatMap((s) => s.violations);
    for (const s of sweeps) console.log(`crash points: ${s.scenario}: ${s.points} points, ${s.crashRuns} crash runs`);
    console.log(
      `crash points: ${points} points counted, ${runs} crash runs, ${violations.length} invariant violations ` +
        `(${seconds.toFixed(1)} s)`,
    );
    expect(sweeps.map((s) => s.crashRuns)).toEqual(sweeps.map((s) => s.points));
    expect(runs).toBe(points);
    expect(points).toBeGreaterThanOrEqual(500);
    expect(violations).toEqual([]);
  });
});

/**
 * The crash-point harness (docs/crash-testing.md): runs a scenario once counting its crash points,
 * then once per point crashing there — the control plane dropped at that point, nothing closed
 * gracefully — starts a server again on the same data directory and the same processes (which
 * recovers as `gpushare serve` does), and checks the invariants (crash-invariants.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StateStore } from '../../app/ports/state-store.js';
import type { SqliteStateStore } from '../../adapters/store/sqlite-store.js';
import { crashPointName } from '../../app/ports/crash-points.js';
import { type CountedPoint, CrashController } from './crash-controller.js';
import {
  type Acknowledged,
  checkAudit,
  checkFinished,
  checkRecovered,
  noAcknowledgements,
  snapshotStore,
  type StoreSnapshot,
  type Violation,
} from './crash-invariants.js';
import { type Scenario, scenarioContext } from './crash-scenarios.js';
import { createCrashHost, type CrashWorld, startCrashWorld } from './crash-world.js';

/** The time every run starts at. */
const START_MS = Date.UTC(2026, 0, 1);
/** How long a crashed server stays down before it is started again, ms. */
const DOWN_MS = 5_000;

/** Options of a run. */
export interface CrashRunOptions {
  /** A test-only seam: the store the servers use (a planted bug). */
  readonly wrapStore?: (store: SqliteStateStore) => StateStore;
}

/** One run of a scenario. */
export interface CrashRun {
  /** The counted points the run reached (up to the crash). */
  readonly points: readonly CountedPoint[];
  /** The point it crashed at (`store.commit.after`); null for the counting run. */
  readonly crashedAt: string | null;
  readonly violations: readonly Violation[];
}

/**
 * Runs `scenario` once, crashing at counted point `crashAt` (0-based; null: no crash), recovers,
 * runs every job to its end and checks the invariants. The data directory is removed afterwards.
 * @throws Error when the scenario fails without a crash, or the crash did not happen at a point
 *   the counting run reached (the scenario is not deterministic)
 */
export async function runScenario(
  scenario: Scenario,
  crashAt: number | null,
  options: CrashRunOptions = {},
): Promise<CrashRun> {
  const root = mkdtempSync(join(tmpdir(), `gpushare-crash-${scenario.name}-`));
  const dataDir = join(root, 'data');
  const host = createCrashHost(dataDir, scenario.gpus, START_MS);
  const controller = new CrashController(crashAt);
  const acks: Acknowledged = noAcknowledgements();
  const violations: Violation[] = [];
  const started: CrashWorld[] = [];
  let restoring = false;
  const start = async (startMs: number, acceptAuditProblems: boolean): Promise<void> => {
    started.push(
      await startCrashWorld(host, startMs, {
        points: controller,
        holdLaunches: scenario.holdLaunches === true && started.length === 0,
        acceptAuditProblems,
        ...(options.wrapStore ? { wrapStore: options.wrapStore } : {}),
      }),
    );
  };
  const current = (): CrashWorld => started.at(-1)!;
  try {
    try {
      await start(START_MS, false);
      const ctx = scenarioContext(
        current,
        async ({ acceptAuditProblems }) => {
          restoring = acceptAuditProblems;
          await start(current().clock.nowMs() + DOWN_MS, acceptAuditProblems);
          restoring = false;
        },
        acks,
        violations,
      );
      await scenario.run(ctx);
      // The epilogue is a scenario's too: the server runs every job to its end.
      await current().advance(1_000);
      await runToEnd(current());
    } catch (error) {
      if (controller.crash === null) throw error;
    }
    const crash = controller.crash;
    if (crashAt !== null && crash === null)
      throw new Error(`${scenario.name}: no crash at point ${crashAt}; the run reached ${controller.reached.length}`);
    if (crash !== null && controller.reached.length !== crashAt! + 1)
      throw new Error(
        `${scenario.name}: crashed at ${crashPointName(crash)} after ${controller.reached.length} points`,
      );
    let world: CrashWorld;
    let snapshot: StoreSnapshot;
    let attemptsAtCrash: number;
    if (crash === null) {
      world = current();
      snapshot = snapshotStore(dataDir);
      attemptsAtCrash = host.launcher.attempts.length;
    } else {
      snapshot = snapshotStore(dataDir);
      attemptsAtCrash = host.launcher.attempts.length;
      try {
        world = await startCrashWorld(host, host.clock.nowMs() + DOWN_MS, {
          points: null,
          acceptAuditProblems: restoring,
          ...(options.wrapStore ? { wrapStore: options.wrapStore } : {}),
        });
      } catch (error) {
        violations.push({ code: 'recovery-failed', details: { error: (error as Error).message } });
        return { points: controller.reached, crashedAt: crashPointName(crash), violations };
      }
      await world.settle();
      await world.advance(1_000);
    }
    violations.push(...checkRecovered(world, snapshot, acks, attemptsAtCrash));
    await runToEnd(world);
    violations.push(...checkFinished(world, acks));
    await world.stop();
    for (const old of started) if (old !== world && crash !== null) old.abandon();
    violations.push(...checkAudit(dataDir));
    return { points: controller.reached, crashedAt: crash === null ? null : crashPointName(crash), violations };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Ends every running attempt with exit 0 and lets the server go on, until no job is active (at most 30 rounds). */
async function runToEnd(world: CrashWorld): Promise<void> {
  const launcher = world.host.launcher;
  for (let round = 0; round < 30; round++) {
    const active = world.store.listJobs({ states: ['pending', 'scheduled', 'running', 'preempted'] });
    if (active.length === 0) return;
    for (const job of active) {
      if (job.state !== 'running' || job.process === null) continue;
      const attempt = launcher.attempts.find((a) => a.handle.supervisorPid === job.process!.supervisorPid);
      if (attempt !== undefined && attempt.alive && attempt.outcome === null) launcher.exit(job.id, { exitCode: 0 });
    }
    await world.advance(1_000);
  }
}

/** What a sweep of one scenario found. */
export interface ScenarioSweep {
  readonly scenario: string;
  /** Points the counting run reached. */
  readonly points: number;
  /** Crash runs made (every point, or the sample). */
  readonly crashRuns: number;
  /** How many points of each name (`store.commit.after`: 12). */
  readonly byName: Readonly<Record<string, number>>;
  /** Violations, each with the point it crashed at. */
  readonly violations: readonly (Violation & { readonly point: number; readonly crashedAt: string | null })[];
}

/**
 * Sweeps `scenario`: the counting run (its invariants checked too), then a crash run at every
 * `every`-th point (1: all), starting at point 0.
 */
export async function sweepScenario(
  scenario: Scenario,
  options: CrashRunOptions & { readonly every?: number } = {},
): Promise<ScenarioSweep> {
  const counting = await runScenario(scenario, null, options);
  const violations: (Violation & { point: number; crashedAt: string | null })[] = counting.violations.map((v) => ({
    ...v,
    point: -1,
    crashedAt: null,
  }));
  const every = Math.max(1, options.every ?? 1);
  let crashRuns = 0;
  for (let point = 0; point < counting.points.length; point += every) {
    const run = await runScenario(scenario, point, options);
    crashRuns++;
    violations.push(...run.violations.map((v) => ({ ...v, point, crashedAt: run.crashedAt })));
  }
  const byName: Record<string, number> = {};
  for (const p of counting.points) byName[p.name] = (byName[p.name] ?? 0) + 1;
  return { scenario: scenario.name, points: counting.points.length, crashRuns, byName, violations };
}

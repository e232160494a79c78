/**
 * One "server" of the crash harness (docs/crash-testing.md): the pieces `gpushare serve` starts
 * (src/main/serve.ts), in the same order and through the same code, over a real data directory —
 * the data directory's store (openDataDirStore: privacy, job-id mark, quarantine, handles), the
 * audit log with its start check and head journal (openServerAuditLog), the admin token file, the
 * control plane (whose `start` reconciles what the store says is active) and the API services —
 * but with a manual clock, simulated GPUs, a launcher without processes and MIG layouts changed
 * in-process by the stand-in nvidia-smi. What outlives a crash is the {@link CrashHost}: the data
 * directory and the "processes" (the fake launcher's attempts, the MIG state file).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { withLaunchCrashPoints, withMigCrashPoints } from '../../app/crash/crash-point-ports.js';
import type { Principal } from '../../app/auth/tokens.js';
import type { Clock, Timer } from '../../app/ports/clock.js';
import type { CrashPoints } from '../../app/ports/crash-points.js';
import type { StateStore } from '../../app/ports/state-store.js';
import { ControlPlane } from '../../app/scheduling/control-plane.js';
import { observeStore } from '../../app/scheduling/observed-store.js';
import type { ControlPlaneSettings } from '../../app/scheduling/plane-deps.js';
import { PlaneEvents } from '../../app/scheduling/plane-events.js';
import { AdminService } from '../../app/services/admin-service.js';
import { JobService } from '../../app/services/job-service.js';
import { TEST_SETTINGS } from '../../app/testing/plane-kit.js';
import { createNvidiaSmiMigManager } from '../../adapters/gpu/nvidia-smi-mig-manager.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../adapters/gpu/simulated-gpus.js';
import {
  createSimulatedNvidiaSmiState,
  runSimulatedNvidiaSmiOnFile,
  writeSimulatedNvidiaSmiState,
} from '../../adapters/gpu/simulated-nvidia-smi.js';
import { FakeProcessLauncher } from '../../adapters/memory/fake-process-launcher.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { createJobFiles } from '../../adapters/process/job-files.js';
import { removeBackupLeftovers, type SqliteStateStore } from '../../adapters/store/sqlite-store.js';
import { SeededRng } from '../../core/index.js';
import { readAdminTokenFile, writeAdminTokenFile } from '../../main/admin-token-file.js';
import { openDataDirStore } from '../../main/private-files.js';
import { openServerAuditLog, recordServerAdminToken, type ServerAuditLog } from '../../main/server-audit.js';

/** The harness's settings: the test plane's, with the preemption signal a checkpointing job saves on. */
export const CRASH_SETTINGS: ControlPlaneSettings = { ...TEST_SETTINGS, preemptionSignal: 'SIGUSR1' };

const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A clock that forwards to whichever manual clock the current server runs on (the fake launcher's clock). */
class ForwardingClock implements Clock {
  constructor(public target: ManualClock) {}
  nowMs(): number {
    return this.target.nowMs();
  }
  monotonicMs(): number {
    return this.target.monotonicMs();
  }
  every(intervalMs: number, task: () => void): Timer {
    return this.target.every(intervalMs, task);
  }
  after(delayMs: number, task: () => void): Timer {
    return this.target.after(delayMs, task);
  }
}

/** What outlives a crash: the data directory and the host's processes and MIG layouts. */
export interface CrashHost {
  readonly dataDir: string;
  readonly gpuSpec: string;
  /** The jobs' "processes": attempts keep running (or end) across server crashes. */
  readonly launcher: FakeProcessLauncher;
  /** The simulated GPUs' MIG layouts (the stand-in nvidia-smi's state file). */
  readonly migStateFile: string;
  /** The launcher's clock: the clock of the server started last. */
  readonly clock: ForwardingClock;
}

/**
 * A host over the empty data directory `dataDir` with simulated GPUs `gpuSpec` (`--simulate-gpus`
 * syntax). Its jobs save a checkpoint and exit 0 on the preemption signal (SIGUSR1) and end by any
 * other signal.
 */
export function createCrashHost(dataDir: string, gpuSpec: string, startMs = Date.UTC(2026, 0, 1)): CrashHost {
  mkdirSync(join(dataDir, 'jobs'), { recursive: true, mode: 0o700 });
  const migStateFile = join(dataDir, 'simulated-nvidia-smi.json');
  const items = parseSimulatedGpuSpec(gpuSpec);
  writeSimulatedNvidiaSmiState(
    migStateFile,
    createSimulatedNvidiaSmiState(items.map((i) => ({ model: i.model, mig: i.mig, count: i.count }))),
  );
  const clock = new ForwardingClock(new ManualClock(startMs));
  const launcher = new FakeProcessLauncher(clock);
  launcher.onSignal = (signal) => (signal === 'SIGUSR1' ? { exitCode: 0, signal: null } : { exitCode: null, signal });
  return { dataDir, gpuSpec, launcher, migStateFile, clock };
}

/** A started server of the harness. */
export interface CrashWorld {
  readonly host: CrashHost;
  readonly clock: ManualClock;
  /** The store as opened (for reads and backups). */
  readonly rawStore: SqliteStateStore;
  readonly store: StateStore;
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly admin: AdminService;
  readonly audit: ServerAuditLog;
  readonly adminPrincipal: Principal;
  /** Runs everything due now, letting launches finish, until nothing changes. */
  settle(): Promise<void>;
  /** Moves the clock on by `ms`, then settles. */
  advance(ms: number): Promise<void>;
  /** Stops it as SIGTERM would (timers, the journal's last lines, the store); idempotent. */
  stop(): Promise<void>;
  /** Lets go of a crashed server's files without writing anything (its crash points throw); idempotent. */
  abandon(): void;
}

/** Options of {@link startCrashWorld}. */
export interface CrashWorldOptions {
  /** The crash points of this server; null: none. */
  readonly points: CrashPoints | null;
  /** Launches wait (as for the server's URL) until `releaseLaunches`; placements are stored but not started. */
  readonly holdLaunches?: boolean;
  /** A test-only seam: the store the plane and services use, made from the opened one (a planted bug). */
  readonly wrapStore?: (store: SqliteStateStore) => StateStore;
  /** `--accept-audit-problems` (the start after a restore from backup). Default false. */
  readonly acceptAuditProblems?: boolean;
}

/**
 * Starts a server on `host` at time `startMs` as `gpushare serve` does (see the module comment).
 * @throws whatever a start throws: a crash point's CrashError, AuditStartRefusedError
 */
export async function startCrashWorld(
  host: CrashHost,
  startMs: number,
  options: CrashWorldOptions,
): Promise<CrashWorld> {
  const clock = new ManualClock(startMs);
  host.clock.target = clock;
  const points = options.points;
  const { dataDir } = host;
  removeBackupLeftovers(dataDir);
  const events = new PlaneEvents();
  const rawStore = openDataDirStore(dataDir, SILENT, clock.nowMs(), undefined, points ?? undefined);
  const audit = openServerAuditLog(dataDir, rawStore, events, clock, SILENT, {
    acceptProblems: options.acceptAuditProblems === true,
    anchorCommand: null,
    ...(points === null ? {} : { crashPoints: points }),
  });
  const store = observeStore(options.wrapStore ? options.wrapStore(rawStore) : rawStore, events);
  const initialGpus = await createSimulatedInventory(parseSimulatedGpuSpec(host.gpuSpec)).list();
  const launcher = points === null ? host.launcher : withLaunchCrashPoints(host.launcher, points, 'SIGUSR1');
  const smi = createNvidiaSmiMigManager({
    execFile: async (_file, args) => runSimulatedNvidiaSmiOnFile(args, host.migStateFile),
  });
  const plane = new ControlPlane({
    store,
    launcher,
    gpuSource: 'simulated',
    files: createJobFiles(dataDir),
    logger: SILENT,
    clock,
    rng: new SeededRng(7),
    settings: CRASH_SETTINGS,
    serverEnvironment: { PATH: '/usr/bin:/bin' },
    mps: null,
    mig: points === null ? smi : withMigCrashPoints(smi, points),
    events,
    initialGpus,
  });
  const admin = new AdminService(
    store,
    () => clock.nowMs(),
    () => plane.roster.devices(),
  );
  const adminTokenPath = join(dataDir, 'admin-token');
  const existing = readAdminTokenFile(adminTokenPath);
  const made = admin.ensureAdminToken(existing);
  recordServerAdminToken(audit.services, {
    id: made.id,
    created: made.created,
    revokedIds: made.revokedIds,
    fileState: existing === null ? 'missing' : made.created ? 'unknown' : 'valid',
  });
  if (made.created) writeAdminTokenFile(adminTokenPath, made.token);
  if (options.holdLaunches === true) plane.awaitServerUrl();
  await plane.start();
  const jobs = new JobService({
    plane,
    store,
    clock,
    files: createJobFiles(dataDir),
    launcher,
    settings: CRASH_SETTINGS,
    serverEnvironment: { PATH: '/usr/bin:/bin' },
  });
  const settle = (): Promise<void> => clock.settle();
  let closed = false;
  return {
    host,
    clock,
    rawStore,
    store,
    plane,
    jobs,
    admin,
    audit,
    adminPrincipal: { role: 'admin', tenant: null },
    settle,
    advance: async (ms) => {
      clock.advance(ms);
      await settle();
    },
    stop: async () => {
      if (closed) return;
      closed = true;
      await plane.stop();
      audit.close();
      rawStore.close();
    },
    abandon: () => {
      if (closed) return;
      closed = true;
      audit.close();
      rawStore.close();
    },
  };
}

/**
 * A control plane on in-memory adapters, for unit tests (not built into dist): the memory store,
 * a manual clock, in-memory job files, a launcher without processes and simulated GPUs. Tests
 * drive passes, launches and exits with fake time: `settle()` runs everything due now, `advance`
 * moves the clock; nothing sleeps.
 */
import type { MpsControl } from '../ports/mps-control.js';
import type { DiskSpace } from '../ports/disk-space.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { FakeProcessLauncher } from '../../adapters/memory/fake-process-launcher.js';
import { MemoryJobFiles } from '../../adapters/memory/memory-job-files.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../adapters/gpu/simulated-gpus.js';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { SeededRng } from '../../core/index.js';
import { SubmitJobSchema, type JobView, type SubmitJobInput } from '../../contract/api.js';
import type { Principal } from '../auth/tokens.js';
import { AdminService } from '../services/admin-service.js';
import { ControlPlane } from '../scheduling/control-plane.js';
import { JobService } from '../services/job-service.js';
import { observeStore } from '../scheduling/observed-store.js';
import type { ControlPlaneSettings } from '../scheduling/plane-deps.js';
import { PlaneEvents, type PlaneEvent } from '../scheduling/plane-events.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { StateStore } from '../ports/state-store.js';

/** Settings of a test plane: quick timers, no preemption guard. */
export const TEST_SETTINGS: ControlPlaneSettings = {
  nodeName: 'test-node',
  hostCpuMilli: 64_000,
  hostMemoryMiB: 256 * 1024,
  timesliceOvercommitRatio: 1,
  timeslicePeriodMs: 1000,
  monitorIntervalMs: 100,
  scheduleIntervalMs: 1000,
  stopGraceMs: 5000,
  logRetentionMs: 7 * 24 * 3_600_000,
  healthPollIntervalMs: 5000,
  preemptionSignal: 'SIGUSR1',
  preemptionGraceMs: 30_000,
  preemptionMinRunMs: 0,
  maxPreemptionsPerJob: 5,
  qosViolationSeconds: 60,
  qosProtection: 'isolate',
};

/** A test plane and its parts. */
export interface PlaneKit {
  readonly clock: ManualClock;
  readonly store: StateStore;
  readonly launcher: FakeProcessLauncher;
  readonly files: MemoryJobFiles;
  readonly plane: ControlPlane;
  readonly jobs: JobService;
  readonly admin: AdminService;
  /** Every event the plane's bus carried. */
  readonly events: PlaneEvent[];
  readonly gpus: readonly InventoryGpu[];
  readonly adminPrincipal: Principal;
  /** The admin's bearer token (for HTTP tests). */
  readonly adminToken: string;
  /** Submits a job as the admin. */
  submit(body: SubmitJobInput): JobView;
  /** Runs everything due now (passes, launches, the monitor), repeatedly, until nothing changes. */
  settle(): Promise<void>;
  /** Moves the clock forward by `ms`, then settles. */
  advance(ms: number): Promise<void>;
}

/**
 * Builds and starts a plane over simulated GPUs (`--simulate-gpus` syntax, e.g. `8xA10`).
 * @param settings overrides of TEST_SETTINGS
 * @param ports optional ports instead of none (an MPS control, the disk's state) or instead of the
 *   memory store (a SQLite store)
 */
export async function planeKit(
  gpuSpec: string,
  settings: Partial<ControlPlaneSettings> = {},
  ports: { mps?: MpsControl; disk?: DiskSpace; store?: StateStore } = {},
): Promise<PlaneKit> {
  const clock = new ManualClock();
  const bus = new PlaneEvents();
  const events: PlaneEvent[] = [];
  bus.on((e) => events.push(e));
  const store = observeStore(ports.store ?? createMemoryStore(), bus);
  const admin = new AdminService(store, () => clock.nowMs());
  const { token: adminToken } = admin.ensureAdminToken(null);
  const gpus = await createSimulatedInventory(parseSimulatedGpuSpec(gpuSpec)).list();
  const launcher = new FakeProcessLauncher(clock);
  const files = new MemoryJobFiles();
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const full = { ...TEST_SETTINGS, ...settings };
  const plane = new ControlPlane({
    store,
    launcher,
    gpuSource: 'simulated',
    files,
    logger,
    clock,
    rng: new SeededRng(7),
    settings: full,
    serverEnvironment: { PATH: '/usr/bin:/bin' },
    mps: ports.mps ?? null,
    mig: null,
    events: bus,
    initialGpus: gpus,
    ...(ports.disk ? { disk: ports.disk } : {}),
  });
  const jobs = new JobService({
    plane,
    store,
    clock,
    files,
    launcher,
    settings: full,
    serverEnvironment: { PATH: '/usr/bin:/bin' },
  });
  const adminPrincipal: Principal = { role: 'admin', tenant: null };
  await plane.start();
  // Launches are promises: the clock lets them finish between its rounds.
  const settle = (): Promise<void> => clock.settle();
  return {
    clock,
    store,
    launcher,
    files,
    plane,
    jobs,
    admin,
    events,
    gpus,
    adminPrincipal,
    adminToken,
    submit: (body) => jobs.submit(adminPrincipal, SubmitJobSchema.parse(body)),
    settle,
    advance: async (ms) => {
      clock.advance(ms);
      await settle();
    },
  };
}

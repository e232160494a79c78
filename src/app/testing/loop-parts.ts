/**
 * The scheduling loop's parts, built one by one on in-memory adapters, for the unit tests of each
 * part (not built into dist): the memory store, a manual clock, a launcher without processes,
 * in-memory job files, simulated GPUs, a disk state the test fills and frees, and recorders of
 * the pass causes noted and the log lines written. `plane-kit.ts` builds the whole plane instead.
 */
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { FakeProcessLauncher } from '../../adapters/memory/fake-process-launcher.js';
import { MemoryJobFiles } from '../../adapters/memory/memory-job-files.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../adapters/gpu/simulated-gpus.js';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { sampleJob } from '../../adapters/store/store-fixtures.js';
import { SeededRng, type Rng, SchedulingSession } from '../../core/index.js';
import { isDiskFullError } from '../errors.js';
import type { DiskSpace } from '../ports/disk-space.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { JobRecord, NewJob, StateStore } from '../ports/state-store.js';
import { QosTracker } from '../qos/qos-tracker.js';
import { DiskState } from '../scheduling/disk-state.js';
import { GpuRoster } from '../scheduling/gpu-roster.js';
import { JobLaunch } from '../scheduling/job-launch.js';
import { JobQueue } from '../scheduling/job-queue.js';
import type { PassCause } from '../scheduling/pass-hints.js';
import { PassStats } from '../scheduling/pass-stats.js';
import type { ControlPlaneSettings, Logger } from '../scheduling/plane-deps.js';
import { PlaneEvents, type PlaneEvent } from '../scheduling/plane-events.js';
import { RecentShapes } from '../scheduling/recent-shapes.js';
import { RunningJobs } from '../scheduling/running-jobs.js';
import { RunningSet } from '../scheduling/running-set.js';
import { SchedulingPass } from '../scheduling/scheduling-pass.js';
import { StopIntents } from '../scheduling/stop-intents.js';
import { TimesliceRotator } from '../scheduling/timeslice-rotator.js';
import { TEST_SETTINGS } from './plane-kit.js';

/** A disk state the test fills (`fill`) and frees (`free`, which runs the recovery listeners). */
export interface TestDisk extends DiskSpace {
  fill(): void;
  free(): void;
}

/** A `DiskSpace` whose state the test sets; a full-disk error reported to it fills it. */
export function testDisk(): TestDisk {
  let full = false;
  const listeners: (() => void)[] = [];
  return {
    fullReason: () => (full ? 'the disk holding /data is full: free space there' : null),
    noteError: (error) => (isDiskFullError(error) ? (full = true) : false),
    onRecovered: (listener) => void listeners.push(listener),
    fill() {
      full = true;
    },
    free() {
      full = false;
      for (const listener of listeners) listener();
    },
  };
}

/** One log line as a part wrote it. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string | undefined;
}

/** The parts, their ports, and what they reported. */
export interface LoopParts {
  readonly clock: ManualClock;
  readonly store: StateStore;
  readonly launcher: FakeProcessLauncher;
  readonly files: MemoryJobFiles;
  readonly gpus: readonly InventoryGpu[];
  readonly settings: ControlPlaneSettings;
  /** The policy's tie-break randomness (seed 7). */
  readonly rng: Rng;
  readonly logger: Logger;
  readonly logs: LogLine[];
  readonly events: PlaneEvents;
  /** Every event `events` carried. */
  readonly emitted: PlaneEvent[];
  readonly testDisk: TestDisk;
  readonly disk: DiskState;
  readonly roster: GpuRoster;
  readonly queue: JobQueue;
  readonly intents: StopIntents;
  readonly running: RunningJobs;
  readonly qos: QosTracker;
  readonly rotator: TimesliceRotator;
  readonly runningSet: RunningSet;
  readonly recentShapes: RecentShapes;
  readonly stats: PassStats;
  readonly pass: SchedulingPass;
  readonly launch: JobLaunch;
  /** Causes noted on the pass (by a part, `note` or `reschedule`), in order. */
  readonly noted: PassCause[];
  /** Passes asked for through `requestPass` and `reschedule`. */
  readonly passRequests: { count: number };
  /** Notes a cause (recorded; the pass is told too). */
  note(cause: PassCause): void;
  /** Counts a pass request. */
  requestPass(): void;
  /** `note` and `requestPass`. */
  reschedule(cause: PassCause): void;
  /** Stores a pending job of tenant `acme` (sampleJob with `overrides`; no working directory) and queues it. */
  submit(overrides?: Partial<NewJob>): JobRecord;
  /** Submits a job and places it with a pass: it is stored `scheduled`. @throws Error when the pass did not place it */
  place(overrides?: Partial<NewJob>): JobRecord;
}

/**
 * Builds the parts over simulated GPUs (`--simulate-gpus` syntax, e.g. `1xA100-80GB`).
 * @param settings overrides of plane-kit's TEST_SETTINGS
 */
export async function loopParts(
  gpuSpec = '1xA100-80GB',
  settings: Partial<ControlPlaneSettings> = {},
): Promise<LoopParts> {
  const clock = new ManualClock();
  const store = createMemoryStore();
  store.createTenant('acme', clock.nowMs());
  const launcher = new FakeProcessLauncher(clock);
  const files = new MemoryJobFiles();
  const gpus = await createSimulatedInventory(parseSimulatedGpuSpec(gpuSpec)).list();
  const full = { ...TEST_SETTINGS, ...settings };
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (obj, msg) => void logs.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => void logs.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => void logs.push({ level: 'error', obj, msg }),
  };
  const events = new PlaneEvents();
  const emitted: PlaneEvent[] = [];
  events.on((e) => emitted.push(e));
  const disk = testDisk();
  const roster = new GpuRoster(gpus, []);
  const rng = new SeededRng(7);
  const queue = new JobQueue(new SchedulingSession({ nodes: [], active: [] }, rng));
  const intents = new StopIntents();
  const running = new RunningJobs();
  const qos = new QosTracker({ nowMs: () => clock.nowMs(), violationSeconds: 60 });
  const rotator = new TimesliceRotator(launcher, clock, { periodMs: full.timeslicePeriodMs, logger });
  const runningSet = new RunningSet({
    store,
    launcher,
    logger,
    settings: full,
    mps: null,
    running,
    intents,
    qos,
    rotator,
  });
  const recentShapes = new RecentShapes();
  const stats = new PassStats();
  const ports = { store, clock, logger, events, settings: full, rng };
  const pass = new SchedulingPass({ ...ports, stats, roster, queue, intents, running, qos, recentShapes });
  const launch = new JobLaunch({
    ...ports,
    launcher,
    files,
    roster,
    mps: null,
    mig: null,
    serverEnvironment: { PATH: '/usr/bin:/bin' },
  });
  const noted: PassCause[] = [];
  const passRequests = { count: 0 };
  // Every cause noted on the pass is recorded, whoever notes it.
  const noteOnPass = pass.note.bind(pass);
  pass.note = (cause) => {
    noted.push(cause);
    noteOnPass(cause);
  };
  const note = (cause: PassCause): void => pass.note(cause);
  const requestPass = (): void => void passRequests.count++;
  const submit = (overrides: Partial<NewJob> = {}): JobRecord => {
    const job = store.insertJob(sampleJob('acme', { workingDirectory: null, ...overrides }), clock.nowMs());
    queue.add(job);
    return job;
  };
  return {
    ...{ clock, store, launcher, files, gpus, settings: full, rng, logger, logs, events, emitted, testDisk: disk },
    ...{ disk: new DiskState(disk), roster, queue, intents, running, qos, rotator, runningSet, recentShapes },
    ...{ stats, pass, launch, noted, passRequests, note, requestPass, submit },
    reschedule: (cause) => {
      note(cause);
      requestPass();
    },
    place: (overrides) => {
      const job = submit(overrides);
      const outcome = pass.run();
      if (!outcome.placedJobIds.includes(job.id)) throw new Error(`job ${job.id} was not placed`);
      return store.getJob(job.id)!;
    },
  };
}

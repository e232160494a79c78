/**
 * Everything the control plane is built from: ports, clock and settings. Only `src/main` builds
 * one from concrete adapters and the resolved configuration; tests build one from the in-memory
 * adapters (src/adapters/memory) and a manual clock.
 */
import type { Rng } from '../../core/index.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { JobFiles } from '../ports/job-files.js';
import type { ProcessLauncher } from '../ports/process-launcher.js';
import type { StateStore } from '../ports/state-store.js';
import type { MpsControl } from '../ports/mps-control.js';
import type { MigManager } from '../ports/mig-manager.js';
import type { PlaneEvents } from './plane-events.js';
import type { DiskSpace } from '../ports/disk-space.js';
import type { JobHostLimitSettings } from './job-host-limits.js';

/** A minimal structured logger (pino satisfies it). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Settings of the control plane, units in names. */
export interface ControlPlaneSettings {
  /** Name of this server's node (metrics labels, the scheduler's cluster of one node). */
  readonly nodeName: string;
  /** Host CPU offered to jobs, milli-cores. */
  readonly hostCpuMilli: number;
  /** Host memory offered to jobs, MiB. */
  readonly hostMemoryMiB: number;
  /** How far time-sliced GPUs may overcommit compute (1 = none). */
  readonly timesliceOvercommitRatio: number;
  /** Rotation period of a time-sliced GPU, ms (each job gets its gpuMilli share of it). */
  readonly timeslicePeriodMs: number;
  /** How often running processes are checked for exit, ms. */
  readonly monitorIntervalMs: number;
  /** Longest time between scheduling passes when nothing triggers one, ms. */
  readonly scheduleIntervalMs: number;
  /** Grace between SIGTERM and SIGKILL when stopping a job, ms. */
  readonly stopGraceMs: number;
  /** Job directories of jobs finished longer ago than this are deleted, ms. */
  readonly logRetentionMs: number;
  /** GPU health poll interval, ms. */
  readonly healthPollIntervalMs: number;
  /** Signal a preemption victim receives first (checkpoint protocol). */
  readonly preemptionSignal: NodeJS.Signals;
  /** Time a victim has to checkpoint and exit before SIGKILL, ms. */
  readonly preemptionGraceMs: number;
  /** A job must have run this long before it may be preempted, ms. */
  readonly preemptionMinRunMs: number;
  /** A job is preempted at most this many times. */
  readonly maxPreemptionsPerJob: number;
  /** Most launches in flight at once (launch-queue.ts); default 16. */
  readonly launchConcurrency?: number;
  /** A QoS target missed for this long is a violation, seconds (default 60; docs/qos.md). */
  readonly qosViolationSeconds?: number;
  /**
   * Placement policy: a name of the core's policy registry (core/policies/registry.ts, POLICY_NAMES);
   * default `default`. Passes place with it and `allocations()` builds its view with it.
   */
  readonly policy?: string;
  /** `isolate` (default): a violating job's GPUs take no newly placed job of lower priority; `none`: no reaction. */
  readonly qosProtection?: 'isolate' | 'none';
  /**
   * The host limits every job gets by default (job-host-limits.ts): process limit, default host memory (reserved by
   * the scheduler), CPU weight; absent: none.
   */
  readonly jobHostLimits?: JobHostLimitSettings;
}

/** What a control plane needs. */
export interface ControlPlaneDeps {
  readonly store: StateStore;
  readonly launcher: ProcessLauncher;
  /** Where the GPU facts come from (shown by the status API). */
  readonly gpuSource: 'nvidia-smi' | 'simulated';
  readonly files: JobFiles;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Tie-break randomness of the scheduler's policy. */
  readonly rng: Rng;
  readonly settings: ControlPlaneSettings;
  /** The server's environment (PATH and friends are passed on to jobs). */
  readonly serverEnvironment: Readonly<Record<string, string | undefined>>;
  /**
   * MPS control daemons (one per GPU, started on demand); null when the host has no
   * `nvidia-cuda-mps-control`, and then MPS shares are scheduler accounting only.
   */
  readonly mps: MpsControl | null;
  /** Creates and destroys MIG GPU instances (nvidia-smi mig, or the stand-in for simulated GPUs); null: none. */
  readonly mig: MigManager | null;
  /**
   * Where the plane reports passes, MIG reconfigurations and GPU changes; job transitions come from a store wrapped by
   * `observeStore` on the same bus.
   */
  readonly events: PlaneEvents;
  /** The initial GPU list (already discovered). */
  readonly initialGpus: readonly InventoryGpu[];
  /** Whether the data directory's disk has room (adapters/disk); absent: writes are simply tried. */
  readonly disk?: DiskSpace;
}

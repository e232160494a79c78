/**
 * What the control plane does around a running job besides launching and finishing it: watching
 * its QoS targets, its GPU's time-slice rotation and MPS daemon, and sending it the stop signal
 * gpushare decided on (cancel, time limit, preemption with its grace period).
 */
import { type Placement, JOB_EVENT_CODES } from '../../core/index.js';
import type { MpsControl } from '../ports/mps-control.js';
import type { ProcessLauncher } from '../ports/process-launcher.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import { qosTrackedJobOf, type QosTracker } from '../qos/qos-tracker.js';
import { stopIdleMpsDaemons } from './mps-agent.js';
import type { ControlPlaneSettings, Logger } from './plane-deps.js';
import type { RunningJobs } from './running-jobs.js';
import type { StopIntents } from './stop-intents.js';
import type { StopIntent } from './attempt-end.js';
import type { TimesliceRotator } from './timeslice-rotator.js';

/** How long a job stopped at a host limit is waited for after its SIGKILL before its cgroups are killed too, ms. */
const HOST_LIMIT_KILL_WAIT_MS = 1000;

/** What the running set uses. */
export interface RunningSetDeps {
  /** Where a job's earlier attempts are read from (its preemptions so far). */
  readonly store: StateStore;
  readonly launcher: ProcessLauncher;
  readonly logger: Logger;
  readonly settings: ControlPlaneSettings;
  readonly mps: MpsControl | null;
  readonly running: RunningJobs;
  readonly intents: StopIntents;
  readonly qos: QosTracker;
  readonly rotator: TimesliceRotator;
}

/** Running jobs with their side arrangements. */
export class RunningSet {
  constructor(private readonly deps: RunningSetDeps) {}

  /**
   * Starts watching a running job (after its launch, or re-adopted after a restart), with the
   * preemptions of its earlier attempts (read from the store; the preemption guard counts them).
   */
  adopt(job: JobRecord): void {
    const { store, running, qos, mps, logger } = this.deps;
    running.add(job, store.listAttempts(job.id).filter((a) => a.endReason?.code === JOB_EVENT_CODES.preempted).length);
    const tracked = qosTrackedJobOf(job);
    if (tracked) qos.track(tracked);
    // A re-adopted MPS client: find its GPU's daemon again (a live one is reused, not restarted).
    const first = job.placement?.gpus[0];
    if (job.placement?.mode === 'mps' && first?.mpsClient && mps && !mps.running().includes(first.uuid)) {
      void mps
        .ensureDaemon({ key: first.uuid })
        .catch((error: unknown) => logger.warn({ err: error }, 'MPS daemon not found again'));
    }
    if (job.placement?.mode === 'timeslice') this.refreshRotation(job.placement);
  }

  /** Stops watching a job whose attempt ended; frees its rotation slot, cgroups and idle MPS daemons. */
  drop(job: JobRecord): void {
    const { running, qos, intents, rotator, launcher, mps, logger } = this.deps;
    running.remove(job.id);
    qos.forget(job.id);
    intents.delete(job.id);
    if (job.placement?.mode === 'timeslice') {
      void rotator.remove(job.id);
      this.refreshRotation(job.placement);
    }
    if (job.process) void launcher.cleanup(job.process).catch(() => undefined);
    if (job.placement) stopIdleMpsDaemons(mps, logger, job.placement, running.all());
  }

  /**
   * Records a stop intent for job `jobId` and, when it is running, sends it the stop signal
   * (`stopProcess`); nothing when an intent already stands (StopIntents.set: a cancel still wins
   * over a preemption).
   */
  async stop(jobId: number, intent: StopIntent): Promise<void> {
    if (!this.deps.intents.set(jobId, intent)) return;
    if (this.deps.running.has(jobId)) await this.stopProcess(jobId);
  }

  /**
   * Sends the stop signal of the job's intent (preemption: its signal and grace period; a host limit: SIGKILL; else
   * SIGTERM).
   */
  async stopProcess(jobId: number): Promise<void> {
    const job = this.deps.running.get(jobId);
    if (!job?.process) return;
    void this.deps.rotator.remove(jobId);
    const { settings, launcher, logger } = this.deps;
    const kind = this.deps.intents.get(jobId)?.kind;
    const preempting = kind === 'preempted';
    // A job at a host limit (a fork bomb at its process limit) gets no grace: SIGKILL to its group and cgroups.
    const signal = kind === 'host-limit' ? 'SIGKILL' : preempting ? settings.preemptionSignal : 'SIGTERM';
    await launcher
      .stop(
        job.process,
        signal,
        kind === 'host-limit'
          ? HOST_LIMIT_KILL_WAIT_MS
          : preempting
            ? settings.preemptionGraceMs
            : settings.stopGraceMs,
      )
      .catch((error: unknown) => logger.warn({ jobId, err: error }, 'stop failed'));
  }

  private refreshRotation(placement: Placement): void {
    const { running, intents, rotator } = this.deps;
    for (const gpu of placement.gpus) {
      const jobs = running
        .all()
        .filter(
          (j) =>
            j.placement?.mode === 'timeslice' &&
            j.placement.gpus.some((g) => g.index === gpu.index) &&
            !intents.has(j.id),
        );
      void rotator.setRunnable(
        `gpu-${gpu.index}`,
        jobs.map((j) => ({
          jobId: j.id,
          gpuMilli: j.placement!.gpus.find((g) => g.index === gpu.index)!.gpuMilli,
          handle: j.process!,
        })),
      );
    }
  }
}

/**
 * Starts the next attempt of a `scheduled` job: its GPU's MPS daemon (on demand), the MIG layout
 * changes its placement needs, its private folder (made at the first launch) with its checkpoint
 * directory, a report token and its environment; then
 * one store write with the final placement and the token's digest, the process, and one write to
 * `running`. A launch that fails ends the job `failed` with the reason (its resources return at
 * the next pass, which reads them from the store). A launch that fails because the disk is full is
 * not the job's fault: it answers `disk-full` with the store write still to do (back to `pending`,
 * or, when the command did start, `running`), for the control plane to retry when space returns.
 */
import { isDiskFullError } from '../errors.js';
import { generateToken, tokenDigest } from '../auth/tokens.js';
import type { Clock } from '../ports/clock.js';
import type { JobFiles } from '../ports/job-files.js';
import type { MigManager } from '../ports/mig-manager.js';
import type { MpsControl } from '../ports/mps-control.js';
import type { ProcessHandle, ProcessLauncher } from '../ports/process-launcher.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import type { GpuRoster } from './gpu-roster.js';
import { buildJobEnvironment } from './job-environment.js';
import { launchSandboxSpec, sandboxBaseEnvironment } from './launch-sandbox.js';
import { prepareMigInstances } from './mig-agent.js';
import { mpsPipeFor } from './mps-agent.js';
import type { ControlPlaneSettings, Logger } from './plane-deps.js';
import { hostMemoryOf, NO_JOB_HOST_LIMITS } from './job-host-limits.js';
import type { PlaneEvents } from './plane-events.js';
import { visibleDevicesOf } from './visible-devices.js';
import { JOB_EVENT_CODES, jobEventReason, type JobEventReason } from '../../core/index.js';

/** What a launch uses. */
export interface JobLaunchDeps {
  readonly store: StateStore;
  readonly launcher: ProcessLauncher;
  readonly files: JobFiles;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: PlaneEvents;
  readonly roster: GpuRoster;
  readonly mps: MpsControl | null;
  readonly mig: MigManager | null;
  readonly serverEnvironment: Readonly<Record<string, string | undefined>>;
  /** The default host limits every job gets (absent: none). */
  readonly settings?: Pick<ControlPlaneSettings, 'jobHostLimits'>;
}

/** How a launch ended. */
export type LaunchResult =
  | { readonly kind: 'started'; readonly handle: ProcessHandle }
  | { readonly kind: 'failed'; readonly reason: JobEventReason }
  /**
   * The disk is full: `write` records the launch (`running` when `started`, else back to `pending`) once it has room;
   * it throws while it has none.
   */
  | {
      readonly kind: 'disk-full';
      readonly error: unknown;
      readonly started: boolean;
      readonly label: string;
      readonly write: () => void;
    }
  | { readonly kind: 'skipped' };

/** Launches scheduled jobs. */
export class JobLaunch {
  /** GPUs reconfigured (MIG instances destroyed or created) since the server started. */
  migReconfigurations = 0;

  constructor(private readonly deps: JobLaunchDeps) {}

  /**
   * Ends job `jobId`, cancelled while it waited for its launch, `cancelled` with `reason` instead
   * of starting it; false when it is no longer `scheduled` or the write fails (then it is launched
   * and its stop intent ends it).
   */
  cancelInstead(jobId: number, reason: JobEventReason): boolean {
    const { store, clock, logger } = this.deps;
    if (store.getJob(jobId)?.state !== 'scheduled') return false;
    const nowMs = clock.nowMs();
    try {
      store.applyJobChanges([
        {
          jobId,
          atMs: nowMs,
          expectState: 'scheduled',
          to: 'cancelled',
          reason,
          patch: { endedAtMs: nowMs, reportTokenDigest: null },
        },
      ]);
      return true;
    } catch (error) {
      logger.warn({ jobId, err: error }, 'recording a cancel before the launch failed; launching and stopping instead');
      return false;
    }
  }

  /** The host limits of a launch of `job`: its memory (request or default), the process limit, the CPU weight. */
  private hostLimitsOf(job: JobRecord): { hostMemoryMiB: number; pidsMax?: number; cpuWeight?: number } {
    const limits = this.deps.settings?.jobHostLimits ?? NO_JOB_HOST_LIMITS;
    return {
      hostMemoryMiB: hostMemoryOf(job, limits).hostMemoryMiB,
      ...(limits.pidsMax > 0 ? { pidsMax: limits.pidsMax } : {}),
      ...(limits.cpuWeight > 0 ? { cpuWeight: limits.cpuWeight } : {}),
    };
  }

  /**
   * Starts the next attempt of job `jobId` and records it as running.
   * @param serverUrl the URL jobs reach the server at (GPUSHARE_URL), null when unknown
   * @param serverCaCert PEM of the CA jobs trust for that URL (GPUSHARE_CA_CERT), null when none
   * @returns `skipped` when the job is no longer scheduled (cancelled meanwhile)
   */
  async launch(jobId: number, serverUrl: string | null, serverCaCert: string | null = null): Promise<LaunchResult> {
    const { store, launcher, logger, clock, roster } = this.deps;
    const job = store.getJob(jobId);
    if (!job || job.state !== 'scheduled' || !job.placement) return { kind: 'skipped' };
    const attempt = job.attempt + 1;
    let placement = job.placement;
    const simulated = placement.gpus.some((g) => roster.gpu(g.index)?.simulated ?? true);
    const resume = store.listAttempts(jobId).some((a) => a.endReason?.code === JOB_EVENT_CODES.preempted);
    const reportToken = generateToken();
    // The job's private folder: made at its first launch, kept by later attempts (checkpoints).
    let folder = job.folder;
    let handle: ProcessHandle;
    try {
      const mpsPipeDirectory = await mpsPipeFor(this.deps.mps, logger, placement);
      if (mpsPipeDirectory) placement = { ...placement, gpus: placement.gpus.map((g) => ({ ...g, mpsClient: true })) };
      if (placement.mode === 'mig' && this.deps.mig) {
        const prepared = await prepareMigInstances(
          this.deps.mig,
          placement,
          roster,
          (index) => roster.gpu(index)?.model ?? '',
        );
        this.migReconfigurations += prepared.reconfigured;
        if (prepared.reconfigured > 0)
          this.deps.events.emit({
            type: 'mig-reconfigured',
            gpuIndices: placement.gpus.map((g) => g.index),
            count: prepared.reconfigured,
            jobId,
          });
        placement = prepared.placement;
      }
      folder ??= this.deps.files.createFolder(jobId);
      const checkpointDirectory = this.deps.files.prepareCheckpointDirectory(folder);
      const workingDirectory = job.workingDirectory ?? this.deps.files.prepareWorkDirectory(folder);
      const inventory = new Map(roster.inventoryGpus().map((g) => [g.index, g]));
      const visibleDevices = visibleDevicesOf(placement, inventory);
      const sandboxed = launcher.isolation.sandboxed;
      const environment = buildJobEnvironment({
        reportToken,
        serverUrl,
        serverCaCert,
        resume,
        mpsPipeDirectory,
        jobId,
        attempt,
        placement,
        visibleDevices,
        jobEnvironment: { GPUSHARE_CHECKPOINT_DIR: checkpointDirectory, ...job.environment },
        serverEnvironment: sandboxed ? sandboxBaseEnvironment(workingDirectory) : this.deps.serverEnvironment,
        simulated,
      });
      const sandbox = launchSandboxSpec({
        tenant: job.tenant,
        placement,
        visibleDevices,
        inventory,
        ownedDirectories:
          job.workingDirectory === null ? [workingDirectory, checkpointDirectory] : [checkpointDirectory],
        sharedDirectories: [
          ...(job.workingDirectory === null ? [] : [job.workingDirectory]),
          ...(mpsPipeDirectory ? [mpsPipeDirectory] : []),
        ],
      });
      // The attempt's report token: only its digest is stored; it stops working when the attempt ends.
      // The folder is recorded before anything runs in it: a folder the store does not know was
      // never used by a job (a start quarantines it).
      store.applyJobChanges([
        {
          jobId,
          atMs: clock.nowMs(),
          expectState: 'scheduled',
          patch: { placement, reportTokenDigest: tokenDigest(reportToken), folder },
        },
      ]);
      handle = await launcher.start({
        jobId,
        attempt,
        argv: job.command,
        workingDirectory,
        environment,
        jobDirectory: this.deps.files.directory(folder),
        cpuMilli: job.cpuMilli,
        ...this.hostLimitsOf(job),
        sandbox,
      });
    } catch (error) {
      if (isDiskFullError(error)) {
        const requeue = {
          jobId,
          atMs: clock.nowMs(),
          expectState: 'scheduled' as const,
          to: 'pending' as const,
          reason: jobEventReason(JOB_EVENT_CODES.requeuedDiskFull),
          patch: { placement: null, reportTokenDigest: null, folder },
        };
        return {
          kind: 'disk-full',
          error,
          started: false,
          label: `job ${jobId} back to pending`,
          write: () => store.applyJobChanges([requeue]),
        };
      }
      logger.warn({ jobId, err: error }, 'launch failed');
      const reason = jobEventReason(JOB_EVENT_CODES.launchFailed, { error: (error as Error).message });
      try {
        store.applyJobChanges([
          {
            jobId,
            atMs: clock.nowMs(),
            expectState: 'scheduled',
            to: 'failed',
            reason,
            patch: { attempt, endedAtMs: clock.nowMs(), reportTokenDigest: null, folder },
          },
        ]);
      } catch (storeError) {
        logger.error({ jobId, err: storeError }, 'recording the failed launch failed');
      }
      return { kind: 'failed', reason };
    }
    const now = clock.nowMs();
    const running = {
      jobId,
      atMs: now,
      expectState: 'scheduled' as const,
      to: 'running' as const,
      reason: jobEventReason(JOB_EVENT_CODES.attemptStarted, { attempt, pid: handle.commandPid ?? null }),
      patch: { attempt, process: handle, startedAtMs: now },
      startAttempt: attempt,
    };
    try {
      store.applyJobChanges([running]);
    } catch (error) {
      if (!isDiskFullError(error)) throw error;
      return {
        kind: 'disk-full',
        error,
        started: true,
        label: `job ${jobId} attempt ${attempt} started`,
        write: () => store.applyJobChanges([running]),
      };
    }
    return { kind: 'started', handle };
  }
}

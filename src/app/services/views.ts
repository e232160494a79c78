/**
 * Conversions from stored records to the API's shapes (src/contract/api.ts): jobs, their history,
 * and GPUs with the jobs sharing them. Times become ISO-8601 strings.
 */
import {
  ADMIN_VIEWER,
  JOB_EVENT_CODES,
  statusMessage,
  waitMessage,
  type Status,
  type StatusViewer,
  enforcementOf,
  migGeometry,
  priorityClassOf,
  weakestEnforcement,
  type Placement,
  type ShareEnforcement,
} from '../../core/index.js';
import type { GpuView, JobDetailView, JobView, QosStatusView, UsagePeakView } from '../../contract/api.js';
import type { QosJobStatus } from '../qos/qos-tracker.js';
import type { AttemptRecord, JobEvent, JobRecord, JobUsagePeak } from '../ports/state-store.js';
import type { InventoryGpu } from '../ports/gpu-inventory.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import { migDeviceUuid } from '../scheduling/visible-devices.js';
import { measuredGpu } from '../usage/measured-gpu.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A job as the API shows it to `viewer` (its reason written for them; default: an admin). */
export function toJobView(job: JobRecord, plane: ControlPlane, viewer: StatusViewer = ADMIN_VIEWER): JobView {
  return jobViewBuilder(plane, viewer)(job);
}

/**
 * A function from job records to job views for `viewer` that reads the GPU inventory once (for
 * listings: one builder for the whole page).
 */
export function jobViewBuilder(plane: ControlPlane, viewer: StatusViewer = ADMIN_VIEWER): (job: JobRecord) => JobView {
  const inventory = new Map(plane.roster.inventoryGpus().map((g) => [g.index, g]));
  return (job) => buildJobView(job, plane, inventory, viewer);
}

/** A stored reason's line for `viewer`; null for none. */
function line(reason: Status | null, viewer: StatusViewer): string | null {
  return reason === null ? null : statusMessage(reason, viewer);
}

/**
 * Why an attempt ended, in the words the API has always used: `exited` (its exit code is a field of
 * its own), `preempted`, `time-limit`, `lost`, `cancelled by …`, `killed by SIGKILL`, `could not start …`.
 */
function attemptEndLine(reason: Status | null, viewer: StatusViewer): string | null {
  if (reason?.code === JOB_EVENT_CODES.exited) return 'exited';
  if (reason?.code === JOB_EVENT_CODES.preempted) return 'preempted';
  return line(reason, viewer);
}

function buildJobView(
  job: JobRecord,
  plane: ControlPlane,
  inventory: ReadonlyMap<number, InventoryGpu>,
  viewer: StatusViewer,
): JobView {
  // Why a queued job waits, as the last pass found (null before its first pass).
  const waiting = job.state === 'pending' || job.state === 'preempted' ? plane.waitingReason(job.id) : null;
  const placement = job.placement;
  return {
    id: job.id,
    name: job.name,
    tenant: job.tenant,
    state: job.state,
    reason: waiting !== null ? waitMessage(waiting, viewer) : line(job.reason, viewer),
    reasonCode: waiting !== null ? waiting.code : (job.reason?.code ?? null),
    priority: job.priority,
    priorityClass: priorityClassOf(job.priority),
    preemptible: job.preemptible,
    command: [...job.command],
    workingDirectory: job.workingDirectory,
    timeLimitSeconds: job.timeLimitSeconds,
    retries: job.retries,
    attempt: job.attempt,
    cpuMilli: job.cpuMilli,
    hostMemoryMiB: job.hostMemoryMiB,
    // Field by field: the listing serializes views as they are (no zod strip), so nothing beyond JobSchema.
    gpu: {
      gpuCount: job.gpu.gpuCount,
      gpuMilli: job.gpu.gpuMilli,
      gpuMemoryMiB: job.gpu.gpuMemoryMiB,
      mode: job.gpu.mode,
      isolation: job.gpu.isolation ?? 'standard',
    },
    placement: placement && {
      mode: placement.mode,
      enforcement: placementEnforcement(placement, plane),
      simulated: placement.gpus.some((g) => inventory.get(g.index)?.simulated ?? false),
      gpus: placement.gpus.map((g) => ({
        index: g.index,
        uuid: g.uuid,
        gpuMilli: g.gpuMilli,
        accountedGpuMilli: g.accountedGpuMilli,
        gpuMemoryMiB: g.gpuMemoryMiB,
        migProfile: g.mig?.profileName ?? null,
        migDeviceUuid: g.mig ? migDeviceUuid(g, inventory.get(g.index)) : null,
      })),
    },
    submittedAt: iso(job.submittedAtMs)!,
    startedAt: iso(job.startedAtMs),
    endedAt: iso(job.endedAtMs),
    exitCode: job.exitCode,
    signal: job.signal,
    pid: job.state === 'running' ? (job.process?.commandPid ?? null) : null,
    qos: job.qos && { targets: { ...job.qos }, status: plane.qos.statusesOf(job.id).map(toQosStatusView) },
  };
}

/**
 * What enforces a placement's share (core/sharing/enforcement.ts): an `mps` job counts as
 * `driver-per-process` only when it was started as a client of its GPU's daemon and that daemon
 * still runs (multi-GPU MPS jobs have no daemon here).
 */
function placementEnforcement(placement: Placement, plane: ControlPlane): ShareEnforcement {
  const first = placement.gpus[0];
  const client =
    placement.mode === 'mps' && first !== undefined && first.mpsClient === true && plane.hasMpsDaemon(first.uuid);
  return enforcementOf(placement.mode, client);
}

/** One target's QoS state as the API shows it (docs/qos.md). */
export function toQosStatusView(s: QosJobStatus): QosStatusView {
  return {
    kind: s.kind,
    targetSeconds: s.targetSeconds,
    lastObservedSeconds: s.lastObservedSeconds,
    lastReportAt: iso(s.lastReportAtMs),
    reports: s.reports,
    violating: s.violating,
    missingSince: iso(s.missingSinceMs),
    violations: s.violations,
  };
}

/** A job's usage peak as the API shows it; null for none. */
export function toUsagePeakView(peak: JobUsagePeak | null): UsagePeakView | null {
  return (
    peak && {
      gpuMemoryMiB: peak.gpuMemoryMiB,
      gpuUtilizationPct: peak.gpuUtilizationPct,
      updatedAt: iso(peak.updatedAtMs)!,
    }
  );
}

/**
 * A job with its transitions, attempts and usage peak (null: none measured), as `viewer` may read
 * them (default: an admin).
 */
export function toJobDetail(
  job: JobRecord,
  history: {
    readonly events: readonly JobEvent[];
    readonly attempts: readonly AttemptRecord[];
    readonly usagePeak: JobUsagePeak | null;
  },
  plane: ControlPlane,
  viewer: StatusViewer = ADMIN_VIEWER,
): JobDetailView {
  const { events, attempts } = history;
  return {
    ...toJobView(job, plane, viewer),
    environment: { ...job.environment },
    events: events.map((e) => ({
      at: iso(e.atMs)!,
      from: e.fromState,
      to: e.toState,
      reason: line(e.reason, viewer),
      reasonCode: e.reason?.code ?? null,
    })),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: iso(a.startedAtMs)!,
      endedAt: iso(a.endedAtMs),
      exitCode: a.exitCode,
      signal: a.signal,
      endReason: attemptEndLine(a.endReason, viewer),
    })),
    usagePeak: toUsagePeakView(history.usagePeak),
    hostLimits: plane.hostLimitsOf(job),
    workingDirectoryReason: workingDirectoryReasonOf(events, viewer),
  };
}

/** The `workdir-not-writable` note among a job's events, as the detail view shows it; null when none. */
function workingDirectoryReasonOf(
  events: readonly JobEvent[],
  viewer: StatusViewer,
): JobDetailView['workingDirectoryReason'] {
  const note = events.find((e) => e.reason?.code === JOB_EVENT_CODES.workdirNotWritable)?.reason;
  if (note === undefined || note === null) return null;
  const requested = note.details.requestedDirectory;
  return {
    code: JOB_EVENT_CODES.workdirNotWritable,
    requestedDirectory: typeof requested === 'string' ? requested : '',
    reason: line(note, viewer) ?? '',
  };
}

/** Every GPU with what it holds; `jobsById` resolves the jobs on each GPU. */
export function toGpuViews(plane: ControlPlane, jobsById: (id: number) => JobRecord | null): GpuView[] {
  const allocations = plane.allocations();
  const usage = new Map(allocations.usage.map((u) => [u.device.index, u]));
  return plane.roster.inventoryGpus().map((gpu) => {
    const use = usage.get(gpu.index);
    const allocatedGpuMilli = gpu.migEnabled
      ? migMilli(use?.jobIds ?? [], gpu.index, migGeometry(gpu.model)?.computeSlices ?? 7, jobsById)
      : (use?.allocatedGpuMilli ?? 0);
    const allocatedGpuMemoryMiB = use?.allocatedGpuMemoryMiB ?? 0;
    const cordoned = plane.roster.isCordoned(gpu.uuid);
    // nvidia-smi's own figures when the inventory has them, else the usage poller's sample (simulated GPUs).
    const measured = measuredGpu(gpu, plane.usage.latest(), 'inventory');
    return {
      index: gpu.index,
      uuid: gpu.uuid,
      name: gpu.name,
      model: gpu.model,
      simulated: gpu.simulated,
      migEnabled: gpu.migEnabled,
      healthy: gpu.healthy,
      healthReason: gpu.healthReason,
      cordoned,
      schedulable: gpu.healthy && !cordoned,
      mode: use?.mode ?? (gpu.migEnabled ? 'mig' : null),
      enforcement:
        use && use.mode
          ? weakestEnforcement(
              use.jobIds.flatMap((id) => {
                const placement = jobsById(id)?.placement;
                return placement ? [placementEnforcement(placement, plane)] : [];
              }),
            )
          : null,
      gpuMemoryMiB: gpu.gpuMemoryMiB,
      allocatedGpuMilli,
      freeGpuMilli: Math.max(0, 1000 - allocatedGpuMilli),
      allocatedGpuMemoryMiB,
      freeGpuMemoryMiB: Math.max(0, gpu.gpuMemoryMiB - allocatedGpuMemoryMiB),
      utilizationGpuPct: measured.utilizationRatio === null ? null : Math.round(measured.utilizationRatio * 1000) / 10,
      memoryUsedMiB: measured.memoryUsedMiB,
      measuredSource: measured.source,
      jobs: (use?.jobIds ?? []).flatMap((id) => {
        const job = jobsById(id);
        const placed = job?.placement?.gpus.find((g) => g.index === gpu.index);
        if (!job || !placed) return [];
        return [
          {
            id,
            name: job.name,
            tenant: job.tenant,
            state: job.state,
            gpuMilli: placed.gpuMilli,
            gpuMemoryMiB: placed.gpuMemoryMiB,
            migProfile: placed.mig?.profileName ?? null,
            migStart: placed.mig?.start ?? null,
            migSlices: placed.mig?.size ?? null,
          },
        ];
      }),
      migMemorySlices: gpu.migEnabled ? (migGeometry(gpu.model)?.memorySlices ?? null) : null,
      migIdleInstances: gpu.migEnabled
        ? allocations
            .idleMigInstances(gpu.index)
            .map((i) => ({ profileName: i.profileName, start: i.start, size: i.size }))
        : [],
    };
  });
}

/**
 * Compute of a MIG GPU in use, in milli-GPU: Σ compute slices / the GPU's slices (shown only; MIG is accounted in
 * slices).
 */
function migMilli(
  jobIds: readonly number[],
  index: number,
  gpuSlices: number,
  jobsById: (id: number) => JobRecord | null,
): number {
  let slices = 0;
  for (const id of jobIds)
    slices += jobsById(id)?.placement?.gpus.find((g) => g.index === index)?.mig?.computeSlices ?? 0;
  return Math.round((slices * 1000) / gpuSlices);
}

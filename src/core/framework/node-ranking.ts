/**
 * Per-node answers for one job over a chosen set of nodes: the nodes that can take it now, each
 * with the policy's score (the total the cycle would compare), and why each other node cannot. The
 * same rules as a placement (shared-placement.ts, mig-layouts.ts): the Kubernetes extender's filter
 * and prioritize ask this, and its bind then places on the node the kube-scheduler chose.
 *
 * A request whose memory follows the GPU (proportional, or `exclusive`) is ranked per GPU memory
 * size, since what it reserves differs per model. MIG requests rank by the cost of their cheapest
 * option (reuse an idle instance, create one, destroy idle ones first), then by the fullest GPU.
 */
import type { JobRequest, EffectiveMode } from '../model/request.js';
import type { GpuDevice } from '../model/gpu-device.js';
import { accountedGpuMilli, fallbackMode, resolveMode, reservedGpuMemoryMiB } from '../sharing/share-accounting.js';
import type { MigLayouts } from './mig-layouts.js';
import { qualifies, qualifyingGpus } from './shared-placement.js';
import { NODE_CODES, status, WAIT_CODES, type Status } from '../model/status.js';
import type { SchedulingUnit, UnitGroups } from './unit-groups.js';

/** What `rankNodes` found. */
export interface NodeRanking {
  /** Nodes (snapshot index) that can take the job now, with the policy's total: higher is better. */
  readonly scores: ReadonlyMap<number, number>;
  /**
   * Nodes that cannot, with why: `lasting` when nothing but a change of the node itself can make it
   * fit (no GPU of that memory or model, no MIG mode or profile for it), else a shortage that ends
   * when jobs leave. refusal-message.ts writes the sentence.
   */
  readonly reasons: ReadonlyMap<number, Status>;
}

/** How `rankNodes` treats MIG. */
export interface RankOptions {
  /** How far `timeslice` GPUs may overcommit compute (≥ 1). */
  readonly timesliceOvercommitRatio: number;
  /** MIG layouts per node index. */
  readonly migs: readonly MigLayouts[];
  /**
   * Only idle MIG instances count (no instance created or destroyed): a cluster whose agents do not reconfigure MIG.
   */
  readonly migReuseOnly: boolean;
}

/**
 * Ranks `nodeIndices` for `job` (its first mode, then the fallback of a strict `auto` request).
 * Changes no holding; leaves the GPUs of those nodes masked (the next search sets every mask). Its
 * cost follows the number of nodes asked about, not the cluster's size.
 */
export function rankNodes(
  job: JobRequest,
  groups: UnitGroups,
  nodeIndices: readonly number[],
  options: RankOptions,
): NodeRanking {
  const scores = new Map<number, number>();
  const reasons = new Map<number, Status>();
  const modes = [resolveMode(job.gpu), fallbackMode(job.gpu)].filter((m): m is EffectiveMode => m !== null);
  for (const mode of modes) {
    const left = nodeIndices.filter((n) => !scores.has(n));
    if (left.length === 0) break;
    const ranked =
      mode === 'mig'
        ? rankMig(job, groups, left, options)
        : rankShared(job, mode, groups, left, options.timesliceOvercommitRatio);
    for (const [n, score] of ranked.scores) {
      scores.set(n, score);
      reasons.delete(n);
    }
    for (const [n, reason] of ranked.reasons) if (!scores.has(n) && !reasons.has(n)) reasons.set(n, reason);
  }
  return { scores, reasons };
}

function rankShared(
  job: JobRequest,
  mode: EffectiveMode,
  groups: UnitGroups,
  nodeIndices: readonly number[],
  ratio: number,
): NodeRanking {
  const { gpuCount } = job.gpu;
  const accounted = accountedGpuMilli(mode, job.gpu.gpuMilli, ratio);
  const allowed = job.gpu.allowedGpuModels ?? [];
  const tenant = groups.mpsTenantFor(mode, job.tenant);
  const scores = new Map<number, number>();
  const reasons = new Map<number, Status>();
  const byMemory = new Map<number, Set<SchedulingUnit>>();
  for (const n of nodeIndices) {
    const entry = groups.nodes[n]!;
    let best = 0;
    let any = false;
    for (const unit of entry.units) {
      if (unit.model === null || (allowed.length > 0 && !allowed.includes(unit.model))) continue;
      const modelMemoryMiB = unit.state.spec.gpuMemoryMiB ?? 0;
      if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
      any = true;
      const memory = reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB);
      const count = qualifyingGpus(unit, groups, job, mode, accounted, memory, null, tenant);
      best = Math.max(best, count);
      if (count >= gpuCount) {
        const set = byMemory.get(memory) ?? new Set<SchedulingUnit>();
        set.add(unit);
        byMemory.set(memory, set);
      }
    }
    if (!any)
      reasons.set(
        n,
        noGpuRefusal(
          job,
          entry.units.flatMap((u) => u.deviceIndices.map((i) => entry.devices.get(i)!.device)),
        ),
      );
    else if (best < gpuCount)
      reasons.set(
        n,
        status(WAIT_CODES.gpuCapacity, false, {
          qualifyingGpus: best,
          neededGpus: gpuCount,
          gpuMilli: accounted,
          gpuMemoryMiB: job.gpu.gpuMemoryMiB,
          mode,
          oneTenantPerMpsGpu: tenant !== null,
        }),
      );
  }
  for (const [memory, units] of byMemory) {
    groups.maskOnly(units, (unit, local) => qualifies(groups, unit, local, mode, null, tenant));
    const ranked = groups.scheduler.rankAmong(
      {
        cpuMilli: job.cpuMilli,
        hostMemoryMiB: job.hostMemoryMiB,
        gpuCount,
        gpuMilli: accounted,
        gpuMemoryMiB: memory,
        allowedGpuModels: allowed,
      },
      [...units].map((u) => u.state),
    );
    for (const { nodeIndex, total } of ranked) {
      const n = groups.units[nodeIndex]!.nodeIndex;
      const previous = scores.get(n);
      if (previous === undefined || total > previous) scores.set(n, total);
    }
  }
  return { scores, reasons };
}

function rankMig(
  job: JobRequest,
  groups: UnitGroups,
  nodeIndices: readonly number[],
  options: RankOptions,
): NodeRanking {
  const scores = new Map<number, number>();
  const reasons = new Map<number, Status>();
  for (const n of nodeIndices) {
    const entry = groups.nodes[n]!;
    const devices = [...entry.devices.values()].map((s) => s.device);
    if (!devices.some((d) => d.migEnabled)) {
      reasons.set(n, status(NODE_CODES.noMigMode, true));
      continue;
    }
    const option = options.migs[n]!.place(job, devices);
    if (option.kind === 'waiting')
      reasons.set(
        n,
        option.anyProfile
          ? status(WAIT_CODES.migCapacity, false, { gpusWithRoom: option.withRoom })
          : status(NODE_CODES.noMigProfile, true),
      );
    else if (options.migReuseOnly && option.cost > 0) reasons.set(n, status(NODE_CODES.migReuseOnly, false));
    // Cheapest first, then the fullest GPU (as mig-layouts.ts orders options).
    else scores.set(n, -option.cost * 1000 + option.usedSlices);
  }
  return { scores, reasons };
}

/** Why none of a node's GPUs (outside MIG mode: `devices`) may host `job` whatever runs there. */
function noGpuRefusal(job: JobRequest, devices: readonly GpuDevice[]): Status {
  if (devices.length === 0) return status(NODE_CODES.noGpuOutsideMig, true);
  if (job.gpu.gpuMemoryMiB !== null && devices.every((d) => d.gpuMemoryMiB < job.gpu.gpuMemoryMiB!)) {
    return status(NODE_CODES.gpuMemoryTooSmall, true, {
      neededGpuMemoryMiB: job.gpu.gpuMemoryMiB,
      largestGpuMemoryMiB: Math.max(...devices.map((d) => d.gpuMemoryMiB)),
    });
  }
  return status(NODE_CODES.gpuModelNotAllowed, true, { allowedGpuModels: [...(job.gpu.allowedGpuModels ?? [])] });
}

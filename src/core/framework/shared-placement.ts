/**
 * Placement of `exclusive`, `mps` and `timeslice` jobs on GPUs not in MIG mode: finds the units
 * (GPUs of one model on one node) with enough GPUs that qualify now (capacity, host resources,
 * health, mode, not excluded), then lets the cluster's policy choose the unit and the GPUs. Each
 * GPU runs one sharing mode at a time: an empty GPU takes any mode; a GPU with jobs takes only jobs
 * of the same mode; `exclusive` needs an empty GPU. With the one-tenant-per-MPS-GPU rule
 * (`UnitGroups.mpsOneTenantPerGpu`, docs/decisions/0014), a GPU holding `mps` jobs takes `mps` jobs
 * of their tenant only; a job that fits only on such GPUs of other tenants waits with `mps-tenant`.
 *
 * When every GPU may take the mode as far as health and modes go and nothing is excluded, only
 * capacity decides, which the cycle's own filters check: the search is then one cycle, with no
 * walk over the GPUs (a trace replay of 6,212 GPUs places each pod this way).
 */
import { InvariantViolation } from '../model/errors.js';
import type { PlacedGpu, Placement } from '../model/assignment.js';
import type { EffectiveMode, JobRequest } from '../model/request.js';
import { accountedGpuMilli, reservedGpuMemoryMiB } from '../sharing/share-accounting.js';
import type { ResourceDemand } from './resource-demand.js';
import { waitReason, WAIT_CODES, type WaitReason } from '../model/status.js';
import { MIXED_MPS_TENANTS, type DeviceState, type SchedulingUnit, type UnitGroups } from './unit-groups.js';

/** GPUs a job must not use: true for (node index, GPU index) pairs that are excluded. */
export type GpuExclusion = (nodeIndex: number, gpuIndex: number) => boolean;

/** Where a shared placement goes. */
export interface SharedPlacement {
  readonly nodeIndex: number;
  readonly placement: Placement;
}

/**
 * Finds where `job` goes in `mode` (not `mig`). Holds nothing; may leave GPUs masked for this
 * search (the next search unmasks them when it needs no mask).
 * @param timesliceOvercommitRatio how far `timeslice` GPUs may overcommit compute (≥ 1)
 * @param excluded GPUs the job must not use; null for none
 * @param onlyUnits look at these units only (a placement on one node); null for all
 * @returns the placement (not yet held), or why the job waits
 * @throws InvariantViolation when the cycle rejects a placement its filter allowed
 */
export function placeShared(
  job: JobRequest,
  mode: EffectiveMode,
  groups: UnitGroups,
  timesliceOvercommitRatio: number,
  excluded: GpuExclusion | null,
  onlyUnits: readonly SchedulingUnit[] | null = null,
): SharedPlacement | WaitReason {
  const { gpuCount, gpuMilli } = job.gpu;
  const accounted = accountedGpuMilli(mode, gpuMilli, timesliceOvercommitRatio);
  const allowed = job.gpu.allowedGpuModels ?? [];
  // Requests whose memory follows the GPU (proportional, or the whole GPU) differ per model; a CPU-only one does not.
  const perModel = gpuCount > 0 && (mode === 'exclusive' || job.gpu.gpuMemoryMiB === null);
  const tenant = groups.mpsTenantFor(mode, job.tenant);
  if (onlyUnits === null && !perModel && excluded === null && groups.noneBlocked(mode, tenant)) {
    groups.unmask();
    const memory = job.gpu.gpuMemoryMiB ?? 0;
    const decision = groups.scheduler.schedule({
      cpuMilli: job.cpuMilli,
      hostMemoryMiB: job.hostMemoryMiB,
      gpuCount,
      gpuMilli: accounted,
      gpuMemoryMiB: memory,
      allowedGpuModels: allowed,
    });
    return decision.kind === 'placed'
      ? placedOn(groups.units[decision.nodeIndex]!, decision.gpuIndices, groups, gpuMilli, accounted, memory, mode)
      : capacityReason(job, mode, accounted);
  }
  const demandOf = (memory: number): ResourceDemand => ({
    cpuMilli: job.cpuMilli,
    hostMemoryMiB: job.hostMemoryMiB,
    gpuCount,
    gpuMilli: accounted,
    gpuMemoryMiB: memory,
    allowedGpuModels: allowed,
  });
  const waiting = (): WaitReason =>
    tenant !== null && groups.mpsGpusOfOthers(tenant) > 0 && sharedFitsFor(job, mode, groups, accounted, excluded, null)
      ? mpsTenantReason(job)
      : capacityReason(job, mode, accounted);

  // 1. Units with enough GPUs that qualify now (the same test as the cycle's filters, plus modes).
  const candidates: { unit: SchedulingUnit; memory: number }[] = [];
  for (const unit of onlyUnits ?? groups.units) {
    if (unit.model === null || (allowed.length > 0 && !allowed.includes(unit.model))) continue;
    // A CPU-only job qualifies on no GPU: the host decides (qualifyingGpus answers 0 ≥ 0 either way).
    if (gpuCount === 0 && (unit.state.freeCpuMilli < job.cpuMilli || unit.state.freeHostMemoryMiB < job.hostMemoryMiB))
      continue;
    const modelMemoryMiB = unit.state.spec.gpuMemoryMiB ?? 0;
    // An explicit memory request must fit the model also where the whole GPU is reserved (exclusive).
    if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
    const memory = reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB);
    if (qualifyingGpus(unit, groups, job, mode, accounted, memory, excluded, tenant) >= gpuCount)
      candidates.push({ unit, memory });
  }
  if (candidates.length === 0) return waiting();
  // 2. A request whose memory follows the GPU takes the smallest model that fits; otherwise the
  //    policy chooses among all qualifying units.
  const smallest = Math.min(...candidates.map((c) => c.unit.state.spec.gpuMemoryMiB ?? 0));
  const chosen = perModel ? candidates.filter((c) => (c.unit.state.spec.gpuMemoryMiB ?? 0) === smallest) : candidates;
  const chosenUnits = new Set(chosen.map((c) => c.unit));
  const demand = demandOf(chosen[0]!.memory);
  let decision;
  if (onlyUnits === null) {
    groups.mask((unit, local) => chosenUnits.has(unit) && qualifies(groups, unit, local, mode, excluded, tenant));
    decision = groups.scheduler.schedule(demand);
  } else {
    groups.maskOnly(chosenUnits, (unit, local) => qualifies(groups, unit, local, mode, excluded, tenant));
    decision = groups.scheduler.scheduleAmong(
      demand,
      chosen.map((c) => c.unit.state),
    );
  }
  if (decision.kind !== 'placed')
    throw new InvariantViolation(`job ${job.id}: the cycle rejected a placement its filter allowed`);
  return placedOn(
    groups.units[decision.nodeIndex]!,
    decision.gpuIndices,
    groups,
    gpuMilli,
    accounted,
    demand.gpuMemoryMiB,
    mode,
  );
}

/**
 * The placement of `job` in `mode` on GPUs `gpuIndices` (device indices) of node `nodeIndex`, chosen
 * elsewhere (a mode view's cycle, mode-views.ts), when they are of one unit and each can take the
 * share now (mode, health, tenant and the unit's free compute and memory) and the node has the host
 * resources; null otherwise. Holds nothing. A job without GPUs goes on the node's first unit.
 */
export function placeOnGpus(
  job: JobRequest,
  mode: EffectiveMode,
  groups: UnitGroups,
  timesliceOvercommitRatio: number,
  nodeIndex: number,
  gpuIndices: readonly number[],
): SharedPlacement | null {
  const entry = groups.nodes[nodeIndex]!;
  if (entry.freeCpuMilli < job.cpuMilli || entry.freeHostMemoryMiB < job.hostMemoryMiB) return null;
  if (gpuIndices.length !== job.gpu.gpuCount) return null;
  if (gpuIndices.length === 0) return { nodeIndex, placement: { mode, gpus: [] } };
  const accounted = accountedGpuMilli(mode, job.gpu.gpuMilli, timesliceOvercommitRatio);
  const tenant = groups.mpsTenantFor(mode, job.tenant);
  const unit = entry.devices.get(gpuIndices[0]!)?.unit ?? null;
  if (unit === null || unit.model === null) return null;
  const allowed = job.gpu.allowedGpuModels ?? [];
  if (allowed.length > 0 && !allowed.includes(unit.model)) return null;
  const modelMemoryMiB = unit.state.spec.gpuMemoryMiB ?? 0;
  if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) return null;
  const memory = reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB);
  const locals: number[] = [];
  for (const index of gpuIndices) {
    const state = entry.devices.get(index);
    if (state === undefined || state.unit !== unit || locals.includes(state.local)) return null;
    const local = state.local;
    const fits =
      unit.state.gpuFreeMilli[local]! >= accounted && (memory === 0 || unit.state.gpuFreeMemoryMiB[local]! >= memory);
    if (!fits || !qualifiesNow(state, mode, tenant)) return null;
    locals.push(local);
  }
  return placedOn(unit, locals, groups, job.gpu.gpuMilli, accounted, memory, mode);
}

function placedOn(
  unit: SchedulingUnit,
  locals: readonly number[],
  groups: UnitGroups,
  gpuMilli: number,
  accounted: number,
  memory: number,
  mode: EffectiveMode,
): SharedPlacement {
  const devices = groups.nodes[unit.nodeIndex]!.devices;
  const gpus: PlacedGpu[] = locals.map((local) => {
    const device = devices.get(unit.deviceIndices[local]!)!.device;
    return {
      index: device.index,
      uuid: device.uuid,
      gpuMilli,
      accountedGpuMilli: accounted,
      gpuMemoryMiB: memory,
      mig: null,
    };
  });
  if (gpus.length > 1) gpus.sort((a, b) => a.index - b.index);
  return { nodeIndex: unit.nodeIndex, placement: { mode, gpus } };
}

/**
 * GPUs of `unit` that could take the share now (0 when the node lacks the host resources); `tenant` non-null applies
 * the one-tenant-per-MPS-GPU rule.
 */
export function qualifyingGpus(
  unit: SchedulingUnit,
  groups: UnitGroups,
  job: JobRequest,
  mode: EffectiveMode,
  accounted: number,
  memory: number,
  excluded: GpuExclusion | null,
  tenant: string | null,
): number {
  const node = unit.state;
  if (node.freeCpuMilli < job.cpuMilli || node.freeHostMemoryMiB < job.hostMemoryMiB) return 0;
  let count = 0;
  for (let local = 0; local < unit.deviceIndices.length; local++) {
    // Capacity first: it is two array reads, and on a busy cluster it rules most GPUs out.
    const memoryFits = memory === 0 || node.gpuFreeMemoryMiB[local]! >= memory;
    if (node.gpuFreeMilli[local]! >= accounted && memoryFits && qualifies(groups, unit, local, mode, excluded, tenant))
      count++;
  }
  return count;
}

/** Mode, health, tenant and exclusion rules of one GPU (capacity is the cycle's business). */
export function qualifies(
  groups: UnitGroups,
  unit: SchedulingUnit,
  local: number,
  mode: EffectiveMode,
  excluded: GpuExclusion | null,
  tenant: string | null,
): boolean {
  const index = unit.deviceIndices[local]!;
  if (excluded?.(unit.nodeIndex, index) === true) return false;
  return qualifiesNow(groups.device(unit.nodeIndex, index)!, mode, tenant);
}

/**
 * True when a GPU's health and mode let it take a job of `mode` now; with `tenant` non-null (an
 * `mps` job under the one-tenant rule) a GPU holding `mps` jobs must hold only that tenant's. A GPU in
 * MIG mode takes no share (it sits in a unit only when it may switch MIG mode: unit-groups.ts).
 */
function qualifiesNow(state: DeviceState, mode: EffectiveMode, tenant: string | null): boolean {
  if (!state.device.schedulable || state.device.migEnabled) return false;
  if (mode === 'exclusive') return state.jobs.size === 0;
  if (tenant !== null && state.mpsTenant !== null && state.mpsTenant !== tenant) return false;
  return state.mode === null || state.mode === mode;
}

/**
 * `mps-tenant`: the job would fit but for GPUs whose MPS jobs belong to other tenants. Which GPUs,
 * and whose, is an explanation (mpsTenantHolders, read by explain-wait.ts): the pass does not walk
 * the GPUs for it, and the reason names no other tenant.
 */
function mpsTenantReason(job: JobRequest): WaitReason {
  return waitReason(WAIT_CODES.mpsTenant, { tenant: job.tenant });
}

/**
 * The GPUs (by node, then index) whose MPS jobs belong to tenants other than `tenant`, and whose
 * (MIXED_MPS_TENANTS: several).
 */
export function mpsTenantHolders(
  tenant: string,
  groups: UnitGroups,
): { node: string; gpuIndex: number; tenant: string | null }[] {
  const held: { nodeIndex: number; node: string; gpuIndex: number; tenant: string | null }[] = [];
  for (const entry of groups.nodes) {
    for (const state of entry.devices.values()) {
      if (state.mpsTenant !== null && state.mpsTenant !== tenant)
        held.push({
          nodeIndex: entry.index,
          node: entry.node.name,
          gpuIndex: state.device.index,
          tenant: state.mpsTenant === MIXED_MPS_TENANTS ? null : state.mpsTenant,
        });
    }
  }
  held.sort((x, y) => x.nodeIndex - y.nodeIndex || x.gpuIndex - y.gpuIndex);
  return held.map(({ node, gpuIndex, tenant: t }) => ({ node, gpuIndex, tenant: t }));
}

/** Why no unit takes the job: the shape it waits for (how many GPUs qualify: qualifyingGpusAtMost). */
function capacityReason(job: JobRequest, mode: EffectiveMode, accounted: number): WaitReason {
  return waitReason(WAIT_CODES.gpuCapacity, {
    gpuCount: job.gpu.gpuCount,
    gpuMilli: accounted,
    gpuMemoryMiB: job.gpu.gpuMemoryMiB,
    mode,
  });
}

/**
 * The most GPUs of one unit that could take `job` in `mode` now (its model allowed, enough memory,
 * `accounted` milli-GPU free): what a `gpu-capacity` wait is short of.
 */
export function qualifyingGpusAtMost(
  job: JobRequest,
  mode: EffectiveMode,
  accounted: number,
  groups: UnitGroups,
  excluded: GpuExclusion | null,
): number {
  const tenant = groups.mpsTenantFor(mode, job.tenant);
  let best = 0;
  const allowed = job.gpu.allowedGpuModels ?? [];
  for (const unit of groups.units) {
    if (unit.model === null || (allowed.length > 0 && !allowed.includes(unit.model))) continue;
    const modelMemoryMiB = unit.state.spec.gpuMemoryMiB ?? 0;
    if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
    best = Math.max(
      best,
      qualifyingGpus(
        unit,
        groups,
        job,
        mode,
        accounted,
        reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB),
        excluded,
        tenant,
      ),
    );
  }
  return best;
}

/**
 * True when some unit could take `job` in `mode` now (enough qualifying GPUs of one model with the
 * host resources), without asking the policy which: the same answer `placeShared` would give,
 * with no rng draw and nothing learned (for what-if questions).
 */
export function sharedFits(
  job: JobRequest,
  mode: EffectiveMode,
  groups: UnitGroups,
  timesliceOvercommitRatio: number,
  excluded: GpuExclusion | null,
): boolean {
  return sharedFitsFor(
    job,
    mode,
    groups,
    accountedGpuMilli(mode, job.gpu.gpuMilli, timesliceOvercommitRatio),
    excluded,
    groups.mpsTenantFor(mode, job.tenant),
  );
}

/** `sharedFits` with the accounted share given, and the one-tenant rule applied for `tenant` (null: not applied). */
function sharedFitsFor(
  job: JobRequest,
  mode: EffectiveMode,
  groups: UnitGroups,
  accounted: number,
  excluded: GpuExclusion | null,
  tenant: string | null,
): boolean {
  const allowed = job.gpu.allowedGpuModels ?? [];
  for (const unit of groups.units) {
    // A CPU-only job needs host CPU and memory alone, on any unit (gpu-fit passes it everywhere). Not
    // `qualifyingGpus`: it counts 0 GPUs also where the host is short, and 0 GPUs are all it needs.
    if (job.gpu.gpuCount === 0) {
      if (unit.state.freeCpuMilli >= job.cpuMilli && unit.state.freeHostMemoryMiB >= job.hostMemoryMiB) return true;
      continue;
    }
    if (unit.model === null || (allowed.length > 0 && !allowed.includes(unit.model))) continue;
    const modelMemoryMiB = unit.state.spec.gpuMemoryMiB ?? 0;
    if (job.gpu.gpuMemoryMiB !== null && job.gpu.gpuMemoryMiB > modelMemoryMiB) continue;
    if (
      qualifyingGpus(
        unit,
        groups,
        job,
        mode,
        accounted,
        reservedGpuMemoryMiB(mode, job.gpu, modelMemoryMiB),
        excluded,
        tenant,
      ) >= job.gpu.gpuCount
    )
      return true;
  }
  return false;
}

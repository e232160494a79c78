/**
 * The line a person reads for why a job waits, written for one viewer from the reason's code and
 * details alone (status-viewer.ts): nothing is kept as prose, nothing is parsed. The details each
 * code carries are listed on {@link waitMessage}; docs/reasons.md says what each code means.
 */
import type { Status, StatusDetail, StatusDetails } from './status.js';
import { figure, nestedStatus, records, words } from './status-figures.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';

/** A GPU-equivalent amount as the quota check writes it (up to 3 decimals). */
const amount = (value: StatusDetail | undefined): string => String(Math.round(figure(value) * 1000) / 1000);

/** `GPU 0`, or `GPU 0 of node a` when a clause list spans several nodes. */
function gpuName(gpu: StatusDetails, named: boolean): string {
  return `GPU ${figure(gpu.gpuIndex)}${named ? ` of node ${words(gpu.node)}` : ''}`;
}

const severalNodes = (gpus: readonly StatusDetails[]): boolean => new Set(gpus.map((g) => g.node)).size > 1;

/**
 * One line for `reason`, as `viewer` may read it (default: an admin). Details by code:
 * `host-cpu` neededCpuMilli, freeCpuMilli; `host-memory` neededHostMemoryMiB, freeHostMemoryMiB;
 * `gpu-capacity` gpuCount, gpuMilli, gpuMemoryMiB (null: proportional), mode, and qualifyingGpus
 * once explained (explain-wait.ts); `mig-capacity` gpuCount, withRoom (absent: not counted); `strict-isolation` mig and
 * whole (the two searches' Statuses); `quota` tenant, usedGpuEquivalents, sizeGpuEquivalents,
 * limitGpuEquivalents; `backfill` blockedJobId, timeLimitSeconds (null: none), reservedStartMs
 * (null: unknown); `qos-protected` gpus [{ node, gpuIndex, jobId }]; `mps-tenant` tenant, and once
 * explained gpus [{ node, gpuIndex, tenant (null: several) }]; `preempting` victimIds.
 */
export function waitMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  switch (reason.code) {
    case 'host-cpu':
      return `waiting for host CPU: needs ${figure(d.neededCpuMilli)} cpuMilli, ${figure(d.freeCpuMilli)} free`;
    case 'host-memory':
      return (
        `waiting for host memory: needs ${figure(d.neededHostMemoryMiB)} MiB, ` + `${figure(d.freeHostMemoryMiB)} free`
      );
    case 'gpu-capacity': {
      const memory =
        d.gpuMemoryMiB === null || d.gpuMemoryMiB === undefined ? 'proportional' : `${figure(d.gpuMemoryMiB)} MiB`;
      const line =
        `waiting for ${figure(d.gpuCount)} GPU(s) of one model with ${figure(d.gpuMilli)} free milli-GPU and ` +
        `${memory} free memory in mode ${words(d.mode)}`;
      return d.qualifyingGpus === undefined ? line : `${line}; at most ${figure(d.qualifyingGpus)} qualify now`;
    }
    case 'mig-capacity': {
      const line = `waiting for ${figure(d.gpuCount)} MIG GPU(s) of one model with room for the instance`;
      return d.withRoom === undefined ? line : `${line}; ${figure(d.withRoom)} have room now`;
    }
    case 'no-mig-gpu':
      return 'waiting for a schedulable MIG GPU whose profiles cover the request';
    case 'strict-isolation': {
      const mig = nestedStatus(d.mig);
      const whole = nestedStatus(d.whole);
      return (
        `strict isolation: no MIG instance (${mig === null ? 'none' : waitMessage(mig, viewer)}) and no whole ` +
        `GPU (${whole === null ? 'none' : waitMessage(whole, viewer)})`
      );
    }
    case 'quota':
      // A request above the limit on its own (a limit lowered after the submit) can never start.
      if (figure(d.sizeGpuEquivalents) > figure(d.limitGpuEquivalents) + 1e-9)
        return (
          `quota: ${viewer.tenant(words(d.tenant))}: the request of ${amount(d.sizeGpuEquivalents)} ` +
          `GPU-equivalents exceeds the tenant's limit of ${amount(d.limitGpuEquivalents)}`
        );
      return (
        `quota: ${viewer.tenant(words(d.tenant))}: ${amount(d.usedGpuEquivalents)} GPU-equivalents in use + ` +
        `${amount(d.sizeGpuEquivalents)} requested exceeds the tenant's limit of ${amount(d.limitGpuEquivalents)}`
      );
    case 'backfill': {
      const behind = `waiting behind ${viewer.job(figure(d.blockedJobId))}`;
      if (d.timeLimitSeconds === null || d.timeLimitSeconds === undefined)
        return `${behind}: only jobs with a time limit may start ahead of a blocked job`;
      const at =
        typeof d.reservedStartMs === 'number'
          ? `its reserved start at ${new Date(d.reservedStartMs).toISOString()}`
          : 'its reserved start';
      return `${behind}: a ${figure(d.timeLimitSeconds)} s time limit would not end before ${at}`;
    }
    case 'qos-protected': {
      const gpus = records(d.gpus);
      const named = severalNodes(gpus);
      return gpus
        .map((g) => `${gpuName(g, named)} is protected: ${viewer.job(figure(g.jobId))} misses its QoS target`)
        .join('; ');
    }
    case 'mps-tenant': {
      const line = 'waiting for an MPS GPU free of other tenants (one tenant per MPS GPU)';
      const gpus = records(d.gpus);
      if (gpus.length === 0) return line;
      const named = severalNodes(gpus);
      const clauses = gpus.map(
        (g) =>
          `${gpuName(g, named)} runs MPS jobs of ` +
          `${typeof g.tenant === 'string' ? viewer.tenant(g.tenant) : 'several tenants'}`,
      );
      return `${line}: ${clauses.join('; ')}`;
    }
    case 'preempting': {
      const victims = Array.isArray(d.victimIds) ? (d.victimIds as readonly number[]) : [];
      return `preempting ${viewer.jobs(victims)}: waiting for them to checkpoint and exit`;
    }
    default:
      return reason.code;
  }
}

/**
 * The line a person reads for a node's refusal (node-ranking.ts; the Kubernetes extender shows it
 * in `kubectl describe pod`), written from the Status's code and figures only: no prose is kept or
 * parsed. A refusal names nothing of another tenant (GPUs, amounts, models, modes).
 */
import type { Status, StatusDetails } from './status.js';
import { figure, nestedStatus, words } from './status-figures.js';

/**
 * One sentence for `refusal`. Figures by code: `gpu-memory-too-small` neededGpuMemoryMiB,
 * largestGpuMemoryMiB; `gpu-model-not-allowed` allowedGpuModels; `gpu-capacity` qualifyingGpus,
 * neededGpus, gpuMilli, gpuMemoryMiB (null: the share's), mode, oneTenantPerMpsGpu; `mig-capacity`
 * gpusWithRoom; `node-too-small` refusal (the empty node's Status); `fits-no-node` nodeCount, largestNode
 * (node, gpuCount, migGpuCount, gpuModels, largestGpuMemoryMiB), refusal. A code without figures gets
 * its general sentence.
 */
export function refusalMessage(refusal: Status): string {
  const d = refusal.details;
  switch (refusal.code) {
    case 'gpu-memory-too-small':
      return (
        `no GPU with ${figure(d.neededGpuMemoryMiB)} MiB of memory ` + `(largest: ${figure(d.largestGpuMemoryMiB)} MiB)`
      );
    case 'gpu-model-not-allowed':
      return `no GPU of an allowed model (${words(d.allowedGpuModels)})`;
    case 'no-gpu-outside-mig':
      return 'no GPU outside MIG mode';
    case 'no-gpu':
      return 'no GPU';
    case 'gpu-capacity':
      if (d.neededGpus === undefined) return 'too few GPUs with enough free milli-GPU and memory';
      return (
        `${figure(d.qualifyingGpus)} of the ${figure(d.neededGpus)} GPU(s) needed have ${figure(d.gpuMilli)} ` +
        `milli-GPU and ${d.gpuMemoryMiB === null ? 'their share of' : `${figure(d.gpuMemoryMiB)} MiB of`} memory ` +
        `free for a ${words(d.mode)} share${d.oneTenantPerMpsGpu === true ? ' (one tenant per MPS GPU)' : ''}`
      );
    case 'no-mig-mode':
      return 'no GPU in MIG mode';
    case 'mig-capacity':
      return `no MIG GPU with room for the instance (${figure(d.gpusWithRoom)} have room)`;
    case 'no-mig-profile':
      return 'no MIG profile of its GPUs covers the request';
    case 'mig-reuse-only':
      return 'no idle MIG instance of a profile that covers the request (instances are not created on demand here)';
    case 'node-too-small': {
      const empty = nestedStatus(d.refusal);
      return `even empty, this node could not hold it${empty === null ? '' : `: ${emptyNodeLine(empty)}`}`;
    }
    case 'fits-no-node': {
      const empty = nestedStatus(d.refusal);
      const largest = d.largestNode;
      if (empty === null || typeof largest !== 'object' || largest === null || Array.isArray(largest))
        return 'no node of the cluster could ever hold it, even empty';
      const l = largest as StatusDetails;
      const mig = figure(l.migGpuCount) > 0 ? `, ${figure(l.migGpuCount)} in MIG mode` : '';
      return (
        `no node could ever hold it, even empty (${figure(d.nodeCount)} node(s)); the largest for it, ` +
        `${words(l.node)} (${figure(l.gpuCount)} GPU(s) ${words(l.gpuModels)} of ` +
        `up to ${figure(l.largestGpuMemoryMiB)} MiB${mig}): ${emptyNodeLine(empty)}`
      );
    }
    case 'host-cpu':
      return 'not enough free host CPU';
    case 'host-memory':
      return 'not enough free host memory';
    default:
      return refusal.code;
  }
}

/** What an empty node's refusal says about the node (it holds nothing: a shortage is its size). */
function emptyNodeLine(refusal: Status): string {
  const d = refusal.details;
  if (refusal.code === 'gpu-capacity' && d.neededGpus !== undefined)
    return (
      `only ${figure(d.qualifyingGpus)} of the ${figure(d.neededGpus)} GPU(s) needed could hold its share ` +
      `(${figure(d.gpuMilli)} milli-GPU${d.gpuMemoryMiB === null ? '' : ` and ${figure(d.gpuMemoryMiB)} MiB`} ` +
      `in ${words(d.mode)} mode)`
    );
  if (refusal.code === 'mig-reuse-only')
    return 'no MIG instance of a profile that covers the request exists (instances are not created on demand here)';
  return refusalMessage(refusal);
}

/**
 * The line a person reads for a node's refusal (node-ranking.ts; the Kubernetes extender shows it
 * in `kubectl describe pod`), written from the Status's code and figures only: no prose is kept or
 * parsed. A refusal names nothing of another tenant (GPUs, amounts, models, modes).
 */
import type { Status } from './status.js';
import { figure, words } from './status-figures.js';

/**
 * One sentence for `refusal`. Figures by code: `gpu-memory-too-small` neededGpuMemoryMiB,
 * largestGpuMemoryMiB; `gpu-model-not-allowed` allowedGpuModels; `gpu-capacity` qualifyingGpus,
 * neededGpus, gpuMilli, gpuMemoryMiB (null: the share's), mode, oneTenantPerMpsGpu; `mig-capacity`
 * gpusWithRoom. A code without figures gets its general sentence.
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
    case 'host-cpu':
      return 'not enough free host CPU';
    case 'host-memory':
      return 'not enough free host memory';
    default:
      return refusal.code;
  }
}

/**
 * The human view of `gpushare gpus`, like nvidia-smi: one block per GPU with its index, model,
 * uuid, `[simulated]` marker, mode, health and cordon, what enforces the shares on it (`enforced:
 * memory not enforced, compute time-slice`, while it holds jobs), bars of used/free milli-GPU and
 * MiB, and the jobs on it with their shares.
 */
import type { GpuView } from '../contract/api.js';
import { formatShareEnforcement } from './format-enforcement.js';
import { formatGpuMilli } from '../contract/job-table.js';
import { formatBar, formatTextTable } from './text-table.js';
import { escapeControlCharactersDeep } from '../lib/control-characters.js';

function gpuFlags(gpu: GpuView): string {
  const flags = [
    gpu.healthy ? 'healthy' : `UNHEALTHY${gpu.healthReason ? ` (${gpu.healthReason})` : ''}`,
    gpu.cordoned ? 'CORDONED' : null,
    gpu.schedulable ? 'schedulable' : 'not schedulable',
    gpu.migEnabled ? 'MIG enabled' : null,
  ];
  return flags.filter((f): f is string => f !== null).join(', ');
}

/** One GPU's block, without a final newline. */
export function formatGpuBlock(received: GpuView): string {
  const gpu = escapeControlCharactersDeep(received);
  const title =
    `GPU ${gpu.index}  ${gpu.name}${gpu.model !== gpu.name ? ` (${gpu.model})` : ''}  ${gpu.uuid}` +
    `${gpu.simulated ? '  [simulated]' : ''}`;
  const lines = [
    title,
    `  mode ${gpu.mode ?? '-'}, ${gpuFlags(gpu)}`,
    ...(gpu.enforcement ? [`  enforced: ${formatShareEnforcement(gpu.enforcement)}`] : []),
    `  compute ${formatBar(gpu.allocatedGpuMilli, gpu.allocatedGpuMilli + gpu.freeGpuMilli)} ` +
      `${gpu.allocatedGpuMilli} / ${gpu.allocatedGpuMilli + gpu.freeGpuMilli} milli used, ${gpu.freeGpuMilli} free`,
    `  memory  ${formatBar(gpu.allocatedGpuMemoryMiB, gpu.gpuMemoryMiB)} ` +
      `${gpu.allocatedGpuMemoryMiB} / ${gpu.gpuMemoryMiB} MiB allocated, ${gpu.freeGpuMemoryMiB} free`,
  ];
  if (gpu.utilizationGpuPct !== null || gpu.memoryUsedMiB !== null) {
    // Simulated GPUs have nothing to measure: their figures follow the allocations, and say so.
    const label = gpu.measuredSource === 'simulated' ? 'simulated' : 'measured';
    lines.push(
      `  ${label}: utilization ${gpu.utilizationGpuPct === null ? '-' : `${gpu.utilizationGpuPct}%`}, ` +
        `memory used ${gpu.memoryUsedMiB === null ? '-' : `${gpu.memoryUsedMiB} MiB`}`,
    );
  }
  if (gpu.jobs.length === 0) {
    lines.push('  no jobs');
  } else {
    const table = formatTextTable(
      ['JOB', 'NAME', 'TENANT', 'STATE', 'SHARE', 'MEMORY', 'MIG'],
      gpu.jobs.map((job) => [
        String(job.id),
        job.name,
        job.tenant,
        job.state,
        `${formatGpuMilli(job.gpuMilli)} (${job.gpuMilli} milli)`,
        `${job.gpuMemoryMiB} MiB`,
        job.migProfile ?? '-',
      ]),
    );
    lines.push(...table.split('\n').map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

/** All GPUs' blocks separated by blank lines, without a final newline. */
export function formatGpus(gpus: readonly GpuView[]): string {
  return gpus.length === 0 ? 'no GPUs' : gpus.map(formatGpuBlock).join('\n\n');
}

/**
 * Writes openb pod lists (the 11-column format of cluster-trace-gpu-v2023), e.g. the variants
 * synthesize-variant.ts makes.
 */
import type { TracePod } from './trace-types.js';

const POD_LIST_HEADER =
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';

/** Throws a RangeError unless `value` is a non-negative safe integer. */
function intText(pod: TracePod, field: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`pod '${pod.name}' field '${field}': expected a non-negative integer, got ${value}`);
  }
  return String(value);
}

/** Throws a RangeError when `value` would break the unquoted CSV (comma, quote or line break). */
function plainText(pod: TracePod, field: string, value: string): string {
  if (/[,"\r\n]/.test(value)) {
    throw new RangeError(
      `pod '${pod.name}' field '${field}': must not contain a comma, quote or line break, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Writes pods as an 11-column openb pod list
 * (`name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time`),
 * one line per pod in the order given, with a trailing newline. `gpu_spec` is the pod's `gpuSpec`
 * (or its `allowedGpuModels` joined with `|` when `gpuSpec` is empty), `qos` is '' when null,
 * `pod_phase` is `Running`, missing times are written as 0 and `scheduled_time` is the creation
 * time. {@link parsePodListCsv} reads it back to the same pods (given name-sorted pods with times).
 * @throws RangeError for a number that is not a non-negative integer, or a text field with a
 *   comma, quote or line break
 */
export function formatPodListCsv(pods: readonly TracePod[]): string {
  const lines = [POD_LIST_HEADER];
  for (const p of pods) {
    if (p.name === '') throw new RangeError('pod name must not be empty');
    const created = intText(p, 'creation_time', p.creationTimeSeconds ?? 0);
    lines.push(
      [
        plainText(p, 'name', p.name),
        intText(p, 'cpu_milli', p.cpuMilli),
        intText(p, 'memory_mib', p.hostMemoryMiB),
        intText(p, 'num_gpu', p.gpuCount),
        intText(p, 'gpu_milli', p.gpuMilli),
        plainText(p, 'gpu_spec', p.gpuSpec !== '' ? p.gpuSpec : p.allowedGpuModels.join('|')),
        plainText(p, 'qos', p.qos ?? ''),
        'Running',
        created,
        intText(p, 'deletion_time', p.deletionTimeSeconds ?? 0),
        created,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The webhook's admission warning for a GPU request no node of the cluster could ever hold, even
 * empty (the core's `CapacityCheck` verdict `fits-no-node`, the same rule as the extender's filter):
 * the object is admitted (a node that can hold it may join), and `kubectl` prints why its pods will
 * stay Pending, naming the node that comes closest.
 */
import { refusalMessage, type CapacityCheck, type JobRequest } from '../../../core/index.js';
import type { PodGpuRequest } from '../schema/pod-request.js';

/**
 * The warning for `request` of the pod template at `templatePath` (`[]` for a Pod), or null when
 * some node could hold it or the nodes are unknown (`capacity` null).
 */
export function capacityWarning(
  request: PodGpuRequest,
  capacity: CapacityCheck | null,
  templatePath: readonly string[],
): string | null {
  if (capacity === null) return null;
  const job: JobRequest = {
    id: 0,
    tenant: '',
    priority: 0,
    submittedAtMs: 0,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: request.gpu,
  };
  const verdict = capacity.verdict(job);
  if (verdict === null) return null;
  const where = templatePath.length > 0 ? `${templatePath.join('.')}: ` : '';
  return `${where}gpushare: its pods stay Pending: ${refusalMessage(verdict)}`;
}
